package attemptkey

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
)

// Inbox records the messages a consumer has handled; its implementation
// lives elsewhere, so only the names of its methods tell what they do.
type Inbox interface {
	MarkProcessed(ctx context.Context, id string) error
	Publish(ctx context.Context, eventID string, body []byte) error
}

// The dedup record of a delivery is keyed anew.
func markFresh(in Inbox) func(ctx context.Context, m types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		return in.MarkProcessed(ctx, uuid.NewString()) // want `inside the message handler at inbox.go:\d+ reaches the id parameter of MarkProcessed`
	}
}

func markByID(in Inbox) func(ctx context.Context, m types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		return in.MarkProcessed(ctx, *m.MessageId)
	}
}

// An event ID made per attempt of a publish.
func publishRetrying(ctx context.Context, in Inbox, body []byte) error {
	var err error
	for range 3 {
		if err = in.Publish(ctx, uuid.NewString(), body); err == nil { // want `inside the retry loop at inbox.go:\d+ reaches the eventID parameter of Publish`
			return nil
		}
	}
	return err
}

// A request that creates a new event: the event's new ID.
func publishPerRequest(in Inbox) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in.Publish(r.Context(), uuid.NewString(), nil)
	}
}

// A function of the package is known by what it does, not its name: this
// one only logs.
func logProcessed(ctx context.Context, id string) error { return nil }

func logFresh() func(ctx context.Context, m types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		return logProcessed(ctx, uuid.NewString())
	}
}

// ProcessedMessage is a consumer's dedup record, written through an ORM.
type ProcessedMessage struct {
	MessageID string
	Handled   time.Time
}

// Recorder stores records.
type Recorder interface {
	Create(ctx context.Context, v any) error
}

func recordFresh(rec Recorder) func(ctx context.Context, m types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		return rec.Create(ctx, &ProcessedMessage{MessageID: uuid.NewString(), Handled: time.Now()}) // want `inside the message handler at inbox.go:\d+ reaches the MessageID of a ProcessedMessage`
	}
}

func recordByID(rec Recorder) func(ctx context.Context, m types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		return rec.Create(ctx, &ProcessedMessage{MessageID: *m.MessageId, Handled: time.Now()})
	}
}

// An in-memory dedup cache, a map or a sync.Map.
type MemDedup struct {
	mu        sync.Mutex
	seen      map[string]bool
	processed sync.Map
	sizes     map[string]int
	sessions  sync.Map
}

func (d *MemDedup) HandleMessage(ctx context.Context, m types.Message) error { // want HandleMessage:"parameter 1 reaches the key of d.processed.LoadOrStore"
	d.mu.Lock()
	d.seen[uuid.NewString()] = true // want `inside the consumer HandleMessage at inbox.go:\d+ reaches the key of d.seen`
	d.sizes[uuid.NewString()] = 1
	d.mu.Unlock()
	d.processed.LoadOrStore("msg:"+uuid.NewString(), true) // want `reaches the key of d.processed.LoadOrStore`
	d.processed.LoadOrStore(*m.MessageId, true)
	d.sessions.Store(uuid.NewString(), m)
	return nil
}
