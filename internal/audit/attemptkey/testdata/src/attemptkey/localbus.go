package attemptkey

import (
	"context"

	"example.com/localbus"
	"github.com/google/uuid"
)

// An in-process bus calls its subscribers once for each Publish, in the
// publisher's call: no broker holds the event, so nothing is delivered
// again, and a subscriber's key is made once for the publish.
type stockReserved struct {
	ID      string
	OrderID string
	Amount  int64
}

type localBus struct {
	subs map[string][]func(context.Context, *stockReserved) error
}

func (b *localBus) Subscribe(topic string, fn func(context.Context, *stockReserved) error) { // want Subscribe:"keeps the handlers it is given"
	b.subs[topic] = append(b.subs[topic], fn)
}

func (b *localBus) Publish(ctx context.Context, topic string, ev *stockReserved) error {
	for _, fn := range b.subs[topic] {
		if err := fn(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

type stockHandlers struct{ c *charges }

func (h *stockHandlers) bill(ctx context.Context, ev *stockReserved) error {
	return h.c.charge(ctx, uuid.NewString(), ev.Amount)
}

func wireStock(b *localBus, h *stockHandlers) {
	b.Subscribe("stock.reserved", h.bill)
	b.Subscribe("stock.reserved", func(ctx context.Context, ev *stockReserved) error {
		return h.c.charge(ctx, uuid.NewString(), ev.Amount)
	})
}

// A bus of the package that hands its subscribers to a broker delivers
// through it.
type brokerBus struct{ inner localBusBroker }

type localBusBroker interface {
	Register(topic string, fn func(context.Context, *stockReserved) error) error
}

func (b *brokerBus) Subscribe(topic string, fn func(context.Context, *stockReserved) error) error {
	return b.inner.Register(topic, fn)
}

func wireStockBroker(b *brokerBus, h *stockHandlers) {
	_ = b.Subscribe("stock.reserved", func(ctx context.Context, ev *stockReserved) error {
		return h.c.charge(ctx, uuid.NewString(), ev.Amount) // want `inside the handler given to Subscribe`
	})
}

// The same, with the bus in a package of its own.
func wireStockShared(b *localbus.Bus, h *stockHandlers) {
	b.Subscribe("stock.reserved", func(ctx context.Context, ev *localbus.Event) error {
		return h.c.charge(ctx, uuid.NewString(), ev.Amount)
	})
}
