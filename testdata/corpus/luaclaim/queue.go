package luaclaim

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// uniqueLock takes a task's uniqueness lock for its ID; -1 when another
// task holds it.
var uniqueLock = redis.NewScript(`
local ok = redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2])
if not ok then
	return -1
end
return 1`)

// markOnce records a refund marker unless one is there, in one step.
var markOnce = redis.NewScript(`
local seen = redis.call("GET", KEYS[1])
if seen then
	return 0
end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1`)

// Task is a unit of background work.
type Task struct {
	ID        string `json:"id"`
	UniqueKey string `json:"unique_key"`
	Queue     string `json:"queue"`
	Payload   []byte `json:"payload"`
}

// Broker delivers tasks to workers.
type Broker interface {
	Publish(ctx context.Context, queue string, body []byte) error
}

// Enqueuer hands tasks to the broker, once per uniqueness key.
type Enqueuer struct {
	rdb    *redis.Client
	broker Broker
}

// EnqueueUnique takes the task's uniqueness lock with a script, then
// publishes the task. A failed publish returns with the lock held: the task is
// not queued, and every retry is refused as a duplicate until the lock
// expires.
//
// corpus: bug releaseonerror
// modelled on: hibiken/asynq internal/rdb/rdb.go (enqueueUniqueCmd: a uniqueness lock taken with SET NX inside a script)
func (e *Enqueuer) EnqueueUnique(ctx context.Context, t Task, ttl time.Duration) error {
	n, err := uniqueLock.Run(ctx, e.rdb, []string{t.UniqueKey}, t.ID, int(ttl.Seconds())).Int()
	if err != nil {
		return fmt.Errorf("unique lock: %w", err)
	}
	if n < 0 {
		return ErrDuplicate
	}
	encoded, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := e.broker.Publish(ctx, t.Queue, encoded); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return nil
}

// EnqueueUniqueReleased gives the lock back, with the owner-checked
// delete, when the publish fails.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (a lock given back by a Lua compare-and-delete)
func (e *Enqueuer) EnqueueUniqueReleased(ctx context.Context, t Task, ttl time.Duration) error {
	n, err := uniqueLock.Run(ctx, e.rdb, []string{t.UniqueKey}, t.ID, int(ttl.Seconds())).Int()
	if err != nil {
		return fmt.Errorf("unique lock: %w", err)
	}
	if n < 0 {
		return ErrDuplicate
	}
	encoded, err := json.Marshal(t)
	if err != nil {
		dropIfOwner.Run(ctx, e.rdb, []string{t.UniqueKey}, t.ID)
		return err
	}
	if err := e.broker.Publish(ctx, t.Queue, encoded); err != nil {
		dropIfOwner.Run(ctx, e.rdb, []string{t.UniqueKey}, t.ID)
		return fmt.Errorf("publish: %w", err)
	}
	return nil
}

// RefundEvent asks for a charge to be refunded.
type RefundEvent struct {
	EventID  string `json:"event_id"`
	ChargeID string `json:"charge_id"`
}

// Refunds consumes refund events, delivered at least once.
type Refunds struct {
	rdb *redis.Client
	gw  Gateway
}

// HandleRefund looks the event's marker up with a script, refunds, and
// writes the marker afterwards: two deliveries that both find no marker
// both refund.
//
// corpus: bug checkthenact
// modelled on: lixianmin/shoulder redisx/idempotent_script.go (an offset marker read and written by a script run with Eval)
func (c *Refunds) HandleRefund(ctx context.Context, ev RefundEvent) error {
	marker := "refunded:" + ev.EventID
	if _, err := lookup.Run(ctx, c.rdb, []string{marker}).Result(); err == nil {
		return nil
	}
	if err := c.gw.Refund(ctx, ev.ChargeID); err != nil {
		return err
	}
	return c.rdb.Set(ctx, marker, ev.ChargeID, 7*24*time.Hour).Err()
}

// HandleRefundOnce reads and writes the marker in one script before the
// refund, and deletes it if the refund fails.
//
// corpus: ok checkthenact
// modelled on: lixianmin/shoulder redisx/idempotent_script.go (an offset marker read and written by a script run with Eval)
func (c *Refunds) HandleRefundOnce(ctx context.Context, ev RefundEvent) error {
	marker := "refunded:" + ev.EventID
	won, err := markOnce.Run(ctx, c.rdb, []string{marker}, ev.ChargeID, 7*24*3600).Int()
	if err != nil {
		return err
	}
	if won == 0 {
		return nil
	}
	if err := c.gw.Refund(ctx, ev.ChargeID); err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), marker)
		return err
	}
	return nil
}
