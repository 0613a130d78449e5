package lockcheck

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNoResult says no result is kept under a key.
var ErrNoResult = errors.New("lockcheck: no result kept")

// ErrBusy says another caller holds the key's lock.
var ErrBusy = errors.New("lockcheck: key busy")

// ResultStore keeps an operation's result per key, and a lock per key.
type ResultStore interface {
	Result(ctx context.Context, key string) ([]byte, error)
	KeepResult(ctx context.Context, key string, raw []byte, ttl time.Duration) error
	Lock(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Unlock(ctx context.Context, key string) error
}

// RedisResults is the ResultStore on Redis: results and locks under two
// prefixes.
type RedisResults struct {
	rdb *redis.Client
}

func (s *RedisResults) Result(ctx context.Context, key string) ([]byte, error) {
	raw, err := s.rdb.Get(ctx, "ops:result:"+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNoResult
	}
	return raw, err
}

func (s *RedisResults) KeepResult(ctx context.Context, key string, raw []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, "ops:result:"+key, raw, ttl).Err()
}

func (s *RedisResults) Lock(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return s.rdb.SetNX(ctx, "ops:lock:"+key, 1, ttl).Result()
}

func (s *RedisResults) Unlock(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, "ops:lock:"+key).Err()
}

// Once runs operations once per key and hands a repeated call the first
// result.
type Once struct {
	store   ResultStore
	lockTTL time.Duration
	keepTTL time.Duration
}

// Execute returns the kept result, or takes the key's lock and runs fn.
// The result is looked up before the lock only: a call that found nothing
// just before the first call kept its result, and that locks after the
// first call let go, runs fn again.
//
// corpus: bug checkthenact
// modelled on: ceyewan/genesis idempotency/implementation.go (Execute: GetResult, then Lock, fn, SetResult, with no second GetResult under the lock)
func (o *Once) Execute(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	raw, err := o.store.Result(ctx, key)
	if err == nil {
		var kept any
		if err := json.Unmarshal(raw, &kept); err != nil {
			return nil, err
		}
		return kept, nil
	}
	if !errors.Is(err, ErrNoResult) {
		return nil, err
	}
	locked, err := o.store.Lock(ctx, key, o.lockTTL)
	if err != nil {
		return nil, err
	}
	if !locked {
		return nil, ErrBusy
	}
	defer func() { _ = o.store.Unlock(context.WithoutCancel(ctx), key) }()
	out, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := o.store.KeepResult(ctx, key, enc, o.keepTTL); err != nil {
		return nil, err
	}
	return out, nil
}

// ExecuteChecked looks for a kept result again once it holds the lock,
// before it runs fn.
//
// corpus: ok checkthenact
// modelled on: Leehyoungwoo/ChiDic backend/chidic-domain/src/main/kotlin/com/chidic/lock/DistributedLockExecutor.kt (execute(key, cache, critical): the cache read before the distributed lock and again under it, then the critical section)
func (o *Once) ExecuteChecked(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	if raw, err := o.store.Result(ctx, key); err == nil {
		return decodeKept(raw)
	}
	locked, err := o.store.Lock(ctx, key, o.lockTTL)
	if err != nil {
		return nil, err
	}
	if !locked {
		return nil, ErrBusy
	}
	defer func() { _ = o.store.Unlock(context.WithoutCancel(ctx), key) }()
	raw, err := o.store.Result(ctx, key)
	switch {
	case err == nil:
		return decodeKept(raw)
	case !errors.Is(err, ErrNoResult):
		return nil, err
	}
	out, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := o.store.KeepResult(ctx, key, enc, o.keepTTL); err != nil {
		return nil, err
	}
	return out, nil
}

func decodeKept(raw []byte) (any, error) {
	var kept any
	err := json.Unmarshal(raw, &kept)
	return kept, err
}
