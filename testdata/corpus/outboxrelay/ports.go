package outboxrelay

import (
	"context"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"example.com/corpus/outboxrelay/jsport"
)

// MessagePublisher is the relay's port to the broker: the relay is written
// against it and the adapter is wired in main.
type MessagePublisher interface {
	Publish(ctx context.Context, exchange, routingKey string, body []byte) error
}

// rabbitPublisher is the RabbitMQ adapter behind MessagePublisher. It
// stamps every publish with a new message id, which the consumers'
// inbox deduplicates by.
type rabbitPublisher struct {
	ch *amqp.Channel
}

func (p *rabbitPublisher) Publish(ctx context.Context, exchange, routingKey string, body []byte) error {
	return p.ch.PublishWithContext(ctx, exchange, routingKey, true, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		MessageId:    uuid.NewString(),
		Body:         body,
	})
}

// StreamPort publishes to a stream; jsport.Publisher is the adapter.
type StreamPort interface {
	Publish(ctx context.Context, subject string, payload []byte) error
	PublishAs(ctx context.Context, msgID, subject string, payload []byte) error
}

// OutboundMessage is the envelope the relay hands to a Sender.
type OutboundMessage struct {
	ID            string
	CorrelationID string
	Type          string
	Payload       []byte
}

// Sender is implemented by the notification gateway, in another service.
type Sender interface {
	Send(ctx context.Context, m OutboundMessage) error
	Emit(ctx context.Context, msgID, eventType string, payload []byte) error
}

// PortRelay relays the outbox through ports, whatever the broker.
type PortRelay struct {
	pub    MessagePublisher
	stream StreamPort
	sender Sender
	store  Store
}

// NewPortRelay wires the relay to RabbitMQ and JetStream.
func NewPortRelay(ch *amqp.Channel, stream *jsport.Publisher, sender Sender, store Store) *PortRelay {
	return &PortRelay{pub: &rabbitPublisher{ch: ch}, stream: stream, sender: sender, store: store}
}

// PublishThroughPort relays one row through the MessagePublisher port,
// whose RabbitMQ adapter gives every publish a new message id: a row
// whose mark did not land goes out again under another.
//
// corpus: bug attemptkey
// modelled on: LeoForconesi/draftea-challenge internal/application/outbox/relay/relay.go (publishWithRetry publishes through the MessagePublisher port, then MarkEventAsSent)
func (r *PortRelay) PublishThroughPort(ctx context.Context, e Event) error {
	if err := r.pub.Publish(ctx, "payments.events", e.Type, e.Payload); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// AnnounceThroughPort publishes a new event through the same port from a
// one-off call: nothing sends it again.
//
// corpus: ok attemptkey
// modelled on: LeoForconesi/draftea-challenge internal/adapters/messaging/rabbitmq/publisher.go (Publisher.Publish behind the port)
func (r *PortRelay) AnnounceThroughPort(ctx context.Context, eventType string, body []byte) error {
	return r.pub.Publish(ctx, "payments.events", eventType, body)
}

// StreamThroughAdapter relays a batch through the JetStream adapter of
// package jsport, which makes a Nats-Msg-Id per publish: the stream's
// duplicate window never sees the same id twice.
//
// corpus: bug attemptkey
// modelled on: nikolayk812/pgx-outbox forwarder.go (Forward publishes each unpublished message through the Publisher interface, then acks them)
func (r *PortRelay) StreamThroughAdapter(ctx context.Context, events []Event) {
	for _, e := range events {
		if err := r.stream.Publish(ctx, "payments."+e.Type, e.Payload); err != nil {
			continue
		}
		_ = r.store.MarkPublished(ctx, e.ID)
	}
}

// StreamThroughAdapterKeyed relays a batch under each row's event id,
// which the adapter passes on as the Nats-Msg-Id.
//
// corpus: ok attemptkey
// modelled on: nikolayk812/pgx-outbox forwarder.go (Forward publishes each unpublished message through the Publisher interface, then acks them)
func (r *PortRelay) StreamThroughAdapterKeyed(ctx context.Context, events []Event) {
	for _, e := range events {
		if err := r.stream.PublishAs(ctx, e.EventID, "payments."+e.Type, e.Payload); err != nil {
			continue
		}
		_ = r.store.MarkPublished(ctx, e.ID)
	}
}

// SendEnvelope relays one row to the gateway in an envelope whose id is
// set after it is built, anew on each pass.
//
// corpus: bug attemptkey
// modelled on: hardiksachan/x xevent/outbox/message.go (a Message with ID, Topic, Type and Payload handed to a publisher)
func (r *PortRelay) SendEnvelope(ctx context.Context, e Event) error {
	m := OutboundMessage{Type: e.Type, Payload: e.Payload}
	m.ID = uuid.NewString()
	if err := r.sender.Send(ctx, m); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// SendEnvelopeKeyed relays one row under its event id; the correlation id
// is new on every send, and nobody deduplicates by it.
//
// corpus: ok attemptkey
// modelled on: hardiksachan/x xevent/outbox/message.go (a Message with ID, Topic, Type and Payload handed to a publisher)
func (r *PortRelay) SendEnvelopeKeyed(ctx context.Context, e Event) error {
	m := OutboundMessage{Type: e.Type, Payload: e.Payload, CorrelationID: uuid.NewString()}
	m.ID = e.EventID
	if err := r.sender.Send(ctx, m); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// EmitRow relays one row to the gateway under a message id made for this
// pass.
//
// corpus: bug attemptkey
// modelled on: steffanharmaajarvi/go-orders-outbox internal/infrastructure/event/publisher.go (an EventPublisher port taking the topic, key and payload)
func (r *PortRelay) EmitRow(ctx context.Context, e Event) error {
	if err := r.sender.Emit(ctx, uuid.NewString(), e.Type, e.Payload); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}

// EmitRowKeyed relays one row to the gateway under its event id.
//
// corpus: ok attemptkey
// modelled on: steffanharmaajarvi/go-orders-outbox internal/infrastructure/event/publisher.go (an EventPublisher port taking the topic, key and payload)
func (r *PortRelay) EmitRowKeyed(ctx context.Context, e Event) error {
	if err := r.sender.Emit(ctx, e.EventID, e.Type, e.Payload); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, e.ID)
}
