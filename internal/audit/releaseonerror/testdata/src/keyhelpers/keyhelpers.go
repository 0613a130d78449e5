// Package keyhelpers holds a service's key helpers, without directives:
// what they do is inferred from their bodies.
package keyhelpers

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

var ErrLocked = errors.New("locked")

type Locks struct{ rdb *redis.Client }

// Lock takes name and returns the function that gives it back.
func (l *Locks) Lock(ctx context.Context, name string) (func(), error) {
	key := "lock:" + name
	if !l.rdb.SetNX(ctx, key, 1, time.Minute).Val() {
		return nil, ErrLocked
	}
	return func() { l.rdb.Del(context.WithoutCancel(ctx), key) }, nil
}

type Dedup struct{ rdb *redis.Client }

// Seen marks id and reports whether it had been marked before.
func (d *Dedup) Seen(ctx context.Context, id string) (bool, error) {
	ok, err := d.rdb.SetNX(ctx, "seen:"+id, 1, 24*time.Hour).Result()
	return !ok, err
}

// Take claims id for this worker.
func (d *Dedup) Take(ctx context.Context, id string) (bool, error) {
	return d.rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
}

// Forget gives id back.
func (d *Dedup) Forget(ctx context.Context, id string) error {
	return d.rdb.Del(context.WithoutCancel(ctx), "dedup:"+id).Err()
}
