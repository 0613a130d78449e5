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
