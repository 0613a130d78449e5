// Package flowhelpers holds key helpers without directives, in another
// package than their callers: the facts inferred from their bodies say
// what they do.
package flowhelpers

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

// Seen marks id and says whether it was marked before: true means done.
func (d *Dedup) Seen(ctx context.Context, id string) (bool, error) {
	ok, err := d.rdb.SetNX(ctx, "seen:"+id, 1, 24*time.Hour).Result()
	return !ok, err
}

// Claim takes id: true means this call took it.
func (d *Dedup) Claim(ctx context.Context, id string) (bool, error) {
	return d.rdb.SetNX(ctx, "claim:"+id, "processing", time.Hour).Result()
}

// Forget gives id back.
func (d *Dedup) Forget(ctx context.Context, id string) {
	d.rdb.Del(context.WithoutCancel(ctx), "claim:"+id)
}
