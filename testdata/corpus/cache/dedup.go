package cache

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisDedup is the processed-message store the consumers get through
// their own ProcessedStore interface.
type RedisDedup struct {
	rdb redis.UniversalClient
	ttl time.Duration
}

// NewRedisDedup returns a RedisDedup whose marks live for ttl.
func NewRedisDedup(rdb redis.UniversalClient, ttl time.Duration) *RedisDedup {
	return &RedisDedup{rdb: rdb, ttl: ttl}
}

func dedupKey(id string) string { return "inbox:processed:" + id }

// IsProcessed reports whether id carries a mark.
func (d *RedisDedup) IsProcessed(ctx context.Context, id string) (bool, error) {
	n, err := d.rdb.Exists(ctx, dedupKey(id)).Result()
	return n == 1, err
}

// MarkProcessed marks id.
func (d *RedisDedup) MarkProcessed(ctx context.Context, id string) error {
	return d.rdb.Set(ctx, dedupKey(id), time.Now().Unix(), d.ttl).Err()
}

// TryMark marks id unless it is marked, and reports whether it marked it.
func (d *RedisDedup) TryMark(ctx context.Context, id string) (bool, error) {
	return d.rdb.SetNX(ctx, dedupKey(id), time.Now().Unix(), d.ttl).Result()
}

// Unmark removes the mark on id.
func (d *RedisDedup) Unmark(ctx context.Context, id string) error {
	return d.rdb.Del(ctx, dedupKey(id)).Err()
}
