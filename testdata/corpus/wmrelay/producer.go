package wmrelay

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
)

// Bus publishes JSON payloads with watermill.
type Bus struct {
	pub message.Publisher
}

// PublishJSON wraps a payload in a message named by a new UUID: every
// call is another message.
func (b *Bus) PublishJSON(topic string, payload []byte) error {
	msg := message.NewMessage(watermill.NewUUID(), payload)
	msg.Metadata.Set("content-type", "application/json")
	return b.pub.Publish(topic, msg)
}

// LabelRelay passes printed shipping labels on to the carrier topic.
type LabelRelay struct {
	repo OutboxRepo
	bus  *Bus
}

// Relay passes each label row on through PublishJSON, which names it anew
// on every pass.
//
// corpus: bug attemptkey
// modelled on: SomeHowMicroservice/product_service mq/publisher.go (PublishMessage wraps a payload in message.NewMessage(watermill.NewUUID(), payload))
func (r *LabelRelay) Relay(ctx context.Context, rows []OutboxEvent) {
	for _, row := range rows {
		if err := r.bus.PublishJSON(row.Topic, row.Payload); err != nil {
			_ = r.repo.RecordFailure(ctx, row.ID, err.Error())
			continue
		}
		_ = r.repo.MarkDelivered(ctx, row.ID)
	}
}

// Signup is the request that announces a new customer once: the event is
// new, and nothing sends it again.
//
// corpus: ok attemptkey
// modelled on: SomeHowMicroservice/product_service mq/publisher.go (PublishMessage called once per request to announce a change)
func (r *LabelRelay) Signup(w http.ResponseWriter, req *http.Request) {
	body, err := json.Marshal(map[string]string{"email": req.FormValue("email")})
	if err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if err := r.bus.PublishJSON("customers.signed_up", body); err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// errBroker marks a publish the broker refused.
var errBroker = errors.New("broker refused the message")

// PublishWithRetry builds the message anew on every attempt, so a publish
// that reached the broker but timed out is sent again as another message.
//
// corpus: bug attemptkey
// modelled on: ThreeDotsLabs/watermill message/router/middleware/retry.go (Retry runs a handler again with a backoff between attempts)
func (b *Bus) PublishWithRetry(ctx context.Context, topic string, payload []byte) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		msg := message.NewMessageWithContext(ctx, watermill.NewULID(), payload)
		if err = b.pub.Publish(topic, msg); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
	return errors.Join(errBroker, err)
}

// PublishOnceWithRetry names the message before its retries and sends the
// same one on each attempt.
//
// corpus: ok attemptkey
// modelled on: ThreeDotsLabs/watermill message/router/middleware/retry.go (Retry runs a handler again with a backoff between attempts)
func (b *Bus) PublishOnceWithRetry(ctx context.Context, topic string, payload []byte) error {
	msg := message.NewMessageWithContext(ctx, watermill.NewULID(), payload)
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = b.pub.Publish(topic, msg); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
	return errors.Join(errBroker, err)
}

// tagField is the metadata field the carrier consumers' Deduplicator
// reads its key from.
const tagField = "x-shipment-tag"

// Dedup drops a repeated carrier message by its tag.
var Dedup = &middleware.Deduplicator{
	KeyFactory: middleware.NewMessageHasherFromMetadataField(tagField),
	Timeout:    time.Minute,
}

// BookPickup tags the pickup request afresh on every attempt: the
// Deduplicator sees each attempt as a new request.
//
// corpus: bug attemptkey
// modelled on: ThreeDotsLabs/watermill message/router/middleware/deduplicator.go (NewMessageHasherFromMetadataField reads a message's key from a metadata field)
func (b *Bus) BookPickup(ctx context.Context, shipmentID string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		msg := message.NewMessage(shipmentID, payload)
		msg.Metadata.Set(tagField, watermill.NewUUID())
		if err = b.pub.Publish("carrier.pickups", msg); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// BookPickupTagged tags the request with the shipment it is for.
//
// corpus: ok attemptkey
// modelled on: ThreeDotsLabs/watermill message/router/middleware/deduplicator.go (NewMessageHasherFromMetadataField reads a message's key from a metadata field)
func (b *Bus) BookPickupTagged(ctx context.Context, shipmentID string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		msg := message.NewMessage(watermill.NewUUID(), payload)
		msg.Metadata.Set(tagField, "pickup:"+shipmentID)
		if err = b.pub.Publish("carrier.pickups", msg); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// Handlers are the router's handlers of shipment events.
type Handlers struct{}

// OnShipmentPacked answers a packed shipment with a new label request: a
// handler's output is a new message, whose UUID the router may make.
//
// corpus: ok attemptkey
// modelled on: muratovdias/Go-Event-Driven project/internal/broker/middleware.go (router handlers and middleware over *message.Message)
func (Handlers) OnShipmentPacked(msg *message.Message) ([]*message.Message, error) {
	out := message.NewMessage(watermill.NewUUID(), msg.Payload)
	out.Metadata.Set("correlation_id", msg.Metadata.Get("correlation_id"))
	return []*message.Message{out}, nil
}
