package wave7ak

import (
	"encoding/json"
	"log"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// pushEnvelope is the body Pub/Sub POSTs to a push endpoint for each
// delivery of a message; it posts it again until the endpoint answers 2xx.
type pushEnvelope struct {
	Message struct {
		Data       []byte            `json:"data"`
		Attributes map[string]string `json:"attributes"`
		MessageID  string            `json:"messageId"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

type orderPaid struct {
	CustomerID string `json:"customer_id"`
	Cents      int64  `json:"cents"`
}

// PushHandler serves the Pub/Sub push subscriptions of the billing topics.
type PushHandler struct {
	payments Payments
	events   Events
}

// HandleOrderPaid charges the loyalty fee of a paid order under a key made
// for this delivery: a delivery Pub/Sub posts again after a slow answer
// charges again.
//
// corpus: bug attemptkey
// modelled on: daadaamed/go-cqrs-pubsub internal/projection/projection.go (a push endpoint decoding the envelope and applying the event)
func (h *PushHandler) HandleOrderPaid(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusNoContent) // a poison message: stop the redeliveries
		return
	}
	var ev orderPaid
	if err := json.Unmarshal(env.Message.Data, &ev); err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.payments.Charge(r.Context(), ev.CustomerID, ev.Cents/100, uuid.NewString()); err != nil {
		log.Printf("loyalty fee: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// HandleOrderPaidOnce keys the charge by the Pub/Sub message ID, the same
// on every delivery of the message.
//
// corpus: ok attemptkey
// modelled on: daadaamed/go-cqrs-pubsub internal/projection/projection.go (a push endpoint decoding the envelope and applying the event)
func (h *PushHandler) HandleOrderPaidOnce(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var ev orderPaid
	if err := json.Unmarshal(env.Message.Data, &ev); err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.payments.Charge(r.Context(), ev.CustomerID, ev.Cents/100, "loyalty-"+env.Message.MessageID); err != nil {
		log.Printf("loyalty fee: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// HandleShipment passes a shipment on as an invoice event under an ID made
// for this delivery: the invoicing service gets a copy it cannot drop each
// time Pub/Sub posts the message again.
//
// corpus: bug attemptkey
// modelled on: daadaamed/go-cqrs-pubsub internal/projection/projection.go (a push endpoint decoding the envelope and applying the event)
func (h *PushHandler) HandleShipment(w http.ResponseWriter, r *http.Request) {
	var push struct {
		Message struct {
			Data      []byte `json:"data,omitempty"`
			MessageID string `json:"message_id"`
		} `json:"message"`
		Subscription string `json:"subscription"`
	}
	if err := json.NewDecoder(r.Body).Decode(&push); err != nil {
		http.Error(w, "bad envelope", http.StatusBadRequest)
		return
	}
	if err := h.events.PublishEvent(r.Context(), uuid.NewString(), push.Message.Data); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// HandleShipmentByAttribute names the invoice event after the shipment the
// publisher put in the message's attributes: every delivery names it the
// same way.
//
// corpus: ok attemptkey
// modelled on: daadaamed/go-cqrs-pubsub internal/projection/projection.go (the event type and aggregate ID read from the push message's attributes)
func (h *PushHandler) HandleShipmentByAttribute(w http.ResponseWriter, r *http.Request) {
	var env pushEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		http.Error(w, "bad envelope", http.StatusBadRequest)
		return
	}
	shipment := env.Message.Attributes["shipment_id"]
	if shipment == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.events.PublishEvent(r.Context(), "invoice-for-"+shipment, env.Message.Data); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

type createRefundRequest struct {
	OrderID string `json:"order_id"`
	Reason  string `json:"reason"`
}

// CreateRefund is a command endpoint, not a push endpoint: each call is a
// new refund, and the event it publishes is new with its own ID.
//
// corpus: ok attemptkey
// modelled on: daadaamed/go-cqrs-pubsub internal/command/command.go (a command handler that builds a new event and publishes it)
func (h *PushHandler) CreateRefund(w http.ResponseWriter, r *http.Request) {
	var req createRefundRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "invalid JSON body", http.StatusBadRequest)
		return
	}
	if strings.TrimSpace(req.OrderID) == "" {
		http.Error(w, "order_id is required", http.StatusBadRequest)
		return
	}
	body, _ := json.Marshal(req)
	if err := h.events.PublishEvent(r.Context(), uuid.NewString(), body); err != nil {
		log.Printf("refund requested: publish: %v", err)
	}
	w.WriteHeader(http.StatusAccepted)
}
