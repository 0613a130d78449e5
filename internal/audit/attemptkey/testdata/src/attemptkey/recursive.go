package attemptkey

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/matryer/try"
)

var errTryAgain = errors.New("try again")

// A function that calls itself again on failure retries: each call is an
// attempt.
func (c *charges) chargeRecursive(ctx context.Context, amount int64, attempt int) error {
	err := c.charge(ctx, uuid.NewString(), amount) // want `inside the function chargeRecursive, retried by calling itself, at recursive.go:\d+ reaches charge`
	if err != nil && errors.Is(err, errTryAgain) && attempt < 3 {
		return c.chargeRecursive(ctx, amount, attempt+1)
	}
	return err
}

func (c *charges) chargeRecursiveWaiting(ctx context.Context, amount int64) error {
	if err := c.charge(ctx, uuid.NewString(), amount); err != nil { // want `retried by calling itself`
		time.Sleep(time.Second)
		return c.chargeRecursiveWaiting(ctx, amount)
	}
	return nil
}

func (c *charges) chargeRecursiveKeyed(ctx context.Context, key string, amount int64, attempt int) error {
	err := c.charge(ctx, key, amount)
	if err != nil && attempt < 3 {
		return c.chargeRecursiveKeyed(ctx, key, amount, attempt+1)
	}
	return err
}

// A walk that calls itself for each child is no retry.
type chargeNode struct {
	Amount   int64
	Children []*chargeNode
}

func (c *charges) chargeTree(ctx context.Context, n *chargeNode) error {
	if err := c.charge(ctx, uuid.NewString(), n.Amount); err != nil {
		return err
	}
	for _, ch := range n.Children {
		if err := c.chargeTree(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

// A function handed the attempt's number is called once per attempt,
// whatever calls it.
func (c *charges) chargeTry(ctx context.Context, amount int64) error {
	return try.Do(func(attempt int) (bool, error) {
		err := c.charge(ctx, uuid.NewString(), amount) // want `inside the function retried by Do at recursive.go:\d+ reaches charge`
		return attempt < 5, err
	})
}

func (c *charges) chargeTryKeyed(ctx context.Context, amount int64) error {
	key := uuid.NewString()
	return try.Do(func(attempt int) (bool, error) {
		err := c.charge(ctx, key, amount)
		return attempt < 5, err
	})
}

// A literal handed a worker's number is no attempt.
func (c *charges) chargeShards(ctx context.Context, amounts []int64, run func(func(shard int))) {
	run(func(shard int) {
		_ = c.charge(ctx, uuid.NewString(), amounts[shard])
	})
}
