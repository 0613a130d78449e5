// Package handoffworker runs work for a key its caller claimed, in the
// background.
package handoffworker

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Runner runs charges and keeps their results under the key.
type Runner struct {
	Rdb *redis.Client
}

func charge(ctx context.Context, payload string) (string, error) {
	if payload == "" {
		return "", errors.New("empty payload")
	}
	return "ch_1", nil
}

// Process keeps the result under key on success, and returns on a
// failure with key still held.
func (r *Runner) Process(ctx context.Context, key, payload string) {
	res, err := charge(ctx, payload)
	if err != nil {
		return
	}
	r.Rdb.Set(ctx, key, res, 24*time.Hour)
}

// ProcessReleasing gives key back on a failure.
func (r *Runner) ProcessReleasing(ctx context.Context, key, payload string) {
	res, err := charge(ctx, payload)
	if err != nil {
		r.Rdb.Del(context.WithoutCancel(ctx), key)
		return
	}
	r.Rdb.Set(ctx, key, res, 24*time.Hour)
}
