package realcomp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Dedup runs an event's handler once: a permanent mark once it succeeded,
// and a short token lock while it runs.
type Dedup struct {
	RDB     *redis.Client
	DoneTTL time.Duration
	LockTTL time.Duration
}

// errDuplicate and errBusy tell the consumer to ack without work, or to
// come back later.
var (
	errDuplicate = errors.New("event already processed")
	errLocked    = errors.New("event locked by another worker")
)

// unlockScript deletes a lock only while it still holds the caller's
// token.
var unlockScript = redis.NewScript(`
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0
`)

func (d *Dedup) unlock(ctx context.Context, key, token string) {
	_ = unlockScript.Run(context.WithoutCancel(ctx), d.RDB, []string{key}, token).Err()
}

// Handle runs handle for the event unless it ran before.
//
// The done mark is read before the lock and not again under it, so a
// retry that read it just before the first run marked it runs again.
//
// corpus: ok releaseonerror
// corpus: bug checkthenact
// modelled on: gocasters/rankr pkg consumer idempotency checker (done mark, token lock released by a deferred compare-and-delete)
func (d *Dedup) Handle(ctx context.Context, eventID string, handle func(context.Context) error) error {
	done := "evt:done:" + eventID
	lock := "evt:lock:" + eventID
	n, err := d.RDB.Exists(ctx, done).Result()
	if err != nil {
		return fmt.Errorf("dedup: exists: %w", err)
	}
	if n == 1 {
		return errDuplicate
	}
	token := uuid.NewString()
	ok, err := d.RDB.SetNX(ctx, lock, token, d.LockTTL).Result()
	if err != nil {
		return fmt.Errorf("dedup: lock: %w", err)
	}
	if !ok {
		return errLocked
	}
	defer d.unlock(ctx, lock, token)
	if err := handle(ctx); err != nil {
		return err
	}
	if err := d.RDB.Set(ctx, done, 1, d.DoneTTL).Err(); err != nil {
		return fmt.Errorf("dedup: mark done: %w", err)
	}
	return nil
}

// HandleMarked runs handle for the event unless it ran before; the mark
// taken first says "running" and becomes "done" after the work.
//
// corpus: bug releaseonerror
// modelled on: gocasters/rankr pkg consumer idempotency checker (the same consumer with one key for the lock and the mark, given back only on success)
func (d *Dedup) HandleMarked(ctx context.Context, eventID string, handle func(context.Context) error) error {
	key := "evt:" + eventID
	ok, err := d.RDB.SetNX(ctx, key, "running", d.DoneTTL).Result()
	if err != nil {
		return fmt.Errorf("dedup: mark: %w", err)
	}
	if !ok {
		return errDuplicate
	}
	if err := handle(ctx); err != nil {
		return fmt.Errorf("dedup: handle %s: %w", eventID, err)
	}
	return d.RDB.Set(ctx, key, "done", d.DoneTTL).Err()
}
