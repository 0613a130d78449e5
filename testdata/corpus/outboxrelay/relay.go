// Package outboxrelay moves the payment service's outbox to Kafka,
// JetStream, RabbitMQ and SQS. A pass sends every row not yet marked
// sent; a row whose send failed, or whose mark did not land, is sent
// again by the next pass, so the ID its receivers deduplicate by must be
// the row's, the same on every pass.
package outboxrelay

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/oklog/ulid/v2"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/segmentio/kafka-go"
)

// Event is one outbox row.
type Event struct {
	ID        int64
	EventID   string
	Aggregate string
	Type      string
	Payload   []byte
}

// Store reads and marks the outbox.
type Store interface {
	Pending(ctx context.Context, limit int) ([]Event, error)
	MarkPublished(ctx context.Context, id int64) error
}

// Relay publishes outbox rows.
type Relay struct {
	db    *sql.DB
	store Store
	kafka *kafka.Writer
	js    jetstream.JetStream
	ch    *amqp.Channel
	sqs   *sqs.Client
	fifo  string
	log   *slog.Logger
}

// pending reads a batch of rows not yet sent.
func (r *Relay) pending(ctx context.Context) ([]Event, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, event_id, aggregate, type, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 100`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.EventID, &e.Aggregate, &e.Type, &e.Payload); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DrainToKafka sends a batch of rows to Kafka, each with a message-id
// header the consumers deduplicate by, made anew on every pass.
//
// corpus: bug attemptkey
// modelled on: k1networth/servicedesk-lite docs/services/outbox-relay/README.md (polls the outbox, publishes to Kafka, marks the row sent)
func (r *Relay) DrainToKafka(ctx context.Context) error {
	events, err := r.pending(ctx)
	if err != nil {
		return err
	}
	for _, e := range events {
		msg := kafka.Message{
			Key:   []byte(e.Aggregate),
			Value: e.Payload,
			Headers: []kafka.Header{
				{Key: "message-id", Value: []byte(uuid.NewString())},
				{Key: "type", Value: []byte(e.Type)},
			},
		}
		if err := r.kafka.WriteMessages(ctx, msg); err != nil {
			r.log.WarnContext(ctx, "publish outbox row", "id", e.ID, "err", err)
			continue
		}
		if _, err := r.db.ExecContext(ctx, `UPDATE outbox SET published_at = now() WHERE id = $1`, e.ID); err != nil {
			r.log.WarnContext(ctx, "mark outbox row", "id", e.ID, "err", err)
		}
	}
	return nil
}

// DrainToKafkaKeyed sends a batch of rows to Kafka under the event id
// each row was written with.
//
// corpus: ok attemptkey
// modelled on: k1networth/servicedesk-lite docs/services/outbox-relay/README.md (polls the outbox, publishes to Kafka, marks the row sent)
func (r *Relay) DrainToKafkaKeyed(ctx context.Context) error {
	events, err := r.pending(ctx)
	if err != nil {
		return err
	}
	for _, e := range events {
		msg := kafka.Message{
			Key:   []byte(e.Aggregate),
			Value: e.Payload,
			Headers: []kafka.Header{
				{Key: "message-id", Value: []byte(e.EventID)},
				{Key: "trace-id", Value: []byte(uuid.NewString())},
			},
		}
		if err := r.kafka.WriteMessages(ctx, msg); err != nil {
			r.log.WarnContext(ctx, "publish outbox row", "id", e.ID, "err", err)
			continue
		}
		if _, err := r.db.ExecContext(ctx, `UPDATE outbox SET published_at = now() WHERE id = $1`, e.ID); err != nil {
			r.log.WarnContext(ctx, "mark outbox row", "id", e.ID, "err", err)
		}
	}
	return nil
}

// StreamEvent publishes one row to JetStream with a Nats-Msg-Id made for
// this call; the row is marked when the stream acknowledges it.
//
// corpus: bug attemptkey
// modelled on: danicc097/todo-ddd-example sql/queries/outbox.sql (GetUnprocessedOutboxEvents, then MarkOutboxEventProcessed per event)
func (r *Relay) StreamEvent(ctx context.Context, e Event) error {
	if _, err := r.js.Publish(ctx, "payments."+e.Type, e.Payload, jetstream.WithMsgID(ulid.Make().String())); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// StreamEventKeyed publishes one row to JetStream under the row's event
// id, which the stream's duplicate window drops a second copy of.
//
// corpus: ok attemptkey
// modelled on: danicc097/todo-ddd-example sql/queries/outbox.sql (GetUnprocessedOutboxEvents, then MarkOutboxEventProcessed per event)
func (r *Relay) StreamEventKeyed(ctx context.Context, e Event) error {
	if _, err := r.js.Publish(ctx, "payments."+e.Type, e.Payload, jetstream.WithMsgID(e.EventID)); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// publishAMQP publishes a body to the payments exchange under a new
// message id.
func (r *Relay) publishAMQP(ctx context.Context, routingKey string, body []byte) error {
	return r.ch.PublishWithContext(ctx, "payments", routingKey, true, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		MessageId:    uuid.NewString(),
		Timestamp:    time.Now(),
		Body:         body,
	})
}

// ForwardEvent relays one row to RabbitMQ through publishAMQP, which
// gives every publish a new message id.
//
// corpus: bug attemptkey
// modelled on: kamal-github/outbox pubsub/rabbit.go (Dispatch publishes each outbox row, failed rows retried by the worker)
func (r *Relay) ForwardEvent(ctx context.Context, e Event) error {
	if err := r.publishAMQP(ctx, e.Type, e.Payload); err != nil {
		return err
	}
	_, err := r.db.ExecContext(ctx, `UPDATE outbox SET published_at = now() WHERE id = $1`, e.ID)
	return err
}

// Refunded is an event the payment service raises.
type Refunded struct {
	PaymentID string `json:"payment_id"`
	Cents     int64  `json:"cents"`
}

// AnnounceRefund publishes a new event when a refund is made: its id is
// the new message's own, and nothing sends it again.
//
// corpus: ok attemptkey
// modelled on: kamal-github/outbox pubsub/rabbit.go (a publisher that gives each new message an id)
func (r *Relay) AnnounceRefund(ctx context.Context, ev Refunded) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return r.publishAMQP(ctx, "payment.refunded", body)
}

// Payment is a payment row.
type Payment struct {
	ID     int64
	Status string
}

// Settle publishes a payment's settlement, a new message, then moves the
// payment to settled: a state change of the payment, not a relay mark.
//
// corpus: ok attemptkey
// modelled on: kamal-github/outbox pubsub/rabbit.go (a publisher that gives each new message an id)
func (r *Relay) Settle(ctx context.Context, p Payment) error {
	body, _ := json.Marshal(map[string]int64{"payment_id": p.ID})
	err := r.ch.PublishWithContext(ctx, "payments", "payment.settled", false, false, amqp.Publishing{
		MessageId: uuid.NewString(),
		Body:      body,
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `UPDATE payments SET status = 'settled' WHERE id = $1`, p.ID)
	return err
}

// QueueFIFO sends one row to an SQS FIFO queue with a deduplication id
// from the clock, then deletes the row from the outbox.
//
// corpus: bug attemptkey
// modelled on: yosuahutagalung/go-microservice-boilerplate internal/data/queries/outbox.sql (GetPendingOutboxEvents then delete what was sent)
func (r *Relay) QueueFIFO(ctx context.Context, e Event) error {
	_, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(r.fifo),
		MessageBody:            aws.String(string(e.Payload)),
		MessageGroupId:         aws.String(e.Aggregate),
		MessageDeduplicationId: aws.String(time.Now().Format(time.RFC3339Nano)),
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `DELETE FROM outbox WHERE id = $1`, e.ID)
	return err
}

// QueueFIFOKeyed sends one row to an SQS FIFO queue under the row's
// event id, then deletes the row from the outbox.
//
// corpus: ok attemptkey
// modelled on: yosuahutagalung/go-microservice-boilerplate internal/data/queries/outbox.sql (GetPendingOutboxEvents then delete what was sent)
func (r *Relay) QueueFIFOKeyed(ctx context.Context, e Event) error {
	_, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(r.fifo),
		MessageBody:            aws.String(string(e.Payload)),
		MessageGroupId:         aws.String(e.Aggregate),
		MessageDeduplicationId: aws.String(e.EventID),
	})
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `DELETE FROM outbox WHERE id = $1`, e.ID)
	return err
}
