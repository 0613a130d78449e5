package attemptkey

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
)

// wmEvent is an outbox row a watermill relay forwards.
type wmEvent struct {
	ID      int64
	EventID string
	Topic   string
	Payload []byte
}

type wmOutbox interface {
	Pending(ctx context.Context, limit int) ([]wmEvent, error)
	MarkOutboxEventPublished(ctx context.Context, id int64) error
	MarkAsPublished(ctx context.Context, eventID string) error
}

type wmRelay struct {
	db     *sql.DB
	outbox wmOutbox
	pub    message.Publisher
}

// forward publishes each pending row under a UUID made on this pass.
func (r *wmRelay) forward(ctx context.Context) error {
	events, err := r.outbox.Pending(ctx, 100)
	if err != nil {
		return err
	}
	for _, evt := range events {
		msg := message.NewMessage(watermill.NewUUID(), evt.Payload) // want `idempotency key made by watermill.NewUUID at watermill.go:\d+ inside the relay loop over evt at watermill.go:\d+ reaches the UUID of a watermill message`
		msg.SetContext(ctx)
		if err := r.pub.Publish(evt.Topic, msg); err != nil {
			continue
		}
		_ = r.outbox.MarkOutboxEventPublished(ctx, evt.ID)
	}
	return nil
}

// forwardKeyed publishes each row under its event ID.
func (r *wmRelay) forwardKeyed(ctx context.Context) error {
	events, err := r.outbox.Pending(ctx, 100)
	if err != nil {
		return err
	}
	for _, evt := range events {
		if err := r.pub.Publish(evt.Topic, message.NewMessage(evt.EventID, evt.Payload)); err != nil {
			continue
		}
		_ = r.outbox.MarkOutboxEventPublished(ctx, evt.ID)
	}
	return nil
}

// forwardKeyedInMetadata gives each copy a new UUID, but the event ID
// the consumers drop a copy by travels in its metadata.
func (r *wmRelay) forwardKeyedInMetadata(ctx context.Context) error {
	events, err := r.outbox.Pending(ctx, 100)
	if err != nil {
		return err
	}
	for _, evt := range events {
		msg := message.NewMessage(watermill.NewUUID(), evt.Payload)
		msg.Metadata.Set("event_id", evt.EventID)
		msg.Metadata.Set("correlation_id", watermill.NewUUID())
		if err := r.pub.Publish(evt.Topic, msg); err != nil {
			continue
		}
		_ = r.outbox.MarkOutboxEventPublished(ctx, evt.ID)
	}
	return nil
}

// forwardMetadataKey puts a new event ID in the metadata on every pass.
func (r *wmRelay) forwardMetadataKey(ctx context.Context) error {
	events, err := r.outbox.Pending(ctx, 100)
	if err != nil {
		return err
	}
	for _, evt := range events {
		msg := message.NewMessage(evt.EventID, evt.Payload)
		msg.Metadata["event_id"] = watermill.NewULID() // want `inside the relay loop over evt at watermill.go:\d+ reaches the event_id metadata of a watermill message`
		if err := r.pub.Publish(evt.Topic, msg); err != nil {
			continue
		}
		_ = r.outbox.MarkOutboxEventPublished(ctx, evt.ID)
	}
	return nil
}

// dispatchPending reads rows into a type of its own and deletes each
// once it is published.
func (r *wmRelay) dispatchPending(ctx context.Context) error {
	type pendingMessage struct {
		id      int64
		topic   string
		payload []byte
	}
	rows, err := r.db.QueryContext(ctx, `SELECT id, topic, payload FROM outbox ORDER BY id LIMIT 100`)
	if err != nil {
		return err
	}
	var pending []pendingMessage
	for rows.Next() {
		var p pendingMessage
		if err := rows.Scan(&p.id, &p.topic, &p.payload); err != nil {
			return err
		}
		pending = append(pending, p)
	}
	for _, row := range pending {
		if err := r.pub.Publish(row.topic, message.NewMessage(watermill.NewUUID(), row.payload)); err != nil { // want `inside the relay loop over row`
			return err
		}
		if _, err := r.db.ExecContext(ctx, `DELETE FROM outbox WHERE id = $1`, row.id); err != nil {
			return err
		}
	}
	return nil
}

// publishPayload wraps a payload in a new message: each call makes
// another UUID.
func (r *wmRelay) publishPayload(topic string, payload []byte) error {
	msg := message.NewMessage(watermill.NewUUID(), payload)
	msg.Metadata.Set("content-type", "application/json")
	return r.pub.Publish(topic, msg)
}

// drainThroughHelper relays each row through publishPayload.
func (r *wmRelay) drainThroughHelper(ctx context.Context, events []wmEvent) {
	for _, evt := range events {
		if err := r.publishPayload(evt.Topic, evt.Payload); err != nil { // want `made by publishPayload \(watermill.NewUUID at watermill.go:\d+, reaching the UUID of a watermill message at watermill.go:\d+\) inside the relay loop over evt`
			continue
		}
		_ = r.outbox.MarkAsPublished(ctx, evt.EventID)
	}
}

