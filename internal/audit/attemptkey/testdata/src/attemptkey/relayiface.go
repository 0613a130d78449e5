package attemptkey

import (
	"context"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/oklog/ulid/v2"
	amqp "github.com/rabbitmq/amqp091-go"
)

// streamPublisher is the relay's port to the broker; the relay never sees
// which client is behind it.
type streamPublisher interface {
	Publish(ctx context.Context, subject string, payload []byte) error
}

// jsPublisher gives every publish a Nats-Msg-Id of its own.
type jsPublisher struct{ js jetstream.JetStream }

func (p *jsPublisher) Publish(ctx context.Context, subject string, payload []byte) error { // want Publish:"makes uuid.NewString at relayiface.go:\\d+, reaching the NATS message ID"
	_, err := p.js.Publish(ctx, subject, payload, jetstream.WithMsgID(uuid.NewString()))
	return err
}

// keyedPublisher publishes under the ID its caller gives.
type keyedPublisher interface {
	PublishKeyed(ctx context.Context, ref, subject string, payload []byte) error
}

type amqpPublisher struct{ ch *amqp.Channel }

func (p amqpPublisher) PublishKeyed(ctx context.Context, ref, subject string, payload []byte) error { // want PublishKeyed:"parameter 1 reaches the AMQP MessageId"
	return p.ch.PublishWithContext(ctx, "events", subject, true, false, amqp.Publishing{MessageId: ref, Body: payload})
}

// relayEnvelope is what the relay hands to a sender.
type relayEnvelope struct {
	ID            string
	CorrelationID string
	Topic         string
	Body          []byte
}

type envelopeSender interface {
	Send(ctx context.Context, env relayEnvelope) error
}

// eventEmitter is implemented in another service; only its names tell.
type eventEmitter interface {
	Emit(ctx context.Context, msgID, topic string, payload []byte) error
	Record(ctx context.Context, id, note string) error
}

// auditTrail is implemented only by a fake in the tests.
type auditTrail interface {
	Append(ctx context.Context, topic string, payload []byte) error
}

type portRelay struct {
	trail  auditTrail
	pub    streamPublisher
	keyed  keyedPublisher
	sender envelopeSender
	emit   eventEmitter
	store  outboxStore
}

// relayThroughPort sends a row through an interface whose implementation
// makes a new message ID on every call: each pass sends another.
func (r *portRelay) relayThroughPort(ctx context.Context, row outboxRow) error {
	if err := r.pub.Publish(ctx, row.Topic, row.Payload); err != nil { // want `idempotency key made by Publish \(through jsPublisher.Publish: uuid.NewString at relayiface.go:\d+, reaching the NATS message ID \(WithMsgID\) at relayiface.go:\d+\) inside the relay relayThroughPort of row`
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// announceThroughPort publishes a new message through the same port:
// nothing marks it sent, so nothing sends it again.
func (r *portRelay) announceThroughPort(ctx context.Context, topic string, payload []byte) error {
	return r.pub.Publish(ctx, topic, payload)
}

// relayKeyedPort passes a fresh ID to an implementation that uses it as
// the AMQP MessageId.
func (r *portRelay) relayKeyedPort(ctx context.Context, row outboxRow) error {
	if err := r.keyed.PublishKeyed(ctx, ulid.Make().String(), row.Topic, row.Payload); err != nil { // want `idempotency key made by ulid.Make at relayiface.go:\d+ inside the relay relayKeyedPort of row at relayiface.go:\d+ reaches PublishKeyed, whose ref parameter reaches the AMQP MessageId`
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// relayKeyedPortStable passes the row's event ID.
func (r *portRelay) relayKeyedPortStable(ctx context.Context, row outboxRow) error {
	if err := r.keyed.PublishKeyed(ctx, row.EventID, row.Topic, row.Payload); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// drainEnvelopes sets each envelope's ID after building it, anew on every
// pass.
func (r *portRelay) drainEnvelopes(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		env := relayEnvelope{Topic: row.Topic, Body: row.Payload}
		env.ID = uuid.NewString() // want `inside the relay loop over row at relayiface.go:\d+ reaches the ID of a relayEnvelope`
		if err := r.sender.Send(ctx, env); err != nil {
			continue
		}
		_ = r.store.MarkPublished(ctx, row.ID)
	}
}

// drainEnvelopesKeyed keeps the row's event ID; a correlation ID is new
// on every send, and nobody deduplicates by it.
func (r *portRelay) drainEnvelopesKeyed(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		env := relayEnvelope{Topic: row.Topic, Body: row.Payload, CorrelationID: uuid.NewString()}
		env.ID = row.EventID
		if err := r.sender.Send(ctx, env); err != nil {
			continue
		}
		_ = r.store.MarkPublished(ctx, row.ID)
	}
}

// emitRow hands a fresh message ID to a port whose implementation the
// check cannot see: the parameter's name says what it is.
func (r *portRelay) emitRow(ctx context.Context, row outboxRow) error {
	if err := r.emit.Emit(ctx, uuid.NewString(), row.Topic, row.Payload); err != nil { // want `inside the relay emitRow of row at relayiface.go:\d+ reaches the msgID parameter of Emit`
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// emitRowNoted notes the pass under a new ID of its own, which is no
// message's: Record sends nothing.
func (r *portRelay) emitRowNoted(ctx context.Context, row outboxRow) error {
	if err := r.emit.Emit(ctx, row.EventID, row.Topic, row.Payload); err != nil {
		return err
	}
	if err := r.emit.Record(ctx, uuid.NewString(), "relayed"); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}

// relayWithTrail appends each row to an audit trail that only a test fake
// implements here, which gives every entry an ID of its own.
func (r *portRelay) relayWithTrail(ctx context.Context, row outboxRow) error {
	if err := r.trail.Append(ctx, row.Topic, row.Payload); err != nil {
		return err
	}
	return r.store.MarkPublished(ctx, row.ID)
}
