// Package bus is the order service's in-process event bus: modules
// subscribe handlers, and a publish calls them in turn, inside the
// publisher's call. Nothing is stored or delivered again.
package bus

import (
	"context"
	"sync"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// OrderPlaced is published once an order is stored.
type OrderPlaced struct {
	ID         string
	OrderID    string
	CustomerID string
	Amount     int64
}

// Handler handles one event.
type Handler func(ctx context.Context, ev *OrderPlaced) error

// Bus calls its subscribers for each event published.
type Bus struct {
	mu   sync.RWMutex
	subs map[string][]Handler
}

// New returns an empty bus.
func New() *Bus { return &Bus{subs: map[string][]Handler{}} }

// Subscribe adds fn to the handlers of topic.
func (b *Bus) Subscribe(topic string, fn Handler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs[topic] = append(b.subs[topic], fn)
}

// Publish calls the handlers of topic in the order they subscribed.
func (b *Bus) Publish(ctx context.Context, topic string, ev *OrderPlaced) error {
	b.mu.RLock()
	subs := b.subs[topic]
	b.mu.RUnlock()
	for _, fn := range subs {
		if err := fn(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// Mailer sends the order's mail.
type Mailer interface {
	Send(ctx context.Context, to, template, idempotencyKey string) error
}

// WireMail subscribes the confirmation mail: the handler runs once for
// each publish, in the publisher's call, so the key it makes is made once
// per order placed.
//
// corpus: ok attemptkey
// modelled on: asaskevich/EventBus event_bus.go (Subscribe keeps the handler; Publish calls each handler synchronously)
func WireMail(b *Bus, m Mailer) {
	b.Subscribe("order.placed", func(ctx context.Context, ev *OrderPlaced) error {
		return m.Send(ctx, ev.CustomerID, "order_confirmation", uuid.NewString())
	})
}

// WireCharge subscribes the charge; the handler charges under a key made
// inside a retry loop of its own, so a retried charge is a second one.
//
// corpus: bug attemptkey
// modelled on: asaskevich/EventBus event_bus.go (Subscribe keeps the handler; Publish calls each handler synchronously)
func WireCharge(b *Bus, sc *stripe.Client) {
	b.Subscribe("order.placed", func(ctx context.Context, ev *OrderPlaced) error {
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(ev.Amount), Currency: stripe.String("eur")}
			params.IdempotencyKey = stripe.String(uuid.NewString())
			if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
				return nil
			}
		}
		return err
	})
}
