package checkthenact

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// CacheMetrics is a team's meter for its caches.
type CacheMetrics interface {
	RecordCacheMiss(ctx context.Context, key string)
	RecordCacheOperationLatency(ctx context.Context, operation string, d time.Duration)
}

// Welcomer sends a user a message.
type Welcomer interface {
	SendWelcome(ctx context.Context, userID string) error
}

type meteredCache struct {
	rdb     *redis.Client
	metrics CacheMetrics
	welcome Welcomer
}

// getCached reads a cached value and meters the read.
func (c *meteredCache) getCached(ctx context.Context, key string) (string, bool) {
	start := time.Now()
	defer func() {
		c.metrics.RecordCacheOperationLatency(ctx, "get", time.Since(start))
	}()
	v, err := c.rdb.Get(ctx, key).Result()
	if err != nil {
		c.metrics.RecordCacheMiss(ctx, key)
		return "", false
	}
	return v, true
}

// setCached writes a cached value and meters the write.
func (c *meteredCache) setCached(ctx context.Context, key, v string) {
	start := time.Now()
	defer func() {
		c.metrics.RecordCacheOperationLatency(ctx, "set", time.Since(start))
	}()
	c.rdb.Set(ctx, key, v, time.Hour)
}

// delCached drops a cached value and meters the drop.
func (c *meteredCache) delCached(ctx context.Context, key string) {
	start := time.Now()
	defer func() {
		c.metrics.RecordCacheOperationLatency(ctx, "delete", time.Since(start))
	}()
	c.rdb.Del(ctx, key)
}

// session fills the cache on a miss, and drops the session it replaces. What the helpers record on a meter
// is not work that two fills do twice to anyone's harm, though the
// Record in its name reads as an append: never reported.
func (c *meteredCache) session(ctx context.Context, token string, lookup func(context.Context, string) (string, error)) (string, error) {
	if v, ok := c.getCached(ctx, "session:"+token); ok {
		return v, nil
	}
	v, err := lookup(ctx, token)
	if err != nil {
		return "", err
	}
	c.delCached(ctx, "session:previous:"+token)
	c.setCached(ctx, "session:"+token, v)
	return v, nil
}

// greet sends a welcome between the check and the mark: reported.
func (c *meteredCache) greet(ctx context.Context, userID string) error {
	if _, ok := c.getCached(ctx, "welcomed:"+userID); ok {
		return nil
	}
	if err := c.welcome.SendWelcome(ctx, userID); err != nil {
		return err
	}
	c.setCached(ctx, "welcomed:"+userID, "1") // want `SET of key \(by setCached, at metered.go:47\) after the GET in getCached at metered.go:33, called at metered.go:77 races with a concurrent retry: both find nothing and both run SendWelcome first`
	return nil
}

// Payments is a team's client of its payment provider.
type Payments interface {
	CreatePayment(ctx context.Context, orderID string, amount int64) error
}

type meteredCheckout struct {
	rdb      *redis.Client
	metrics  CacheMetrics
	payments Payments
}

func (c *meteredCheckout) pay(ctx context.Context, orderID string, amount int64) error {
	c.metrics.RecordCacheMiss(ctx, orderID)
	return c.payments.CreatePayment(ctx, orderID, amount)
}

// checkout pays through a helper between the check and the mark: the
// provider's CreatePayment, read from its name, is work though the meter's
// Record beside it is not: reported.
func (c *meteredCheckout) checkout(ctx context.Context, orderID string, amount int64) error {
	if n, err := c.rdb.Exists(ctx, "paid:"+orderID).Result(); err != nil || n > 0 {
		return err
	}
	if err := c.pay(ctx, orderID, amount); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "paid:"+orderID, 1, 0).Err() // want `SET of "paid:" \+ orderID after the EXISTS at metered.go:107 races with a concurrent retry: both find nothing and both run CreatePayment first`
}
