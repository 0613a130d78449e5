// Package wave7claim holds webhook and job consumers that claim a delivery
// in Redis inside a pipeline: a command queued in a Pipelined or
// TxPipelined callback, or on a Pipeline value, read once it has run.
package wave7claim

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrDuplicate is returned for a delivery a previous attempt took.
var ErrDuplicate = errors.New("wave7claim: duplicate delivery")

// Mailer sends the notification a delivery asks for.
type Mailer interface {
	Send(ctx context.Context, to, body string) error
}

// Delivery is one webhook or job message.
type Delivery struct {
	ID   string
	To   string
	Body string
}

// Consumer handles deliveries with a go-redis client.
type Consumer struct {
	rdb  *redis.Client
	mail Mailer
	ttl  time.Duration
}

// HandlePipelined claims the delivery with SET NX queued in a pipeline
// callback, together with the TTL bump of a per-recipient counter, and
// reads the captured command after the pipeline ran. A failed send
// returns with the claim held, so every redelivery is dropped.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_Pipelined: callback, result read from the captured command after it returns)
func (c *Consumer) HandlePipelined(ctx context.Context, d Delivery) error {
	var claim *redis.BoolCmd
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		claim = p.SetNX(ctx, "delivery:"+d.ID, "processing", c.ttl)
		p.Incr(ctx, "sent:"+d.To)
		return nil
	})
	if err != nil {
		return err
	}
	if !claim.Val() {
		return ErrDuplicate
	}
	if err := c.mail.Send(ctx, d.To, d.Body); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "delivery:"+d.ID, "done", c.ttl).Err()
}

// HandlePipelinedReleased is the same, deleting the claim when the send
// fails so the redelivery can try again.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_Pipelined: callback, result read from the captured command after it returns)
func (c *Consumer) HandlePipelinedReleased(ctx context.Context, d Delivery) error {
	var claim *redis.BoolCmd
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		claim = p.SetNX(ctx, "delivery:"+d.ID, "processing", c.ttl)
		return nil
	})
	if err != nil {
		return err
	}
	if !claim.Val() {
		return ErrDuplicate
	}
	if err := c.mail.Send(ctx, d.To, d.Body); err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), "delivery:"+d.ID)
		return err
	}
	return c.rdb.Set(ctx, "delivery:"+d.ID, "done", c.ttl).Err()
}

// HandleTxPipelined claims in a MULTI/EXEC block with its expiry set in
// the same transaction, and leaves the claim held on a failed send.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_TxPipelined: commands queued in the callback, replies read after EXEC)
func (c *Consumer) HandleTxPipelined(ctx context.Context, d Delivery) error {
	var added *redis.IntCmd
	if _, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		added = p.SAdd(ctx, "deliveries:"+d.To, d.ID)
		p.Expire(ctx, "deliveries:"+d.To, c.ttl)
		return nil
	}); err != nil {
		return err
	}
	if added.Val() == 0 {
		return nil
	}
	return c.mail.Send(ctx, d.To, d.Body)
}

// HandleTxPipelinedReleased removes the ID from the set again when the
// send fails.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_TxPipelined: commands queued in the callback, replies read after EXEC)
func (c *Consumer) HandleTxPipelinedReleased(ctx context.Context, d Delivery) error {
	var added *redis.IntCmd
	if _, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		added = p.SAdd(ctx, "deliveries:"+d.To, d.ID)
		p.Expire(ctx, "deliveries:"+d.To, c.ttl)
		return nil
	}); err != nil {
		return err
	}
	if added.Val() == 0 {
		return nil
	}
	if err := c.mail.Send(ctx, d.To, d.Body); err != nil {
		c.rdb.SRem(ctx, "deliveries:"+d.To, d.ID)
		return err
	}
	return nil
}

// HandlePipeline queues the claim on a pipeline value and reads it after
// Exec; a failed send keeps the claim.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_Pipeline: pipe := rdb.Pipeline(); incr := pipe.Incr(...); pipe.Exec; incr.Val())
func (c *Consumer) HandlePipeline(ctx context.Context, d Delivery) error {
	pipe := c.rdb.Pipeline()
	claim := pipe.SetNX(ctx, "delivery:"+d.ID, 1, c.ttl)
	pipe.Expire(ctx, "recipient:"+d.To, c.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	if !claim.Val() {
		return nil
	}
	return c.mail.Send(ctx, d.To, d.Body)
}

// HandlePipelineDeferred is the same with a deferred release that runs
// unless the send succeeded.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis example_test.go (ExampleClient_Pipeline: pipe := rdb.Pipeline(); incr := pipe.Incr(...); pipe.Exec; incr.Val())
func (c *Consumer) HandlePipelineDeferred(ctx context.Context, d Delivery) (err error) {
	pipe := c.rdb.Pipeline()
	claim := pipe.SetNX(ctx, "delivery:"+d.ID, 1, c.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	if !claim.Val() {
		return nil
	}
	defer func() {
		if err != nil {
			c.rdb.Del(context.WithoutCancel(ctx), "delivery:"+d.ID)
		}
	}()
	return c.mail.Send(ctx, d.To, d.Body)
}
