package brokers

import (
	"context"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/google/uuid"
)

// OrderPlaced is the event the checkout publishes.
type OrderPlaced struct {
	OrderID string
	Amount  int64
}

// RefundOrder is the command support sends to give an order's money back.
type RefundOrder struct {
	OrderID string
	Reason  string
	Amount  int64
}

// ChargeOnOrderPlaced charges for each order placed. The router calls the
// function again when it fails and for every redelivery, and each call
// draws a new key.
//
// corpus: bug attemptkey
// modelled on: ThreeDotsLabs/watermill _examples/basic/5-cqrs-protobuf/main.go (event handlers made with cqrs.NewEventHandler)
func ChargeOnOrderPlaced(p *Payments) cqrs.EventHandler {
	return cqrs.NewEventHandler("ChargeOnOrderPlaced", func(ctx context.Context, ev *OrderPlaced) error {
		return p.Charge(ctx, watermill.NewUUID(), ev.OrderID, ev.Amount)
	})
}

// ChargeOnOrderPlacedByOrder keys the charge by the order, the same on
// every call for one event.
//
// corpus: ok attemptkey
// modelled on: ThreeDotsLabs/watermill _examples/basic/5-cqrs-protobuf/main.go (event handlers made with cqrs.NewEventHandler)
func ChargeOnOrderPlacedByOrder(p *Payments) cqrs.EventHandler {
	return cqrs.NewEventHandler("ChargeOnOrderPlacedByOrder", func(ctx context.Context, ev *OrderPlaced) error {
		return p.Charge(ctx, "order-"+ev.OrderID, ev.OrderID, ev.Amount)
	})
}

// RefundHandler handles RefundOrder commands.
type RefundHandler struct {
	Payments *Payments
}

// Refund gives the money back under a fresh key: a command redelivered
// after a timeout is refunded twice.
//
// corpus: bug attemptkey
// modelled on: ThreeDotsLabs/watermill _examples/basic/5-cqrs-protobuf/main.go (BookRoomHandler's Handle, given to cqrs.NewCommandHandler)
func (h RefundHandler) Refund(ctx context.Context, cmd *RefundOrder) error {
	return h.Payments.Charge(ctx, uuid.NewString(), cmd.OrderID, -cmd.Amount)
}

// RefundByOrder keys the refund by the order and its reason.
//
// corpus: ok attemptkey
// modelled on: ThreeDotsLabs/watermill _examples/basic/5-cqrs-protobuf/main.go (BookRoomHandler's Handle, given to cqrs.NewCommandHandler)
func (h RefundHandler) RefundByOrder(ctx context.Context, cmd *RefundOrder) error {
	return h.Payments.Charge(ctx, "refund-"+cmd.OrderID+"-"+cmd.Reason, cmd.OrderID, -cmd.Amount)
}

// RefundHandlers registers both handlers on the command processor.
func RefundHandlers(h RefundHandler) []cqrs.CommandHandler {
	return []cqrs.CommandHandler{
		cqrs.NewCommandHandler("RefundOrder", h.Refund),
		cqrs.NewCommandHandler("RefundOrderByOrder", h.RefundByOrder),
	}
}
