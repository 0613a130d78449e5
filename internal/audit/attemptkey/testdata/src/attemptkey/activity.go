package attemptkey

import (
	"context"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// ChargeInput is what a workflow hands its charge activity.
type ChargeInput struct {
	InvoiceID string
	Cents     int64
}

// chargeActivity is the workflow's charge activity: the engine runs it
// again when it fails, and each run sends a new key.
func chargeActivity(ctx context.Context, sc *stripe.Client, in ChargeInput) error {
	return chargeOnce(ctx, sc, uuid.NewString()) // want `inside the activity chargeActivity`
}

// BillingActivities are a worker's activities.
type BillingActivities struct{ sc *stripe.Client }

// Refund refunds an invoice.
func (a *BillingActivities) Refund(ctx context.Context, in ChargeInput) error {
	return chargeOnce(ctx, a.sc, uuid.NewString()) // want `inside the activity Refund`
}

// The key made from the workflow's own identity is the same on every run.
func (a *BillingActivities) RefundKeyed(ctx context.Context, in ChargeInput) error { // want RefundKeyed:"parameter 1 reaches chargeOnce"
	return chargeOnce(ctx, a.sc, "refund:"+in.InvoiceID)
}

type activityRegistry interface{ RegisterActivity(a interface{}) }

func registerAll(w activityRegistry, sc *stripe.Client) {
	w.RegisterActivity(capture)
}

// capture takes an invoice's payment.
func capture(ctx context.Context, sc *stripe.Client, in ChargeInput) error {
	return chargeOnce(ctx, sc, uuid.NewString()) // want `inside the activity capture`
}

// A plain function making its key: whether it is run again is its
// caller's business.
func captureOnce(ctx context.Context, sc *stripe.Client, in ChargeInput) error {
	return chargeOnce(ctx, sc, uuid.NewString())
}
