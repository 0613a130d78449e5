// Package keys is a service's own claim helpers, annotated so that the
// checks in the packages calling them know what they do.
package keys

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

var rdb = redis.NewClient(&redis.Options{})

// Claim takes id for this worker; false when another has it.
//
//idemkit:claim
func Claim(ctx context.Context, id string) (bool, error) {
	ok, err := rdb.SetNX(ctx, "job:"+id, "running", time.Hour).Result()
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// Release gives id back so that a retry can run at once.
//
//idemkit:release
func Release(ctx context.Context, id string) error {
	return rdb.Del(ctx, "job:"+id).Err()
}

// Done records that id's work is finished.
//
//idemkit:complete
func Done(ctx context.Context, id string, result []byte) error {
	return rdb.Set(ctx, "job:"+id, result, 24*time.Hour).Err()
}

// MarkDone records that id's work is finished, with no result.
//
//idemkit:complete
func MarkDone(ctx context.Context, id string) error {
	return rdb.Set(ctx, "job:"+id, "done", 24*time.Hour).Err()
}
