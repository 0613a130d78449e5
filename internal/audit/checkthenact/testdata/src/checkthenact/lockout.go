package checkthenact

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type lockout struct{ rdb *redis.Client }

func (l *lockout) locked(ctx context.Context, email string) bool {
	n, err := l.rdb.Exists(ctx, "locked:"+email).Result()
	return err == nil && n > 0
}

// failed counts a failure and locks at the fifth: the INCR decides.
func (l *lockout) failed(ctx context.Context, email string) {
	n, err := l.rdb.Incr(ctx, "failed:"+email).Result()
	if err != nil {
		return
	}
	if n >= 5 {
		l.rdb.Set(ctx, "locked:"+email, 1, 15*time.Minute)
	}
}

// lockNow locks whatever happened before.
func (l *lockout) lockNow(ctx context.Context, email string) {
	l.rdb.Set(ctx, "locked:"+email, 1, 15*time.Minute)
}

var errLocked = errors.New("account locked")

// login checks the lock, and on a bad password mails the user and counts
// the failure: the lock is set when the counter says so, whoever read it
// before.
func (l *lockout) login(ctx context.Context, email string, ok bool) error {
	if l.locked(ctx, email) {
		return errLocked
	}
	if !ok {
		if _, err := http.Post("https://mail.example.com/failed?to="+email, "text/plain", nil); err != nil {
			return err
		}
		l.failed(ctx, email)
		return errors.New("bad password")
	}
	return nil
}

// lockByHand checks the lock, mails, and sets the lock itself: two
// callers both find it unset and both mail.
func (l *lockout) lockByHand(ctx context.Context, email string) error {
	if l.locked(ctx, email) {
		return errLocked
	}
	if _, err := http.Post("https://mail.example.com/locked?to="+email, "text/plain", nil); err != nil {
		return err
	}
	l.lockNow(ctx, email) // want `SET of "locked:" \+ email \(by lockNow, at lockout.go:\d+\) after the EXISTS in locked`
	return nil
}
