package attemptkey

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/segmentio/kafka-go"
)

type outboxRow struct {
	ID      int64
	EventID string
	Topic   string
	Payload []byte
}

type outboxStore interface {
	MarkPublished(ctx context.Context, id int64) error
}

type relayer struct {
	db    *sql.DB
	ch    *amqp.Channel
	js    jetstream.JetStream
	kw    *kafka.Writer
	store outboxStore
}

func (r *relayer) markSent(ctx context.Context, id int64) {
	_, _ = r.db.ExecContext(ctx, `UPDATE outbox SET sent_at = now() WHERE id = $1`, id)
}

// publishRow relays one row, marking it sent through a helper whose SQL
// says so: each call is one attempt at the row.
func (r *relayer) publishRow(ctx context.Context, row outboxRow) error {
	err := r.ch.PublishWithContext(ctx, "orders", row.Topic, true, false, amqp.Publishing{
		MessageId: uuid.NewString(), // want `idempotency key made by uuid.NewString at relay.go:\d+ inside the relay publishRow of row at relay.go:\d+ reaches the AMQP MessageId: a record whose send was not confirmed`
		Body:      row.Payload,
	})
	if err != nil {
		return err
	}
	r.markSent(ctx, row.ID)
	return nil
}

// publishRowKeyed relays one row under its event ID.
func (r *relayer) publishRowKeyed(ctx context.Context, row outboxRow) error {
	err := r.ch.PublishWithContext(ctx, "orders", row.Topic, true, false, amqp.Publishing{
		MessageId:     row.EventID,
		CorrelationId: uuid.NewString(),
		Body:          row.Payload,
	})
	if err != nil {
		return err
	}
	r.markSent(ctx, row.ID)
	return nil
}

// streamRow marks the row through an interface method named for it.
func (r *relayer) streamRow(ctx context.Context, row outboxRow) error {
	if _, err := r.js.Publish(ctx, row.Topic, row.Payload, jetstream.WithMsgID(uuid.NewString())); err != nil { // want `inside the relay streamRow of row`
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// drain relays a batch in a loop, marking each row with an UPDATE.
func (r *relayer) drain(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		err := r.kw.WriteMessages(ctx, kafka.Message{
			Value: row.Payload,
			Headers: []kafka.Header{
				{Key: "event-id", Value: []byte(uuid.NewString())}, // want `inside the relay loop over row at relay.go:\d+ reaches the Kafka event-id header`
			},
		})
		if err != nil {
			continue
		}
		_, _ = r.db.ExecContext(ctx, `UPDATE outbox SET published_at = now() WHERE id = $1`, row.ID)
	}
}

// drainKeyed relays a batch under each row's event ID; a trace header is
// new on every send, and nobody deduplicates by it.
func (r *relayer) drainKeyed(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		err := r.kw.WriteMessages(ctx, kafka.Message{
			Value: row.Payload,
			Headers: []kafka.Header{
				{Key: "event-id", Value: []byte(row.EventID)},
				{Key: "trace-id", Value: []byte(uuid.NewString())},
			},
		})
		if err != nil {
			continue
		}
		_, _ = r.db.ExecContext(ctx, `UPDATE outbox SET published_at = now() WHERE id = $1`, row.ID)
	}
}

// announce publishes a new message with its own new ID: nothing marks it
// sent, so nothing sends it again.
func (r *relayer) announce(ctx context.Context, row outboxRow) error {
	return r.ch.PublishWithContext(ctx, "orders", row.Topic, false, false, amqp.Publishing{
		MessageId: uuid.NewString(),
		Timestamp: time.Now(),
		Body:      row.Payload,
	})
}

// settle moves the row's order to settled after publishing: a state
// change, not a relay's mark.
func (r *relayer) settle(ctx context.Context, row outboxRow) error {
	err := r.ch.PublishWithContext(ctx, "orders", "settled", false, false, amqp.Publishing{
		MessageId: uuid.NewString(),
		Body:      row.Payload,
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `UPDATE orders SET status = 'settled' WHERE id = $1`, row.ID)
	return err
}

// forwardRow relays one row and deletes it from the pending table once
// sent: the delete is the relay's mark.
func (r *relayer) forwardRow(ctx context.Context, row outboxRow) error {
	err := r.ch.PublishWithContext(ctx, "orders", row.Topic, true, false, amqp.Publishing{
		MessageId: uuid.NewString(), // want `inside the relay forwardRow of row`
		Body:      row.Payload,
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `DELETE FROM pending_events WHERE id = $1`, row.ID)
	return err
}

// cancelRow publishes a new message and deletes the order it was about:
// a table of orders is no queue of records waiting to be sent.
func (r *relayer) cancelRow(ctx context.Context, row outboxRow) error {
	err := r.ch.PublishWithContext(ctx, "orders", "cancelled", false, false, amqp.Publishing{
		MessageId: uuid.NewString(),
		Body:      row.Payload,
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `DELETE FROM orders WHERE id = $1`, row.ID)
	return err
}

// publishRetried retries the publish of a new message: a fresh AMQP
// MessageId per attempt.
func (r *relayer) publishRetried(ctx context.Context, body []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = r.ch.PublishWithContext(ctx, "orders", "placed", false, false, amqp.Publishing{
			MessageId: uuid.NewString(), // want `inside the retry loop at relay.go:\d+ reaches the AMQP MessageId`
			Body:      body,
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

type inbox interface {
	MarkProcessed(ctx context.Context, id int64) error
}

type shipmentEvent struct {
	ID      string
	OrderID int64
}

// handlePlaced is an inbox consumer: it raises a new event of another
// type, with an ID of its own, and marks the event it handled processed.
// No relay sends the new event again.
func handlePlaced(ctx context.Context, in inbox, send func(shipmentEvent) error, row outboxRow) error {
	if err := send(shipmentEvent{ID: uuid.NewString(), OrderID: row.ID}); err != nil {
		return err
	}
	return in.MarkProcessed(ctx, row.ID)
}
