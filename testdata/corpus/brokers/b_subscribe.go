package brokers

import (
	"context"

	"example.com/corpus/eventbus"
	"github.com/google/uuid"
)

// SubscriptionRenewed is the event billing publishes when a plan renews.
type SubscriptionRenewed struct {
	SubscriptionID string `json:"subscription_id"`
	Period         string `json:"period"`
	Cents          int64  `json:"cents"`
}

// RenewalBilling charges renewals it hears about on the event bus.
type RenewalBilling struct {
	Payments *Payments
}

// chargeRenewal draws the key per call; the bus redelivers a renewal whose
// charge failed or whose ack was lost, and it is charged again.
//
// corpus: bug attemptkey
// modelled on: nats-io/nats.go js.go (QueueSubscribe with ManualAck: a nak or a missing ack redelivers the message)
func (r *RenewalBilling) chargeRenewal(ctx context.Context, ev *SubscriptionRenewed) error {
	return r.Payments.Charge(ctx, uuid.NewString(), ev.SubscriptionID, ev.Cents)
}

// chargeRenewalOnce keys the charge by the subscription and its period,
// the same on every delivery of the renewal.
//
// corpus: ok attemptkey
// modelled on: nats-io/nats.go js.go (QueueSubscribe with ManualAck: a nak or a missing ack redelivers the message)
func (r *RenewalBilling) chargeRenewalOnce(ctx context.Context, ev *SubscriptionRenewed) error {
	return r.Payments.Charge(ctx, "renewal-"+ev.SubscriptionID+"-"+ev.Period, ev.SubscriptionID, ev.Cents)
}

// Wire subscribes both handlers.
func (r *RenewalBilling) Wire(bus *eventbus.Bus) error {
	if _, err := eventbus.Subscribe(bus, "billing.renewed", r.chargeRenewal); err != nil {
		return err
	}
	_, err := eventbus.Subscribe(bus, "billing.renewed.v2", r.chargeRenewalOnce)
	return err
}
