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

// Records is a store that keeps, under each key, a lock and a record of
// the request beside it.
type Records interface {
	TryLock(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Unlock(ctx context.Context, key string) error
	Set(ctx context.Context, rec *Record, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
}

// Record is what Records keeps under a key.
type Record struct {
	Key, Status string
	Body        []byte
}

// Keeper takes keys for a middleware.
type Keeper struct{ store Records }

// Lock takes the key's lock and writes a pending record beside it.
func (k *Keeper) Lock(ctx context.Context, key string) error {
	ok, err := k.store.TryLock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	if !ok {
		return ErrLocked
	}
	if err := k.store.Set(ctx, &Record{Key: key, Status: "pending"}, 24*time.Hour); err != nil {
		_ = k.store.Unlock(ctx, key)
		return err
	}
	return nil
}

// Unlock gives back the key's lock, and only the lock.
func (k *Keeper) Unlock(ctx context.Context, key string) error {
	return k.store.Unlock(ctx, key)
}

// Abandon gives back the lock and deletes the pending record.
func (k *Keeper) Abandon(ctx context.Context, key string) error {
	if err := k.store.Delete(ctx, key); err != nil {
		return err
	}
	return k.store.Unlock(ctx, key)
}

// Store writes the response and gives back the lock.
func (k *Keeper) Store(ctx context.Context, key string, body []byte) error {
	if err := k.store.Set(ctx, &Record{Key: key, Status: "done", Body: body}, 24*time.Hour); err != nil {
		return err
	}
	return k.store.Unlock(ctx, key)
}

// Pending takes a lock and keeps a pending record beside it.
type Pending struct{ rdb *redis.Client }

// Begin takes a Redis lock and writes a pending record under the key.
func (d *Pending) Begin(ctx context.Context, id string) (bool, error) {
	ok, err := d.rdb.SetNX(ctx, "lock:"+id, 1, time.Minute).Result()
	if err != nil || !ok {
		return false, err
	}
	if err := d.rdb.Set(ctx, "req:"+id, "pending", 24*time.Hour).Err(); err != nil {
		d.rdb.Del(ctx, "lock:"+id)
		return false, err
	}
	return true, nil
}

// Unlock deletes the lock Begin took.
func (d *Pending) Unlock(ctx context.Context, id string) {
	d.rdb.Del(ctx, "lock:"+id)
}

// Drop deletes both of Begin's keys.
func (d *Pending) Drop(ctx context.Context, id string) {
	d.rdb.Del(ctx, "lock:"+id, "req:"+id)
}
