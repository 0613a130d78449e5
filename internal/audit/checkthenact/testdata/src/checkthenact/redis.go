package checkthenact

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

func consumeRedis(ctx context.Context, rdb *redis.Client, id string) error {
	n, err := rdb.Exists(ctx, "seen:"+id).Result()
	if err != nil || n > 0 {
		return err
	}
	return rdb.Set(ctx, "seen:"+id, 1, 72*time.Hour).Err() // want `SET of "seen:" \+ id after the EXISTS at redis.go:12 races with a concurrent retry; use SetNX \(SET NX\) and treat false as already done \(checkthenact\)`
}

func consumeRedisNX(ctx context.Context, rdb *redis.Client, id string) error {
	n, err := rdb.Exists(ctx, "seen:"+id).Result()
	if err != nil || n > 0 {
		return err
	}
	return rdb.SetNX(ctx, "seen:"+id, 1, 72*time.Hour).Err()
}

func respond(ctx context.Context, rdb redis.Cmdable, idempotencyKey string, body []byte) ([]byte, error) {
	if cached, err := rdb.Get(ctx, idempotencyKey).Bytes(); err == nil {
		return cached, nil
	}
	return body, rdb.Set(ctx, idempotencyKey, body, 24*time.Hour).Err() // want `SET of idempotencyKey after the GET at redis.go:28 races`
}

func respondArgs(ctx context.Context, rdb redis.Cmdable, idempotencyKey string, body []byte) ([]byte, error) {
	if cached, err := rdb.Get(ctx, idempotencyKey).Bytes(); err == nil {
		return cached, nil
	}
	return body, rdb.SetArgs(ctx, idempotencyKey, body, redis.SetArgs{Mode: "NX", TTL: 24 * time.Hour}).Err()
}

// A cache, not a dedup record: a second fill is harmless.
func profile(ctx context.Context, rdb *redis.Client, userID string, load func() string) (string, error) {
	if v, err := rdb.Get(ctx, "cache:"+userID).Result(); err == nil {
		return v, nil
	}
	v := load()
	return v, rdb.Set(ctx, "cache:"+userID, v, time.Minute).Err()
}

// The key is built by the helpers differently but has one shape.
func seen(ctx context.Context, rdb *redis.Client, msgID string) bool {
	return rdb.Exists(ctx, fmt.Sprintf("dedup:%s", msgID)).Val() > 0
}

func mark(ctx context.Context, rdb *redis.Client, id string) {
	rdb.Set(ctx, fmt.Sprintf("dedup:%s", id), 1, time.Hour)
}

func markNX(ctx context.Context, rdb *redis.Client, id string) {
	rdb.Do(ctx, "SET", fmt.Sprintf("dedup:%s", id), 1, "EX", 3600, "NX")
}

func consumeMessage(ctx context.Context, rdb *redis.Client, msgID string) {
	if seen(ctx, rdb, msgID) {
		return
	}
	mark(ctx, rdb, msgID) // want `SET of fmt.Sprintf\("dedup:%s", id\) \(by mark, at redis.go:56\) after the EXISTS in seen at redis.go:52, called at redis.go:64 races`
}

func consumeMessageNX(ctx context.Context, rdb *redis.Client, msgID string) {
	if seen(ctx, rdb, msgID) {
		return
	}
	markNX(ctx, rdb, msgID)
}

func seatKey(event, seat string) string { return "seat:" + event + ":" + seat }

// holdSeat checks that nobody holds the seat, then writes this cart's
// hold: two carts racing both find it free and the second overwrites the
// first one's hold, which still believes it holds the seat.
func holdSeat(ctx context.Context, rdb *redis.Client, event, seat, cart string) error {
	key := seatKey(event, seat)
	n, err := rdb.Exists(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("seat %s taken", seat)
	}
	return rdb.Set(ctx, key, "cart:"+cart, 10*time.Minute).Err() // want `SET of key after the EXISTS at redis.go:\d+ races`
}

// seatLabel fills a cache from the key alone: whoever writes, writes the
// same label.
func seatLabel(ctx context.Context, rdb *redis.Client, event, seat string) (string, error) {
	key := seatKey(event, seat)
	if v, err := rdb.Get(ctx, key+":label").Result(); err == nil {
		return v, nil
	}
	label := fmt.Sprintf("%s / %s", event, seat)
	return label, rdb.Set(ctx, key+":label", label, time.Hour).Err()
}

// renewHold rewrites a hold only when one exists: no creation races.
func renewHold(ctx context.Context, rdb *redis.Client, event, seat, cart string) error {
	key := seatKey(event, seat)
	n, err := rdb.Exists(ctx, key).Result()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no hold on %s", seat)
	}
	return rdb.Set(ctx, key, "cart:"+cart, 10*time.Minute).Err()
}

// recordPurchase reads the count, then queues the new one in a MULTI
// without WATCH: two buyers both read it and both write.
func recordPurchase(ctx context.Context, rdb *redis.Client, customer string, qty int) error {
	key := "bought:" + customer
	have, err := rdb.Get(ctx, key).Int()
	if err != nil && err != redis.Nil {
		return err
	}
	if have+qty > 4 {
		return fmt.Errorf("limit reached")
	}
	_, err = rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, key, have+qty, 0) // want `SET of key after the GET at redis.go:\d+ races`
		return nil
	})
	return err
}

// recordPurchaseWatched does the same inside WATCH: EXEC fails when the
// count changed, and the caller retries.
func recordPurchaseWatched(ctx context.Context, rdb *redis.Client, customer string, qty int) error {
	key := "bought:" + customer
	take := func(tx *redis.Tx) error {
		have, err := tx.Get(ctx, key).Int()
		if err != nil && err != redis.Nil {
			return err
		}
		if have+qty > 4 {
			return fmt.Errorf("limit reached")
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, key, have+qty, 0)
			return nil
		})
		return err
	}
	return rdb.Watch(ctx, take, key)
}
