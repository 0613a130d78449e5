package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// Logins keeps failed-login counters and account locks in Redis.
type Logins struct {
	rdb *redis.Client
	hc  *http.Client
}

var (
	keyFailedLogin   = "auth:login:failed:%s"
	keyAccountLocked = "auth:login:locked:%s"
	errAccountLocked = errors.New("account locked")
)

func (l *Logins) isLocked(ctx context.Context, email string) (bool, error) {
	n, err := l.rdb.Exists(ctx, fmt.Sprintf(keyAccountLocked, email)).Result()
	if err != nil {
		return false, err
	}
	return n > 0, nil
}

func (l *Logins) countFailure(ctx context.Context, email string) error {
	key := fmt.Sprintf(keyFailedLogin, email)
	n, err := l.rdb.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		l.rdb.Expire(ctx, key, time.Hour)
	}
	if n >= 5 {
		return l.rdb.Set(ctx, fmt.Sprintf(keyAccountLocked, email), 1, 15*time.Minute).Err()
	}
	return nil
}

// Fail records a bad password: the lock checked first is set by the
// failure counter when it reaches five, an INCR that one caller at a
// time moves, so no two callers set it on the strength of the check.
//
// corpus: ok checkthenact
// modelled on: MamangRust/monolith-payment-gateway-grpc service/auth/redis/loginCache.go (IncrementFailedLogin: INCR, then SET of the lock key at the threshold) with service/loginService.go (IsAccountLocked first)
func (l *Logins) Fail(ctx context.Context, email string) error {
	locked, err := l.isLocked(ctx, email)
	if err != nil {
		return err
	}
	if locked {
		return errAccountLocked
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://security.example.com/failed-logins?email="+email, nil)
	if err != nil {
		return err
	}
	resp, err := l.hc.Do(req) // tells the security team
	if err != nil {
		return err
	}
	resp.Body.Close()
	return l.countFailure(ctx, email)
}
