package attemptkey

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"cloud.google.com/go/pubsub"
	"github.com/google/uuid"
)

// pushEnvelope is what Pub/Sub POSTs to a push endpoint, once per
// delivery, until the endpoint answers 2xx.
type pushEnvelope struct {
	Message struct {
		Data       []byte            `json:"data"`
		Attributes map[string]string `json:"attributes"`
		MessageID  string            `json:"messageId"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

type eventPublisher interface {
	PublishEvent(ctx context.Context, eventID string, body []byte) error
}

type pushEndpoint struct {
	c   *charges
	pub eventPublisher
}

// A key made in a push endpoint is made per delivery: the redelivery of a
// message that was not answered 2xx in time is charged again.
func (p *pushEndpoint) pushCharge(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := p.c.charge(r.Context(), uuid.NewString(), 100); err != nil { // want `made by uuid.NewString at push.go:\d+ inside the Pub/Sub push handler pushCharge at push.go:\d+ reaches charge.*: a redelivered message gets a new key`
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// The event it passes on gets a new ID per delivery: its consumers cannot
// drop the copy. (In a plain request handler a new event's ID is its own.)
func (p *pushEndpoint) pushForward(w http.ResponseWriter, r *http.Request) {
	var env struct {
		Message struct {
			Data      []byte `json:"data,omitempty"`
			MessageID string `json:"message_id"`
		} `json:"message"`
		Subscription string `json:"subscription"`
	}
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := p.pub.PublishEvent(r.Context(), uuid.NewString(), env.Message.Data); err != nil { // want `inside the Pub/Sub push handler pushForward at push.go:\d+ reaches the eventID parameter of PublishEvent`
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func (p *pushEndpoint) pushChargeByID(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := p.c.charge(r.Context(), "push-"+env.Message.MessageID, 100); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func (p *pushEndpoint) pushForwardByAttribute(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := p.pub.PublishEvent(r.Context(), env.Message.Attributes["order_id"]+"/shipped", env.Message.Data); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// A web push request names a browser subscription and a text: no queue
// delivered it, and the event it starts is new with its own ID.
type webPushRequest struct {
	Subscription string `json:"subscription"`
	Message      string `json:"message"`
}

func (p *pushEndpoint) notify(w http.ResponseWriter, r *http.Request) {
	var req webPushRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := p.pub.PublishEvent(r.Context(), uuid.NewString(), []byte(req.Message)); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// A handler registered by name with Receive runs once per delivery; its
// delivery count is new on each.
type receiver struct{ c *charges }

func (s *receiver) run(ctx context.Context, sub *pubsub.Subscription) error {
	return sub.Receive(ctx, s.handle)
}

func (s *receiver) handle(ctx context.Context, m *pubsub.Message) {
	n := 0
	if m.DeliveryAttempt != nil {
		n = *m.DeliveryAttempt
	}
	if err := s.c.charge(ctx, fmt.Sprintf("%s/%d", m.ID, n), 100); err != nil { // want `made by m.DeliveryAttempt, the number of the attempt at push.go:\d+ inside the consumer handle`
		m.Nack()
		return
	}
	m.Ack()
}

func (s *receiver) runByID(ctx context.Context, sub *pubsub.Subscription) error {
	return sub.Receive(ctx, s.handleByID)
}

func (s *receiver) handleByID(ctx context.Context, m *pubsub.Message) {
	if m.DeliveryAttempt != nil && *m.DeliveryAttempt > 10 {
		m.Ack() // give up on a poison message
		return
	}
	if err := s.c.charge(ctx, m.ID, 100); err != nil {
		m.Nack()
		return
	}
	m.Ack()
}
