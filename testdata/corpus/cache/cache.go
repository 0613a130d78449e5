// Package cache holds the dedup and idempotency stores the services build on
// Redis (go-redis v9 and v8, redigo, rueidis) and in memory, and the small
// Cache and KV interfaces the rest of the code reaches them through.
package cache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrMiss is returned by Cache.Get when the key holds nothing.
var ErrMiss = errors.New("cache: miss")

// ErrLocked is returned by Locker.Acquire when someone else holds the lock.
var ErrLocked = errors.New("cache: locked")

// Cache is the store most services take as a dependency, so that tests can
// hand them a map and production a Redis.
type Cache interface {
	Get(ctx context.Context, key string) (string, error)
	Set(ctx context.Context, key, value string, ttl time.Duration) error
	SetNX(ctx context.Context, key, value string, ttl time.Duration) (bool, error)
	Del(ctx context.Context, key string) error
}

// KV is the narrower store the consumers use: byte values, no conditional
// write.
type KV interface {
	Lookup(ctx context.Context, key string) ([]byte, bool, error)
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// RedisCache implements Cache and KV over go-redis v9.
type RedisCache struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisCache returns a Cache whose keys all start with prefix.
func NewRedisCache(rdb redis.UniversalClient, prefix string) *RedisCache {
	return &RedisCache{rdb: rdb, prefix: prefix}
}

// Get returns the value at key, or ErrMiss.
func (c *RedisCache) Get(ctx context.Context, key string) (string, error) {
	v, err := c.rdb.Get(ctx, c.prefix+key).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrMiss
	}
	return v, err
}

// Set writes value at key unconditionally.
func (c *RedisCache) Set(ctx context.Context, key, value string, ttl time.Duration) error {
	return c.rdb.Set(ctx, c.prefix+key, value, ttl).Err()
}

// SetNX writes value at key only when key is absent and reports whether it
// did.
func (c *RedisCache) SetNX(ctx context.Context, key, value string, ttl time.Duration) (bool, error) {
	return c.rdb.SetNX(ctx, c.prefix+key, value, ttl).Result()
}

// Del removes key.
func (c *RedisCache) Del(ctx context.Context, key string) error {
	return c.rdb.Del(ctx, c.prefix+key).Err()
}

// Lookup returns the bytes at key and whether there were any.
func (c *RedisCache) Lookup(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := c.rdb.Get(ctx, c.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Put writes value at key unconditionally.
func (c *RedisCache) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return c.rdb.Set(ctx, c.prefix+key, value, ttl).Err()
}

// unlockScript deletes a lock only while it still holds the caller's token.
var unlockScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Locker hands out Redis locks with a token, so a holder whose lock expired
// cannot release the next holder's.
type Locker struct {
	rdb *redis.Client
}

// NewLocker returns a Locker on rdb.
func NewLocker(rdb *redis.Client) *Locker { return &Locker{rdb: rdb} }

// Acquire takes the lock at key for ttl and returns the function that
// releases it, or ErrLocked.
func (l *Locker) Acquire(ctx context.Context, key string, ttl time.Duration) (func(), error) {
	token, err := Token()
	if err != nil {
		return nil, err
	}
	ok, err := l.rdb.SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrLocked
	}
	return func() {
		unlockScript.Run(context.WithoutCancel(ctx), l.rdb, []string{key}, token)
	}, nil
}

// Token returns 16 random bytes, hex encoded.
func Token() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
