package storetest

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// Counting wraps a store and counts the operations made through it, for the tests that hold a
// caller to its budget of round trips.
type Counting struct {
	idem.Store
	Ops atomic.Int32
}

func (c *Counting) Claim(ctx context.Context, key, fp string, lease, ttl time.Duration) (idem.Claim, error) {
	c.Ops.Add(1)
	return c.Store.Claim(ctx, key, fp, lease, ttl)
}

func (c *Counting) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	c.Ops.Add(1)
	return c.Store.Complete(ctx, key, token, resp, ttl)
}

func (c *Counting) Release(ctx context.Context, key, token string) error {
	c.Ops.Add(1)
	return c.Store.Release(ctx, key, token)
}

func (c *Counting) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	c.Ops.Add(1)
	return c.Store.Extend(ctx, key, token, lease)
}

func (c *Counting) Get(ctx context.Context, key string) (idem.Record, error) {
	c.Ops.Add(1)
	return c.Store.Get(ctx, key)
}
