// Package workers holds long-running loops that take one input after
// another (a channel, a Redis list, a Kafka reader, a JetStream consumer)
// and the retries nested in them: a loop over inputs is no retry loop, so
// a new ID for each input is right, while a key made anew inside a retry,
// or for a message that may be redelivered, is not.
package workers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"
	"github.com/stripe/stripe-go/v82"
)

// Upload is a file a user handed to the API, waiting to be imported.
type Upload struct {
	Owner string
	Path  string
}

// ImportJob asks the import workers to read one upload.
type ImportJob struct {
	ID    string
	Owner string
	Path  string
}

// JobQueue takes jobs for the import workers.
type JobQueue interface {
	Enqueue(ctx context.Context, job ImportJob) error
}

// Producer turns uploads into import jobs.
type Producer struct {
	jobs JobQueue
	log  *slog.Logger
}

// Run enqueues one job for each upload it is handed until the context
// ends or the channel closes: every upload is a new import, under an ID
// of its own.
//
// corpus: ok attemptkey
// modelled on: Dexter2038/go-exercises workers.go (a worker selecting on ctx.Done and a job channel until it closes)
func (p *Producer) Run(ctx context.Context, uploads <-chan Upload) {
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-uploads:
			if !ok {
				return
			}
			job := ImportJob{ID: uuid.NewString(), Owner: u.Owner, Path: u.Path}
			if err := p.jobs.Enqueue(ctx, job); err != nil {
				p.log.Warn("enqueue import", "path", u.Path, "err", err)
				time.Sleep(time.Second)
			}
		}
	}
}

// RunRetrying names each upload's job once and retries its enqueue under
// that name: a retried enqueue that did land is dropped by the queue.
//
// corpus: ok attemptkey
// modelled on: kidlj/awei _posts/2021-04-25-kafka-consumer-loop-en.md (a consumer loop that retries each message with a back-off before taking the next)
func (p *Producer) RunRetrying(ctx context.Context, uploads <-chan Upload) {
	for {
		u, ok := <-uploads
		if !ok {
			return
		}
		job := ImportJob{ID: uuid.NewString(), Owner: u.Owner, Path: u.Path}
		for attempt := 1; attempt <= 3; attempt++ {
			err := p.jobs.Enqueue(ctx, job)
			if err == nil {
				break
			}
			p.log.Warn("enqueue import", "path", u.Path, "attempt", attempt, "err", err)
			time.Sleep(time.Duration(attempt) * time.Second)
		}
	}
}

// RunRetryingRenamed builds the job inside the retry: an enqueue whose
// answer was lost is sent again under a new ID, and the upload is
// imported twice.
//
// corpus: bug attemptkey
// modelled on: kidlj/awei _posts/2021-04-25-kafka-consumer-loop-en.md (a consumer loop that retries each message with a back-off before taking the next)
func (p *Producer) RunRetryingRenamed(ctx context.Context, uploads <-chan Upload) {
	for {
		u, ok := <-uploads
		if !ok {
			return
		}
		for attempt := 1; attempt <= 3; attempt++ {
			err := p.jobs.Enqueue(ctx, ImportJob{ID: uuid.NewString(), Owner: u.Owner, Path: u.Path})
			if err == nil {
				break
			}
			p.log.Warn("enqueue import", "path", u.Path, "attempt", attempt, "err", err)
			time.Sleep(time.Duration(attempt) * time.Second)
		}
	}
}

// ThumbJob asks the image service for the thumbnails of one picture.
type ThumbJob struct {
	JobID   string
	Picture string
}

// ThumbQueue carries jobs to the image service.
type ThumbQueue interface {
	Send(ctx context.Context, job ThumbJob) error
}

// ThumbWorker pops pictures from a Redis list and hands each to the image
// service.
type ThumbWorker struct {
	rdb   *redis.Client
	queue ThumbQueue
	log   *slog.Logger
}

// Run pops one picture after another; BRPOP hands each to one worker only
// and never again, so each gets a job of its own.
//
// corpus: ok attemptkey
// modelled on: darshilgit/learning-redis examples/interview-scenarios/06-work-queue/main.go (consumers popping jobs with BRPOP in an endless loop)
func (w *ThumbWorker) Run(ctx context.Context) {
	for {
		res, err := w.rdb.BRPop(ctx, 5*time.Second, "pictures:new").Result()
		if err == redis.Nil {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.log.Warn("pop picture", "err", err)
			time.Sleep(2 * time.Second)
			continue
		}
		if err := w.queue.Send(ctx, ThumbJob{JobID: uuid.NewString(), Picture: res[1]}); err != nil {
			w.log.Warn("send thumb job", "picture", res[1], "err", err)
		}
	}
}

// Charger charges for orders read from Kafka.
type Charger struct {
	reader *kafka.Reader
	stripe *stripe.Client
	log    *slog.Logger
}

// OrderPlaced is the event a charge is made for.
type OrderPlaced struct {
	OrderID string `json:"order_id"`
	Amount  int64  `json:"amount"`
}

