package releaseonerror

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

var errBusy = errors.New("busy")

func send(ctx context.Context, msg string) error { return nil }

func validate(msg string) error { return nil }

func consumeSomePaths(ctx context.Context, rdb *redis.Client, id, msg string) error {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := validate(msg); err != nil {
		rdb.Del(ctx, "dedup:"+id)
		return err
	}
	if err := send(ctx, msg); err != nil {
		return fmt.Errorf("send: %w", err) // want `this error return leaves the key claimed by SetNX at redis.go:19 held: every retry is refused as in progress until its TTL or lease runs out; defer a Del of the key right after the claim, conditional on the error, or Del it before returning \(releaseonerror\)`
	}
	return nil
}

func consumeReleasedOnSuccess(ctx context.Context, rdb *redis.Client, id, msg string) error {
	ok, err := rdb.SetNX(ctx, "lock:"+id, 1, time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	if err := validate(msg); err != nil {
		return err // want `this error return leaves the key claimed by SetNX at redis.go:34 held \(and 1 more failing return\)`
	}
	if err := send(ctx, msg); err != nil {
		return err
	}
	rdb.Del(ctx, "lock:"+id)
	return nil
}

func claimArgs(ctx context.Context, rdb redis.Cmdable, key string) error {
	err := rdb.SetArgs(ctx, "idem:"+key, "in_progress", redis.SetArgs{Mode: "NX", TTL: time.Hour}).Err()
	if errors.Is(err, redis.Nil) {
		return errBusy
	}
	if err != nil {
		return err
	}
	return send(ctx, key) // want `this error return leaves the key claimed by SetArgs at redis.go:52 held`
}

func claimInline(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.SetNX(ctx, "job:"+id, 1, time.Hour).Val() {
		return errBusy
	}
	if err := send(ctx, id); err != nil {
		return err // want `claimed by SetNX at redis.go:63 held`
	}
	return rdb.Set(ctx, "job:"+id, "done", time.Hour).Err()
}

func claimDo(ctx context.Context, rdb *redis.Client, id string) error {
	if err := rdb.Do(ctx, "set", "seen:"+id, 1, "nx", "ex", 3600).Err(); err != nil {
		return nil
	}
	for attempt := 0; attempt < 3; attempt++ {
		if err := send(ctx, id); err == nil {
			return nil
		}
	}
	return errors.New("gave up") // want `claimed by Do at redis.go:73 held`
}

// Negatives.

func consumeDeferred(ctx context.Context, rdb *redis.Client, id, msg string) (err error) {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	defer func() {
		if err != nil {
			rdb.Del(context.WithoutCancel(ctx), "dedup:"+id)
		}
	}()
	if err := validate(msg); err != nil {
		return err
	}
	return send(ctx, msg)
}

func lockDeferred(ctx context.Context, rdb *redis.Client, id, msg string) error {
	ok, err := rdb.SetNX(ctx, "lock:"+id, 1, time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	defer rdb.Del(ctx, "lock:"+id)
	if err := validate(msg); err != nil {
		return err
	}
	return send(ctx, msg)
}

func consumeEveryPath(ctx context.Context, rdb *redis.Client, id, msg string) error {
	key := "dedup:" + id
	ok, err := rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := validate(msg); err != nil {
		rdb.Del(ctx, key)
		return err
	}
	if err := send(ctx, msg); err != nil {
		rdb.Del(ctx, key)
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// The only error returns are the claim's own: nothing was taken.
func claimFails(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil {
		return fmt.Errorf("claim %s: %w", id, err)
	}
	if !ok {
		return errBusy
	}
	if err := send(ctx, id); err != nil {
		return rdb.Del(ctx, "dedup:"+id).Err()
	}
	return nil
}

// A failure after the claim is logged and swallowed: the function does not
// fail, so the key is the record that the message was taken.
func swallow(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.SetNX(ctx, "seen:"+id, 1, time.Hour).Val() {
		return nil
	}
	if err := send(ctx, id); err != nil {
		fmt.Println("dropping", id, err)
		return nil
	}
	return nil
}

// err is known to be nil where it is returned last.
func knownNil(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	err = send(ctx, id)
	if err != nil {
		rdb.Del(ctx, "dedup:"+id)
		return err
	}
	return err
}

func unlock(ctx context.Context, rdb *redis.Client, id string) {
	rdb.Del(context.WithoutCancel(ctx), "lock:"+id)
}

func helperRelease(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.SetNX(ctx, "lock:"+id, 1, time.Minute).Val() {
		return errBusy
	}
	defer unlock(ctx, rdb, id)
	return send(ctx, id)
}

// Claim helpers that return the claim hand it to their caller.
func tryClaim(ctx context.Context, rdb *redis.Client, id string) (bool, error) {
	return rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour).Result()
}

func tryClaimWrapped(ctx context.Context, rdb *redis.Client, id string) (bool, error) {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour).Result()
	if err != nil {
		return false, fmt.Errorf("claim: %w", err)
	}
	return ok, nil
}

// A rate limit is meant to hold through a failure; a cache entry is no
// claim of work.
func limited(ctx context.Context, rdb *redis.Client, user, msg string) error {
	if !rdb.SetNX(ctx, "ratelimit:"+user, 1, time.Minute).Val() {
		return errBusy
	}
	return send(ctx, msg)
}

func cached(ctx context.Context, rdb *redis.Client, id, profile string) error {
	if err := rdb.SetNX(ctx, "cache:profile:"+id, profile, time.Hour).Err(); err != nil {
		return err
	}
	return send(ctx, profile)
}

// Negative: the claim's command kept in a variable, its own error checked
// through it (hookdeck/outpost's redislock): a claim that failed took
// nothing.
func tryClaimCmd(ctx context.Context, rdb *redis.Client, id string) (bool, error) {
	result := rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour)
	if result.Err() != nil {
		return false, result.Err()
	}
	return result.Val(), nil
}

// The same command variable, but the error returned is the work's, after
// the claim was taken.
func payCmd(ctx context.Context, rdb *redis.Client, id string) error {
	result := rdb.SetNX(ctx, "idem:"+id, "in_progress", time.Hour)
	if err := result.Err(); err != nil {
		return err
	}
	if !result.Val() {
		return errBusy
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SetNX at redis.go:\d+ held`
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

type cmdLock struct {
	client redis.Cmdable
	key    string
	value  string
	ttl    time.Duration
}

// Negative: as tryClaimCmd, through a redis.Cmdable, on a key the lock
// keeps.
func (l *cmdLock) AttemptLock(ctx context.Context) (bool, error) {
	result := l.client.SetNX(ctx, l.key, l.value, l.ttl)
	if result.Err() != nil {
		return false, result.Err()
	}
	return result.Val(), nil
}
