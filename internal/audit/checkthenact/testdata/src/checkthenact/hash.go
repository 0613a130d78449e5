package checkthenact

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Job is a scheduled run; Run is the work.
type Job struct {
	Name string
	At   time.Time
	Run  func(ctx context.Context) error
}

func (j Job) slot() string { return j.Name + "@" + j.At.UTC().Format(time.RFC3339) }

// A hash field read, the job run, then the field written: two instances
// both find the slot unrecorded and both run it.
func runOncePerSlot(ctx context.Context, rdb *redis.Client, j Job) error {
	ranAt, err := rdb.HGet(ctx, "job-runs", j.slot()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if ranAt != "" {
		return nil
	}
	if err := j.Run(ctx); err != nil {
		return err
	}
	return rdb.HSet(ctx, "job-runs", j.slot(), time.Now().Unix()).Err() // want `HSET of "job-runs" after the HGET at hash.go:\d+ races with a concurrent retry: both find nothing and both run j.Run first; claim in the check's place \(HSETNX of the field, before the work\)`
}

// HSETNX takes the slot before the run.
func runOncePerSlotClaimed(ctx context.Context, rdb *redis.Client, j Job) error {
	set, err := rdb.HSetNX(ctx, "job-runs", j.slot(), time.Now().Unix()).Result()
	if err != nil || !set {
		return err
	}
	if err := j.Run(ctx); err != nil {
		rdb.HDel(context.WithoutCancel(ctx), "job-runs", j.slot())
		return err
	}
	return nil
}

// A hash field counted up after a read of another field is no check of it.
func touch(ctx context.Context, rdb *redis.Client, j Job) error {
	last, err := rdb.HGet(ctx, "job-last", j.Name).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if last != "" {
		return nil
	}
	return rdb.HSet(ctx, "job-first", j.Name, time.Now().Unix()).Err()
}
