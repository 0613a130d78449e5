package attemptkey

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/google/uuid"
)

type charges struct{ hc *http.Client }

func (c *charges) charge(ctx context.Context, key string, amount int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example.com/charges", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	_, err = c.hc.Do(req)
	return err
}

type chargeOrder struct {
	OrderID string
	Amount  int64
}

// A function that settles the message it takes through its receiver
// consumes it.
func settleCharge(ctx context.Context, c *charges, r *azservicebus.Receiver, m *azservicebus.ReceivedMessage) error {
	var o chargeOrder
	_ = json.Unmarshal(m.Body, &o)
	if err := c.charge(ctx, uuid.NewString(), o.Amount); err != nil { // want `inside the consumer settleCharge at consumers2.go:\d+ reaches charge`
		return r.AbandonMessage(ctx, m, nil)
	}
	return r.CompleteMessage(ctx, m, nil)
}

func settleChargeByID(ctx context.Context, c *charges, r *azservicebus.Receiver, m *azservicebus.ReceivedMessage) error {
	var o chargeOrder
	_ = json.Unmarshal(m.Body, &o)
	if err := c.charge(ctx, "charge-"+m.MessageID, o.Amount); err != nil {
		return r.AbandonMessage(ctx, m, nil)
	}
	return r.CompleteMessage(ctx, m, nil)
}

// A poll loop whose event the turn narrows to a message takes one message
// a turn.
func pollCharges(ctx context.Context, cons *kafka.Consumer, c *charges) {
	for ctx.Err() == nil {
		ev := cons.Poll(100)
		switch e := ev.(type) {
		case *kafka.Message:
			var o chargeOrder
			_ = json.Unmarshal(e.Value, &o)
			if err := c.charge(ctx, uuid.NewString(), o.Amount); err != nil { // want `inside the loop over received messages at consumers2.go:\d+ reaches charge`
				continue
			}
			_, _ = cons.CommitMessage(e)
		case kafka.Error:
		}
	}
}

func pollChargesByOffset(ctx context.Context, cons *kafka.Consumer, c *charges) {
	for ctx.Err() == nil {
		ev := cons.Poll(100)
		if m, ok := ev.(*kafka.Message); ok {
			var o chargeOrder
			_ = json.Unmarshal(m.Value, &o)
			key := fmt.Sprintf("%s-%d-%d", *m.TopicPartition.Topic, m.TopicPartition.Partition, m.TopicPartition.Offset)
			if err := c.charge(ctx, key, o.Amount); err != nil {
				continue
			}
			_, _ = cons.CommitMessage(m)
		}
	}
}

// watermill's cqrs router calls a handler for each delivery of its event
// or command.
type orderPlaced struct {
	OrderID string
	Amount  int64
}

func chargeHandlers(c *charges) []cqrs.EventHandler {
	return []cqrs.EventHandler{
		cqrs.NewEventHandler("ChargeOnOrderPlaced", func(ctx context.Context, ev *orderPlaced) error {
			return c.charge(ctx, uuid.NewString(), ev.Amount) // want `inside the handler given to NewEventHandler at consumers2.go:\d+ reaches charge`
		}),
		cqrs.NewEventHandler("ChargeOnOrderPlacedByOrder", func(ctx context.Context, ev *orderPlaced) error {
			return c.charge(ctx, "order-"+ev.OrderID, ev.Amount)
		}),
	}
}

type refundOrder struct {
	OrderID string
	Amount  int64
}

type refunder struct{ c *charges }

func (r refunder) refund(ctx context.Context, cmd *refundOrder) error {
	return r.c.charge(ctx, uuid.NewString(), -cmd.Amount) // want `inside the handler refund at consumers2.go:\d+ reaches charge`
}

func refundHandler(r refunder) cqrs.CommandHandler {
	return cqrs.NewCommandHandler("RefundOrder", r.refund)
}

// The older interface: a type naming itself and handling any command.
type captureHandler struct{ c *charges }

func (h captureHandler) HandlerName() string { return "CaptureHandler" }
func (h captureHandler) NewCommand() any     { return &chargeOrder{} }

func (h captureHandler) Handle(ctx context.Context, cmd any) error {
	o := cmd.(*chargeOrder)
	return h.c.charge(ctx, uuid.NewString(), o.Amount) // want `inside the handler Handle at consumers2.go:\d+ reaches charge`
}

type captureByOrderHandler struct{ c *charges }

func (h captureByOrderHandler) HandlerName() string { return "CaptureByOrderHandler" }
func (h captureByOrderHandler) NewCommand() any     { return &chargeOrder{} }

func (h captureByOrderHandler) Handle(ctx context.Context, cmd any) error { // want Handle:"parameter 1 reaches charge"
	o := cmd.(*chargeOrder)
	return h.c.charge(ctx, "capture-"+o.OrderID, o.Amount)
}

// A function named for handling that is no one's handler, called once
// from a command line, is no delivery.
func backfillCharge(ctx context.Context, c *charges, o *chargeOrder) error {
	return c.charge(ctx, uuid.NewString(), o.Amount)
}
