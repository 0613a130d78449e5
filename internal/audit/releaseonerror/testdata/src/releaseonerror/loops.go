package releaseonerror

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
)

// A consumer's loop keeps each message's mark as the record that it was
// applied: a later turn's way out (the context's end, a closed channel)
// does not leave an earlier turn's key held.
func drain(ctx context.Context, rdb *redis.Client, msgs <-chan *nats.Msg, apply func(*nats.Msg) error) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			key := "applied:" + m.Subject
			fresh, err := rdb.SetNX(ctx, key, 1, 72*time.Hour).Result()
			if err != nil {
				return err
			}
			if !fresh {
				continue
			}
			if err := apply(m); err != nil {
				rdb.Del(context.WithoutCancel(ctx), key)
				continue
			}
			if err := m.Ack(); err != nil {
				return err // the work is done; the mark records it
			}
		}
	}
}

// The same loop going on to the next message after a failure without
// giving the key back: the redelivery finds the mark and skips the work.
func drainLeaky(ctx context.Context, rdb *redis.Client, msgs <-chan *nats.Msg, apply func(*nats.Msg) error) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-msgs:
			key := "applied:" + m.Subject
			fresh, err := rdb.SetNX(ctx, key, 1, 72*time.Hour).Result()
			if err != nil || !fresh {
				continue
			}
			if err := apply(m); err != nil {
				m.Nak()
				continue // want `this continue after a failure leaves the key claimed by SetNX at loops.go:\d+ held`
			}
			m.Ack()
		}
	}
}

// A range over a batch: each turn claims its item's key.
func applyBatch(ctx context.Context, rdb *redis.Client, ids []string, apply func(string) error) error {
	for _, id := range ids {
		ok, err := rdb.SetNX(ctx, "batch:"+id, 1, time.Hour).Result()
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := apply(id); err != nil {
			return err // want `this error return leaves the key claimed by SetNX at loops.go:\d+ held`
		}
	}
	return nil
}
