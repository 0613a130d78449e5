package storefront

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// payment is a row of the payments table the pay endpoint fills in.
type payment struct {
	ID             string
	Customer       string
	AmountCents    int64
	IdempotencyKey string
}

// Charger charges recorded payments through Stripe, retrying on errors
// Stripe calls temporary.
type Charger struct {
	DB     *sql.DB
	Stripe *stripe.Client
}

func (c *Charger) load(ctx context.Context, id string) (*payment, error) {
	p := &payment{ID: id}
	err := c.DB.QueryRowContext(ctx,
		`SELECT customer, amount_cents, coalesce(idempotency_key, '') FROM payments WHERE id = $1`, id).
		Scan(&p.Customer, &p.AmountCents, &p.IdempotencyKey)
	return p, err
}

func (c *Charger) saveKey(ctx context.Context, id, key string) error {
	_, err := c.DB.ExecContext(ctx,
		`UPDATE payments SET idempotency_key = $2 WHERE id = $1 AND idempotency_key IS NULL`, id, key)
	return err
}

func (c *Charger) create(ctx context.Context, p *payment) error {
	params := &stripe.PaymentIntentCreateParams{
		Amount:   stripe.Int64(p.AmountCents),
		Currency: stripe.String("eur"),
		Customer: stripe.String(p.Customer),
	}
	params.SetIdempotencyKey(p.IdempotencyKey)
	_, err := c.Stripe.V1PaymentIntents.Create(ctx, params)
	return err
}

// chargeOnce loads the payment and gives it a key the first time,
// stored before Stripe is called, so every later attempt reads it back.
func (c *Charger) chargeOnce(ctx context.Context, id string) error {
	p, err := c.load(ctx, id)
	if err != nil {
		return err
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = uuid.NewString()
		if err := c.saveKey(ctx, p.ID, p.IdempotencyKey); err != nil {
			return err
		}
	}
	return c.create(ctx, p)
}

// chargeUnsaved gives the payment a key when it has none but never
// stores it: the next attempt loads the row again, finds no key, and
// draws another.
func (c *Charger) chargeUnsaved(ctx context.Context, id string) error {
	p, err := c.load(ctx, id)
	if err != nil {
		return err
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = uuid.NewString()
	}
	return c.create(ctx, p)
}

var errTemporary = errors.New("stripe: temporary")

// Charge retries chargeOnce; the key is the payment's, made on the first
// attempt and stored with it.
//
// corpus: ok attemptkey
// modelled on: Rjmoodie/yardpass-upgrade STRIPE_IDEMPOTENCY_AUDIT_RESULTS.md (keys sent to Stripe kept in a table so that a retry reuses them)
func (c *Charger) Charge(ctx context.Context, id string) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = c.chargeOnce(ctx, id); err == nil || !errors.Is(err, errTemporary) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}

// ChargeUnsaved retries chargeUnsaved, whose key is new on each attempt.
//
// corpus: bug attemptkey
// modelled on: Rjmoodie/yardpass-upgrade STRIPE_IDEMPOTENCY_AUDIT_RESULTS.md (keys sent to Stripe kept in a table so that a retry reuses them)
func (c *Charger) ChargeUnsaved(ctx context.Context, id string) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = c.chargeUnsaved(ctx, id); err == nil || !errors.Is(err, errTemporary) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}

// ChargeHeld fills in the key of a payment it holds across its attempts:
// only the first finds it empty.
//
// corpus: ok attemptkey
// modelled on: Rjmoodie/yardpass-upgrade STRIPE_IDEMPOTENCY_AUDIT_RESULTS.md (keys sent to Stripe kept in a table so that a retry reuses them)
func (c *Charger) ChargeHeld(ctx context.Context, p *payment) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if p.IdempotencyKey == "" {
			p.IdempotencyKey = uuid.NewString()
		}
		if err = c.create(ctx, p); err == nil || !errors.Is(err, errTemporary) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}
