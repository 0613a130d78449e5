// Package inbound holds consumers that hand each delivery to a processor
// the team wrote behind an interface of its own, and mark the delivery
// done in Redis. Every queue here delivers at least once, and two workers
// may hold the same delivery at once.
package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
)

// Delivery is one message as the consumers receive it.
type Delivery struct {
	ID      string
	Subject string
	Body    []byte
}

// Processor does a delivery's work: books, credits, sends, whatever the
// subject asks. Its implementations live in other services' packages.
type Processor interface {
	Process(ctx context.Context, d Delivery) error
}

// Evaluator folds an attempt into the alert streaks of its destination;
// evaluating one attempt twice counts it twice.
type Evaluator interface {
	Evaluate(ctx context.Context, destinationID, attemptID string) (bool, error)
}

// Handler runs a scheduled task.
type Handler interface {
	Run(ctx context.Context, task string) error
}

// Meter counts what the consumers see.
type Meter interface {
	Inc(name string, labels ...string)
}

// TokenSource exchanges credentials for an access token.
type TokenSource interface {
	Exchange(ctx context.Context, endpointID string) (string, error)
}

// Consumer handles deliveries from one subscription.
type Consumer struct {
	rdb   *redis.Client
	proc  Processor
	eval  Evaluator
	meter Meter
	log   *slog.Logger
}

// Handle skips a delivery already marked done, processes it, and marks it.
//
// corpus: bug checkthenact
// modelled on: hookdeck/outpost internal/logmq/batchprocessor.go (a replay gate checked before the attempt is evaluated and marked after the events go out)
func (c *Consumer) Handle(ctx context.Context, d Delivery) error {
	n, err := c.rdb.Exists(ctx, "delivery:"+d.ID).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := c.proc.Process(ctx, d); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "delivery:"+d.ID, time.Now().Unix(), 7*24*time.Hour).Err()
}

// Alert evaluates one delivery attempt against the destination's alert
// streaks unless the attempt was evaluated before.
//
// corpus: bug checkthenact
// modelled on: hookdeck/outpost internal/logmq/batchprocessor.go (Processed before Evaluator.Evaluate, MarkProcessed after the operator events are sent)
func (c *Consumer) Alert(ctx context.Context, destinationID, attemptID string) error {
	_, err := c.rdb.Get(ctx, "alerted:"+attemptID).Result()
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, redis.Nil):
		return err
	}
	if _, err := c.eval.Evaluate(ctx, destinationID, attemptID); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "alerted:"+attemptID, "1", 24*time.Hour).Err()
}

// HandleClaimed takes the delivery with SET NX before processing it, and
// gives the claim back when processing fails.
//
// corpus: ok checkthenact
// modelled on: hookdeck/outpost internal/idempotence/idempotence.go (Exec claims the key with SET NX before running the work)
func (c *Consumer) HandleClaimed(ctx context.Context, d Delivery) error {
	ok, err := c.rdb.SetNX(ctx, "delivery:"+d.ID, "processing", 10*time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	if err := c.proc.Process(ctx, d); err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), "delivery:"+d.ID)
		return err
	}
	return c.rdb.Set(ctx, "delivery:"+d.ID, "done", 7*24*time.Hour).Err()
}

// Observe counts the first sighting of a subject and remembers it; only
// the meter and the log are told.
//
// corpus: ok checkthenact
// modelled on: hookdeck/outpost internal/logmq/batchprocessor.go (a gauge bumped and a line logged for each attempt)
func (c *Consumer) Observe(ctx context.Context, d Delivery) error {
	n, err := c.rdb.Exists(ctx, "subject:"+d.Subject).Result()
	if err != nil || n > 0 {
		return err
	}
	c.meter.Inc("subjects_seen", d.Subject)
	c.log.InfoContext(ctx, "new subject", "subject", d.Subject)
	return c.rdb.Set(ctx, "subject:"+d.Subject, 1, 0).Err()
}

// Scheduler runs each task once per slot, through its embedded Handler.
type Scheduler struct {
	Handler
	rdb *redis.Client
}

// RunSlot runs the task unless the slot's field records a run, then
// records one.
//
// corpus: bug checkthenact
// modelled on: hibiken/asynq server.go (a Handler's ProcessTask run for each task the scheduler enqueues)
func (s *Scheduler) RunSlot(ctx context.Context, task string, slot time.Time) error {
	field := fmt.Sprintf("%s@%d", task, slot.Unix())
	ran, err := s.rdb.HGet(ctx, "slot-runs", field).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if ran != "" {
		return nil
	}
	if err := s.Run(ctx, task); err != nil {
		return err
	}
	return s.rdb.HSet(ctx, "slot-runs", field, time.Now().Unix()).Err()
}

// Streams creates each subject's stream once per process.
type Streams struct {
	js      nats.JetStreamContext
	created sync.Map
}

// Ensure creates the stream for subject the first time this process
// publishes to it; AddStream of an existing stream with the same
// configuration changes nothing.
//
// corpus: ok checkthenact
// modelled on: hibiken/asynq internal/rdb/rdb.go (queuesPublished remembers the queues already added to the all-queues set)
func (s *Streams) Ensure(subject string) error {
	if _, ok := s.created.Load(subject); ok {
		return nil
	}
	if _, err := s.js.AddStream(&nats.StreamConfig{Name: "S_" + subject, Subjects: []string{subject}}); err != nil {
		return err
	}
	s.created.Store(subject, true)
	return nil
}

// Tokens caches access tokens per endpoint.
type Tokens struct {
	rdb *redis.Client
	src TokenSource
}

// Token returns the cached token, or exchanges one and caches it.
//
// corpus: ok checkthenact
// modelled on: frain-dev/convoy services/oauth2_token_service.go (GetAuthorizationHeader reads the cache, exchanges a token on a miss and caches it)
func (t *Tokens) Token(ctx context.Context, endpointID string) (string, error) {
	if tok, err := t.rdb.Get(ctx, "oauth:"+endpointID).Result(); err == nil {
		return tok, nil
	}
	tok, err := t.src.Exchange(ctx, endpointID)
	if err != nil {
		return "", err
	}
	return tok, t.rdb.Set(ctx, "oauth:"+endpointID, tok, 50*time.Minute).Err()
}
