// Package wave7cta is a travel shop's payment and notification side: a
// payment service that creates payments at a provider, an IPN handler,
// receipts sent through a mail provider and fulfilment workflows started
// from webhooks, each behind interfaces the service declares.
package wave7cta

import (
	"context"
	"database/sql"
	"errors"
)

// ErrNotFound is what the stores return for a key they do not hold.
var ErrNotFound = errors.New("wave7cta: not found")

// Payment is a payment the provider made for an order.
type Payment struct {
	ID      string
	OrderID string
	Status  string
}

// Provider is the payment service provider: CreatePayment opens a payment
// session, CreateCharge takes money from a saved card.
type Provider interface {
	CreatePayment(ctx context.Context, orderID string, paisa int64) (*Payment, error)
	CreateCharge(ctx context.Context, customerID string, paisa int64) (string, error)
}

// Mailer sends mail through the mail provider's API.
type Mailer interface {
	CreateMessage(ctx context.Context, to, subject, body string) (string, error)
}

// Workflows starts runs on the workflow engine.
type Workflows interface {
	Trigger(ctx context.Context, workflow, input string) (string, error)
}

// PaymentRepository keeps payments by order.
type PaymentRepository interface {
	Exists(ctx context.Context, orderID string) (bool, error)
	FindByOrder(ctx context.Context, orderID string) (*Payment, error)
	Save(ctx context.Context, orderID, paymentID string) error
	CreatePending(ctx context.Context, orderID string, paisa int64) (string, error)
	CreateIdempotent(ctx context.Context, orderID string, paisa int64) (string, bool, error)
}

// ChargeLog keeps the charges made per invoice.
type ChargeLog interface {
	GetCharge(ctx context.Context, invoiceID string) (string, error)
	Save(ctx context.Context, invoiceID, chargeID string) error
}

// Receipts keeps the receipts mailed per order.
type Receipts interface {
	Exists(ctx context.Context, orderID string) (bool, error)
	Save(ctx context.Context, orderID, messageID string) error
}

// Runs keeps the workflow runs started per webhook delivery.
type Runs interface {
	Exists(ctx context.Context, deliveryID string) (bool, error)
	Save(ctx context.Context, deliveryID, runID string) error
}

// Bookings keeps bookings, inside the caller's transaction.
type Bookings interface {
	Exists(ctx context.Context, tx *sql.Tx, orderID string) (bool, error)
	CreateBooking(ctx context.Context, tx *sql.Tx, orderID string, seats int) (string, error)
	Save(ctx context.Context, tx *sql.Tx, orderID, bookingID string) error
}
