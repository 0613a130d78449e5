package releaseonerror

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// SET ... NX GET (Redis 7.0) answers the other way round from SET NX:
// nil, which go-redis gives as the error redis.Nil, when this call set
// the key, and the value already there when it did not.

// Negative: the duplicate, err == nil, returns with nothing claimed.
func claimNXGet(ctx context.Context, rdb *redis.Client, id string) (string, error) {
	old, err := rdb.SetArgs(ctx, "idem:"+id, "in_progress", redis.SetArgs{Mode: "NX", Get: true, TTL: time.Hour}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", err
	}
	if err == nil {
		return old, errBusy
	}
	if err := send(ctx, id); err != nil {
		return "", err // want `this error return leaves the key claimed by SetArgs at setnxget.go:\d+ held`
	}
	return "done", rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Negative: the same, as a switch on the claim's error, releasing on the
// work's failure.
func claimNXGetSwitch(ctx context.Context, rdb *redis.Client, id string) (string, error) {
	old, err := rdb.SetArgs(ctx, "idem:"+id, "in_progress", redis.SetArgs{Mode: "NX", Get: true, TTL: time.Hour}).Result()
	switch {
	case err == redis.Nil:
	case err != nil:
		return "", err
	default:
		return old, errBusy
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "idem:"+id)
		return "", err
	}
	return "done", rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Positive: Do with nx and get, the work's failure leaving the key held.
func claimNXGetDo(ctx context.Context, rdb *redis.Client, id string) error {
	err := rdb.Do(ctx, "set", "seen:"+id, 1, "nx", "get", "ex", 3600).Err()
	if err == nil {
		return nil // there before: a duplicate
	}
	if !errors.Is(err, redis.Nil) {
		return err
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Do at setnxget.go:\d+ held`
	}
	return nil
}

type reserver struct{ rdb *redis.Client }

// Negative: a helper that claims with SET NX GET and says whether it
// did, handing the claim to its caller.
func (r *reserver) Reserve(ctx context.Context, key string) (string, bool, error) {
	old, err := r.rdb.SetArgs(ctx, "idem:"+key, "pending", redis.SetArgs{Mode: "NX", Get: true, TTL: time.Hour}).Result()
	if errors.Is(err, redis.Nil) {
		return "", true, nil
	}
	if err != nil {
		return "", false, err
	}
	return old, false, nil
}

// Positive: the caller of that helper leaves the key reserved when the
// work fails.
func chargeReserved(ctx context.Context, r *reserver, id string) error {
	_, reserved, err := r.Reserve(ctx, id)
	if err != nil {
		return err
	}
	if !reserved {
		return errBusy
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Reserve at setnxget.go:\d+ held`
	}
	return nil
}

// Negative: the key was there (err == nil), and that is an error; the
// work's failure releases the key.
func claimNXGetDuplicateErr(ctx context.Context, rdb *redis.Client, id string) error {
	old, err := rdb.SetArgs(ctx, "idem:"+id, "in_progress", redis.SetArgs{Mode: "NX", Get: true, TTL: time.Hour}).Result()
	if err == nil {
		return errors.New("duplicate of " + old)
	}
	if err != redis.Nil {
		return err
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}
