package wave7claim

import (
	"context"
	"time"

	redisv8 "github.com/go-redis/redis/v8"
)

// Jobs runs scheduled jobs once per run ID with a go-redis v8 client.
type Jobs struct {
	rdb *redisv8.Client
	run func(ctx context.Context, id string) error
}

// Run takes the run's field in the day's hash with HSETNX queued in a
// pipeline callback beside the hash's expiry; a failed run leaves the
// field set, so the scheduler's retry is skipped as already run.
//
// corpus: bug releaseonerror
// modelled on: go-redis/redis v8 example_test.go (ExampleClient_Pipelined: command kept from the callback, Val read after)
func (j *Jobs) Run(ctx context.Context, day, id string) error {
	var took *redisv8.BoolCmd
	if _, err := j.rdb.Pipelined(ctx, func(p redisv8.Pipeliner) error {
		took = p.HSetNX(ctx, "runs:"+day, id, "running")
		p.Expire(ctx, "runs:"+day, 48*time.Hour)
		return nil
	}); err != nil {
		return err
	}
	if !took.Val() {
		return nil
	}
	return j.run(ctx, id)
}

// RunReleased is the same, deleting the field when the run fails.
//
// corpus: ok releaseonerror
// modelled on: go-redis/redis v8 example_test.go (ExampleClient_Pipelined: command kept from the callback, Val read after)
func (j *Jobs) RunReleased(ctx context.Context, day, id string) error {
	var took *redisv8.BoolCmd
	if _, err := j.rdb.Pipelined(ctx, func(p redisv8.Pipeliner) error {
		took = p.HSetNX(ctx, "runs:"+day, id, "running")
		p.Expire(ctx, "runs:"+day, 48*time.Hour)
		return nil
	}); err != nil {
		return err
	}
	if !took.Val() {
		return nil
	}
	if err := j.run(ctx, id); err != nil {
		j.rdb.HDel(context.WithoutCancel(ctx), "runs:"+day, id)
		return err
	}
	return nil
}

// Count bumps the run counter and its expiry in one pipeline and runs
// the job: the counter claims nothing, so the run's failure holds no key.
//
// corpus: ok releaseonerror
// modelled on: go-redis/redis v8 example_test.go (ExampleClient_Pipelined: Incr and Expire queued, the count read after)
func (j *Jobs) Count(ctx context.Context, day, id string) error {
	var n *redisv8.IntCmd
	if _, err := j.rdb.Pipelined(ctx, func(p redisv8.Pipeliner) error {
		n = p.Incr(ctx, "runs:count:"+day)
		p.Expire(ctx, "runs:count:"+day, 48*time.Hour)
		return nil
	}); err != nil {
		return err
	}
	if n.Val() > 1000 {
		return nil
	}
	return j.run(ctx, id)
}