// announce publishes a new event once, from a request: nothing sends
// this message again.
func (r *wmRelay) announce(w http.ResponseWriter, req *http.Request) {
	if err := r.publishPayload("signups", []byte(`{}`)); err != nil {
		w.WriteHeader(http.StatusBadGateway)
	}
}

// wmRecord is an outbox record of another shape: a pointer the relay
// forwards one at a time.
type wmRecord struct {
	RecordID string
	Topic    string
	Body     []byte
}

type wmDeliveries interface {
	MarkDelivered(ctx context.Context, id string) error
}

// forwardRecord sets the UUID on a message it made empty.
func forwardRecord(ctx context.Context, pub message.Publisher, marks wmDeliveries, rec *wmRecord) error {
	msg := &message.Message{Payload: rec.Body}
	msg.UUID = watermill.NewShortUUID() // want `inside the relay forwardRecord of rec at watermill.go:\d+ reaches the UUID of a watermill message`
	if err := pub.Publish(rec.Topic, msg); err != nil {
		return err
	}
	return marks.MarkDelivered(ctx, rec.RecordID)
}

// forwardRecordKeyed carries the record's ID.
func forwardRecordKeyed(ctx context.Context, pub message.Publisher, marks wmDeliveries, rec *wmRecord) error {
	if err := pub.Publish(rec.Topic, &message.Message{UUID: rec.RecordID, Payload: rec.Body}); err != nil {
		return err
	}
	return marks.MarkDelivered(ctx, rec.RecordID)
}

// publishWithRetries makes a new message on every attempt.
func publishWithRetries(pub message.Publisher, topic string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = pub.Publish(topic, message.NewMessage(watermill.NewUUID(), payload)); err == nil { // want `inside the retry loop at watermill.go:\d+ reaches the UUID of a watermill message`
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	return err
}

// publishOnceRetried makes the message before its retries and sends the
// same one each time.
func publishOnceRetried(pub message.Publisher, topic string, payload []byte) error {
	msg := message.NewMessage(watermill.NewUUID(), payload)
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = pub.Publish(topic, msg); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	return err
}

// publishLiteralRetried builds the message literal inside backoff's
// operation.
func publishLiteralRetried(ctx context.Context, pub message.Publisher, topic string, payload []byte) error {
	return backoff.Retry(func() error {
		msg := &message.Message{UUID: uuid.NewString(), Metadata: message.Metadata{}, Payload: payload} // want `inside the function retried by Retry at watermill.go:\d+ reaches the UUID of a watermill message`
		return pub.Publish(topic, msg)
	}, backoff.NewExponentialBackOff())
}

// publishIdempotencyKeyRetried keeps the message's UUID but sets a new
// idempotency key in its metadata on each attempt.
func publishIdempotencyKeyRetried(pub message.Publisher, topic, orderID string, payload []byte) error {
	msg := message.NewMessage(orderID, payload)
	return backoff.Retry(func() error {
		msg.Metadata.Set("idempotency_key", watermill.NewUUID()) // want `inside the function retried by Retry at watermill.go:\d+ reaches the idempotency_key metadata of a watermill message`
		return pub.Publish(topic, msg)
	}, backoff.NewExponentialBackOff())
}

// wmHandlers hold a router's handlers.
type wmHandlers struct{}

// onOrderPlaced raises a new event for each order placed: a handler's
// output, not a copy of what it was given.
func (wmHandlers) onOrderPlaced(msg *message.Message) ([]*message.Message, error) {
	return []*message.Message{message.NewMessage(watermill.NewUUID(), msg.Payload)}, nil
}

// dedupField is the metadata field the router's Deduplicator reads.
const dedupField = "x-msg-tag"

var wmDedup = &middleware.Deduplicator{KeyFactory: middleware.NewMessageHasherFromMetadataField(dedupField)}

// publishTaggedRetried sets the field the Deduplicator reads anew on every
// attempt.
func publishTaggedRetried(pub message.Publisher, topic string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		msg := message.NewMessage("", payload)
		msg.Metadata.Set(dedupField, watermill.NewULID()) // want `inside the retry loop at watermill.go:\d+ reaches the x-msg-tag metadata of a watermill message`
		if err = pub.Publish(topic, msg); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// publishTaggedOnce tags the message before its retries.
func publishTaggedOnce(pub message.Publisher, topic string, payload []byte) error {
	msg := message.NewMessage("", payload)
	msg.Metadata.Set(dedupField, watermill.NewULID())
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = pub.Publish(topic, msg); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// wmFanOut sends a new message to each subscriber: a loop over
// recipients, each message its own, with no mark of a record sent.
func wmFanOut(pub message.Publisher, topics []string, payload []byte) error {
	for _, topic := range topics {
		if err := pub.Publish(topic, message.NewMessage(watermill.NewUUID(), payload)); err != nil {
			return err
		}
	}
	return nil
}
