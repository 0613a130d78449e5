package releaseonerror

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
)

// onAdjust keeps its dedup mark as the record that the message was
// applied: the success return hands back the Ack's error, which is no
// failure of the work.
func onAdjust(ctx context.Context, rdb *redis.Client, m *nats.Msg, apply func() error) error {
	key := "adj:" + m.Subject
	fresh, err := rdb.SetNX(ctx, key, 1, 48*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return m.Ack()
	}
	if err := apply(); err != nil {
		rdb.Del(ctx, key)
		return m.Nak()
	}
	return m.Ack()
}

// onAdjustLeaky forgets the mark when the work fails: the redelivery is
// taken for a duplicate.
func onAdjustLeaky(ctx context.Context, rdb *redis.Client, m *nats.Msg, apply func() error) error {
	key := "adj:" + m.Subject
	fresh, err := rdb.SetNX(ctx, key, 1, 48*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return m.Ack()
	}
	if err := apply(); err != nil {
		return m.Nak() // want `leaves the key claimed by SetNX at nats.go:34 held`
	}
	return m.Ack()
}

var unlockIfOwner = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)

// refundLocked gives its token-guarded lock back through a Lua
// compare-and-delete, deferred: every path releases it.
func refundLocked(ctx context.Context, rdb *redis.Client, id, token string, refund func() error) error {
	key := "refund-lock:" + id
	ok, err := rdb.SetNX(ctx, key, token, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	defer unlockIfOwner.Run(context.WithoutCancel(ctx), rdb, []string{key}, token)
	return refund()
}

// refundLockedLate registers the same release only after its first
// failing return.
func refundLockedLate(ctx context.Context, rdb *redis.Client, id, token string, check, refund func() error) error {
	key := "refund-lock:" + id
	ok, err := rdb.SetNX(ctx, key, token, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	if err := check(); err != nil {
		return err // want `leaves the key claimed by SetNX at nats.go:6\d held`
	}
	defer unlockIfOwner.Run(context.WithoutCancel(ctx), rdb, []string{key}, token)
	return refund()
}
