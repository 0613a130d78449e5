package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrRunning tells the admin API the batch for this request is still being
// created.
var ErrRunning = errors.New("jobs: batch still starting")

// Batches starts payout batches on request from the admin API, which
// retries the call with the same request ID when it times out.
type Batches struct {
	rdb    *redis.Client
	create func(ctx context.Context, day time.Time) (string, error)
}

// Start claims the request ID, creates the batch and marks the request
// "done". The admin API needs the batch ID to follow the batch; a retry after
// a lost answer gets ErrDuplicate and never learns it.
//
// corpus: bug cacheresponse
// modelled on: diagridio/go-etcd-cron README.md (jobs created through an API and followed by their ID)
func (b *Batches) Start(ctx context.Context, requestID string, day time.Time) (string, error) {
	key := "batch:req:" + requestID
	ok, err := b.rdb.SetNX(ctx, key, "starting", 24*time.Hour).Result()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("jobs: batch request already handled")
	}
	id, err := b.create(ctx, Slot(day, 24*time.Hour))
	if err != nil {
		b.rdb.Del(context.WithoutCancel(ctx), key)
		return "", err
	}
	b.rdb.Set(ctx, key, "done", 24*time.Hour)
	return id, nil
}

// StartReplayable keeps the batch ID under the request ID and gives it to a
// retry.
//
// corpus: ok cacheresponse
// modelled on: diagridio/go-etcd-cron README.md (jobs created through an API and followed by their ID)
func (b *Batches) StartReplayable(ctx context.Context, requestID string, day time.Time) (string, error) {
	key := "batch:req:" + requestID
	ok, err := b.rdb.SetNX(ctx, key, "starting", 24*time.Hour).Result()
	if err != nil {
		return "", err
	}
	if !ok {
		id, err := b.rdb.Get(ctx, key).Result()
		if err != nil {
			return "", err
		}
		if id == "starting" {
			return "", ErrRunning
		}
		return id, nil
	}
	id, err := b.create(ctx, Slot(day, 24*time.Hour))
	if err != nil {
		b.rdb.Del(context.WithoutCancel(ctx), key)
		return "", err
	}
	b.rdb.Set(ctx, key, id, 24*time.Hour)
	return id, nil
}
