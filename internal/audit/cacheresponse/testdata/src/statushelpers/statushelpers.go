// Package statushelpers holds a service's key helpers without
// directives: what they do is inferred from their bodies.
package statushelpers

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

var ErrLocked = errors.New("locked")

type Keys struct{ rdb *redis.Client }

// Take claims key.
func (k *Keys) Take(ctx context.Context, key string) (bool, error) {
	return k.rdb.SetNX(ctx, "idem:"+key, "processing", time.Hour).Result()
}

// Seen marks key and reports whether it had been marked before.
func (k *Keys) Seen(ctx context.Context, key string) (bool, error) {
	ok, err := k.rdb.SetNX(ctx, "idem:"+key, "processing", time.Hour).Result()
	return !ok, err
}

// MarkDone records that key finished, and nothing else.
func (k *Keys) MarkDone(ctx context.Context, key string) error {
	return k.rdb.HSet(ctx, "idem:"+key, "status", "done").Err()
}

// Store records key's response.
func (k *Keys) Store(ctx context.Context, key string, body []byte) error {
	return k.rdb.HSet(ctx, "idem:"+key, "status", "done", "body", body).Err()
}

// Lock takes name until the returned function is called.
func (k *Keys) Lock(ctx context.Context, name string) (func(), error) {
	if !k.rdb.SetNX(ctx, "lock:"+name, 1, time.Minute).Val() {
		return nil, ErrLocked
	}
	return func() { k.rdb.Del(context.WithoutCancel(ctx), "lock:"+name) }, nil
}
