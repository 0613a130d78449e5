package releaseonerror

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// A SET NX queued on a pipeline claims when its reply is read after Exec.

// Positive: the queued claim's reply says this caller took the key; the
// work's failure leaves it held.
func pipelinedClaim(ctx context.Context, rdb *redis.Client, id string) error {
	pipe := rdb.TxPipeline()
	set := pipe.SetNX(ctx, "approval:"+id, "pending", 24*time.Hour)
	pipe.Incr(ctx, "approvals:count")
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	created, err := set.Result()
	if err != nil {
		return err
	}
	if !created {
		return nil
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SetNX at pipeclaim.go:\d+ held`
	}
	return nil
}

// Negative: the same, released on the failure.
func pipelinedClaimReleased(ctx context.Context, rdb *redis.Client, id string) error {
	pipe := rdb.TxPipeline()
	set := pipe.SetNX(ctx, "approval:"+id, "pending", 24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	if !set.Val() {
		return nil
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "approval:"+id)
		return err
	}
	return nil
}

// Positive: the claim queued in a Pipelined callback, kept in a variable
// of the function and read once the pipeline ran.
func pipelinedCallbackClaim(ctx context.Context, rdb *redis.Client, id string) error {
	var set *redis.BoolCmd
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		set = p.SetNX(ctx, "approval:"+id, "pending", time.Hour)
		return nil
	}); err != nil {
		return err
	}
	if !set.Val() {
		return nil
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SetNX at pipeclaim.go:\d+ held`
	}
	return nil
}

// Negative: the same in a TxPipelined callback, released on the failure.
func txPipelinedCallbackReleased(ctx context.Context, rdb *redis.Client, id string) error {
	var set *redis.BoolCmd
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		set = p.SetNX(ctx, "approval:"+id, "pending", time.Hour)
		return nil
	})
	if err != nil || !set.Val() {
		return err
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "approval:"+id)
		return err
	}
	return nil
}

// Negative: a SET NX queued in the callback and kept nowhere answers no
// one: nothing here knows whether it took the key.
func pipelinedCallbackUnread(ctx context.Context, rdb *redis.Client, id string) error {
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SetNX(ctx, "approval:"+id, "pending", time.Hour)
		return nil
	}); err != nil {
		return err
	}
	return send(ctx, id)
}