// Run charges each order under a key made for this read: a message read
// again after a crash before its commit is charged again.
//
// corpus: bug attemptkey
// modelled on: luhaoling/goBase MQ/kafka-go/commitMessage.go (FetchMessage in an endless loop, CommitMessages after handling)
func (c *Charger) Run(ctx context.Context) {
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		var ev OrderPlaced
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			_ = c.reader.CommitMessages(ctx, m)
			continue
		}
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(ev.Amount), Currency: stripe.String("eur")}
		params.SetIdempotencyKey(uuid.NewString())
		if _, err := c.stripe.V1PaymentIntents.Create(ctx, params); err != nil {
			c.log.Warn("charge order", "order", ev.OrderID, "err", err)
			continue
		}
		_ = c.reader.CommitMessages(ctx, m)
	}
}

// RunKeyed charges each order under a key named for the message's place
// in its partition, the same however often it is read.
//
// corpus: ok attemptkey
// modelled on: luhaoling/goBase MQ/kafka-go/commitMessage.go (FetchMessage in an endless loop, CommitMessages after handling)
func (c *Charger) RunKeyed(ctx context.Context) {
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		var ev OrderPlaced
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			_ = c.reader.CommitMessages(ctx, m)
			continue
		}
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(ev.Amount), Currency: stripe.String("eur")}
		params.SetIdempotencyKey(fmt.Sprintf("%s-%d-%d", m.Topic, m.Partition, m.Offset))
		if _, err := c.stripe.V1PaymentIntents.Create(ctx, params); err != nil {
			c.log.Warn("charge order", "order", ev.OrderID, "err", err)
			continue
		}
		_ = c.reader.CommitMessages(ctx, m)
	}
}

// Forwarder republishes shipment events from one JetStream consumer to
// another subject.
type Forwarder struct {
	cons jetstream.Consumer
	js   jetstream.JetStream
	log  *slog.Logger
}

// Run takes each message and republishes it under a Nats-Msg-Id made for
// this delivery: a message redelivered after a lost ack is published
// again under another ID, and the stream keeps both.
//
// corpus: bug attemptkey
// modelled on: nats-io/nats.go examples/jetstream/js-next/main.go (a consumer's Next in an endless loop, acking each message)
func (f *Forwarder) Run(ctx context.Context) {
	for {
		msg, err := f.cons.Next()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		if _, err := f.js.Publish(ctx, "shipments.audit", msg.Data(), jetstream.WithMsgID(uuid.NewString())); err != nil {
			f.log.Warn("republish shipment", "err", err)
			_ = msg.Nak()
			continue
		}
		_ = msg.Ack()
	}
}

// Lease is a unit of work a coordinator hands to an agent.
type Lease struct {
	ID      string
	Payload []byte
}

// LeaseRequest asks the coordinator for the next lease; the coordinator
// answers a repeated request with the lease it already handed out.
type LeaseRequest struct {
	Agent          string
	IdempotencyKey string
}

// Coordinator hands out leases.
type Coordinator interface {
	Next(ctx context.Context, req *LeaseRequest) (*Lease, error)
}

// Agent asks a coordinator for work.
type Agent struct {
	name  string
	coord Coordinator
}

// NextLease asks for the next lease until the coordinator answers,
// waiting between asks. The loop leaves once the call succeeds: it
// retries one request, and a request whose answer was lost is asked again
// under a new key, so the coordinator hands out a second lease while the
// first stays held.
//
// corpus: bug attemptkey
// modelled on: woodpecker-ci/woodpecker agent/rpc/client_grpc.go (Next asked again after <-time.After(backoff) until it succeeds)
func (a *Agent) NextLease(ctx context.Context) (*Lease, error) {
	var lease *Lease
	var err error
	for {
		req := &LeaseRequest{Agent: a.name, IdempotencyKey: uuid.NewString()}
		lease, err = a.coord.Next(ctx, req)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		<-time.After(time.Second)
	}
	return lease, nil
}

// Notifier posts a notice per event to a partner's webhook.
type Notifier struct {
	hc  *http.Client
	url string
	log *slog.Logger
}

// Run posts each event it receives once, under an Idempotency-Key made
// for it before the retries; the retries wait on time.After and leave
// once a post gets through.
//
// corpus: ok attemptkey
// modelled on: woodpecker-ci/woodpecker agent/rpc/client_grpc.go (a call asked again after <-time.After(backoff) until it succeeds)
func (n *Notifier) Run(ctx context.Context, events <-chan []byte) {
	for body := range events {
		key := uuid.NewString()
		for {
			err := n.post(ctx, body, key)
			if err == nil {
				break
			}
			n.log.Warn("post notice", "err", err)
			<-time.After(time.Second)
		}
	}
}

// RunRenamed makes the key inside the retry: a post whose answer was lost
// is posted again under a new key, and the partner sees two notices.
//
// corpus: bug attemptkey
// modelled on: woodpecker-ci/woodpecker agent/rpc/client_grpc.go (a call asked again after <-time.After(backoff) until it succeeds)
func (n *Notifier) RunRenamed(ctx context.Context, events <-chan []byte) {
	for body := range events {
		for {
			err := n.post(ctx, body, uuid.NewString())
			if err == nil {
				break
			}
			n.log.Warn("post notice", "err", err)
			<-time.After(time.Second)
		}
	}
}

func (n *Notifier) post(ctx context.Context, body []byte, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := n.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("partner answered %d", resp.StatusCode)
	}
	return nil
}
