package releaseonerror

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// A release sent with the request's context after the work failed
// because that context was cancelled fails at once: the key stays held.

// Positive: the DEL with ctx in the branch that knows ctx is cancelled.
func releaseCancelled(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		if errors.Is(err, context.Canceled) {
			rdb.Del(ctx, "idem:"+id) // want `this release of the key claimed by SetNX at cancelled.go:\d+ is sent with ctx, which is cancelled here`
			return err
		}
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Positive: a timeout context derived from the cancelled one, after
// ctx.Err() said it is done.
func releaseDerived(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		if ctx.Err() != nil {
			tctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			rdb.Del(tctx, "idem:"+id) // want `this release of the key claimed by SetNX at cancelled.go:\d+ is sent with tctx, which is cancelled here`
			return err
		}
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Negative: the release detached from the request's cancellation.
func releaseDetached(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			rdb.Del(context.WithoutCancel(ctx), "idem:"+id)
			return err
		}
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Negative: a fresh timeout context made from Background.
func releaseFresh(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		if ctx.Err() != nil {
			bg, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			rdb.Del(bg, "idem:"+id)
			return err
		}
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

// Positive: a select that waits for the work or for ctx, and releases
// with ctx when ctx is done.
func releaseOnDone(ctx context.Context, rdb *redis.Client, id string, done <-chan error) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	select {
	case err := <-done:
		if err != nil {
			rdb.Del(ctx, "idem:"+id)
			return err
		}
	case <-ctx.Done():
		rdb.Del(ctx, "idem:"+id) // want `this release of the key claimed by SetNX at cancelled.go:\d+ is sent with ctx, which is cancelled here`
		return ctx.Err()
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}

func unclaim(ctx context.Context, rdb *redis.Client, key string) {
	rdb.Del(context.WithoutCancel(ctx), key)
}

// Negative: a release helper given ctx, which detaches it itself.
func releaseByHelper(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		if errors.Is(err, context.Canceled) {
			unclaim(ctx, rdb, "idem:"+id)
			return err
		}
		rdb.Del(ctx, "idem:"+id)
		return err
	}
	return rdb.Set(ctx, "idem:"+id, "done", time.Hour).Err()
}
