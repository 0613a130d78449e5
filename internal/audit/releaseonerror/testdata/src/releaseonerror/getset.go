package releaseonerror

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// GETSET answers as SET NX GET does: redis.Nil when the key was absent,
// which makes this caller the one that took it.

// Positive: the old value nil is the claim, and the work's failure
// leaves the key held.
func claimGetSet(ctx context.Context, rdb *redis.Client, id string) error {
	old, err := rdb.GetSet(ctx, "idem:"+id, "processing").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if err == nil {
		return errors.New("duplicate: " + old)
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by GetSet at getset.go:\d+ held`
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Positive: Do("GETSET") with the old value compared with "".
func claimGetSetDo(ctx context.Context, rdb *redis.Client, id string) error {
	old, err := rdb.Do(ctx, "GETSET", "idem:"+id, "processing").Text()
	if err != nil && err != redis.Nil {
		return err
	}
	if old != "" {
		return nil // there before
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Do at getset.go:\d+ held`
	}
	return nil
}

// Negative: the work's failure gives the key back.
func claimGetSetReleased(ctx context.Context, rdb *redis.Client, id string) error {
	_, err := rdb.GetSet(ctx, "idem:"+id, "processing").Result()
	switch err {
	case redis.Nil:
	case nil:
		return nil
	default:
		return err
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Negative: a swap, not a claim: the previous session is read to evict
// it, and redis.Nil only means there was none.
func swapSession(ctx context.Context, rdb *redis.Client, user, session string) error {
	last, err := rdb.GetSet(ctx, "session:"+user, session).Result()
	if err != nil && err != redis.Nil {
		return err
	}
	if last != "" {
		if err := rdb.Del(ctx, "sess:"+last).Err(); err != nil {
			return err
		}
	}
	return send(ctx, user)
}

// Positive: a sliding window of delivered message IDs kept in a sorted
// set; ZADD NX's count says this caller added the ID, and a failure
// leaves it there, so the retry is dropped as a duplicate.
func windowClaim(ctx context.Context, rdb *redis.Client, id string) error {
	n, err := rdb.ZAddNX(ctx, "dedup:window", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Result()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil // seen within the window
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by ZAddNX at getset.go:\d+ held`
	}
	return nil
}

// Negative: the same, removing the ID when the work fails.
func windowClaimReleased(ctx context.Context, rdb *redis.Client, id string) error {
	n, err := rdb.ZAddNX(ctx, "dedup:window", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Result()
	if err != nil || n == 0 {
		return err
	}
	if err := send(ctx, id); err != nil {
		rdb.ZRem(ctx, "dedup:window", id)
		return err
	}
	return nil
}

// Negative: a ZADD whose count nobody reads records a timestamp.
func windowTouch(ctx context.Context, rdb *redis.Client, id string) error {
	if err := rdb.ZAdd(ctx, "recent", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Err(); err != nil {
		return err
	}
	return send(ctx, id)
}

// Negative: a GETSET of the result completes the claim; a later failure
// leaves a completed key, not a held one.
func claimThenSwapDone(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	if _, err := rdb.GetSet(ctx, "idem:"+id, "done").Result(); err != nil && err != redis.Nil {
		return err
	}
	return send(ctx, "receipt:"+id)
}

// Negative: a GETSET whose reply is dropped (only redis.Nil let through
// as no error) writes the key whether or not it was there: no claim, and
// so none left held.
func stampGetSet(ctx context.Context, rdb *redis.Client, id string) error {
	if err := rdb.GetSet(ctx, "idem:"+id, "processing").Err(); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	return send(ctx, id)
}
