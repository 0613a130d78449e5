// Package loyalty credits points when an order is placed, as a subscriber
// of the order service's in-process bus.
package loyalty

import (
	"context"

	"github.com/google/uuid"

	"example.com/corpus/wave6a/bus"
)

// Ledger records point credits.
type Ledger interface {
	Credit(ctx context.Context, customerID string, points int64, idempotencyKey string) error
}

// Wire subscribes the points credit to the bus of another package; its
// Publish calls the handler once per order placed, in the publisher's
// call, so the key made here is made once per publish.
//
// corpus: ok attemptkey
// modelled on: asaskevich/EventBus event_bus.go (Subscribe keeps the handler; Publish calls each handler synchronously)
func Wire(b *bus.Bus, l Ledger) {
	b.Subscribe("order.placed", func(ctx context.Context, ev *bus.OrderPlaced) error {
		return l.Credit(ctx, ev.CustomerID, ev.Amount/100, uuid.NewString())
	})
}
