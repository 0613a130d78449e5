// Package billing charges customers through Stripe, refunds them, and pays
// out connected accounts through the payouts API of the bank partner. It
// declares the ledgers it needs as interfaces; store/sqlxstore and
// store/goqustore implement them.
package billing

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/doug-martin/goqu/v9"
	pgxpool4 "github.com/jackc/pgx/v4/pgxpool"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stripe/stripe-go/v82"

	"example.com/corpus/db"
)

// Refund is one refund of an order, as the ledger keeps it.
type Refund struct {
	ID             string    `db:"id"`
	OrderID        string    `db:"order_id"`
	AmountCents    int64     `db:"amount_cents"`
	Reason         string    `db:"reason"`
	StripeRefundID string    `db:"stripe_refund_id"`
	CreatedAt      time.Time `db:"created_at"`
}

// Payout is one payout of an account's balance for a period.
type Payout struct {
	ID             string `db:"id"`
	AccountID      string `db:"account_id"`
	Period         string `db:"period"`
	AmountCents    int64  `db:"amount_cents"`
	Status         string `db:"status"`
	IdempotencyKey string `db:"idempotency_key"`
}

// ErrDuplicatePayout is returned by PayoutLedger.InsertPayout when the
// account already has a payout for the period.
var ErrDuplicatePayout = errors.New("billing: payout exists for period")

// RefundLedger keeps the refunds table.
type RefundLedger interface {
	// RefundForOrder returns the order's refund, or nil when it has none.
	RefundForOrder(ctx context.Context, orderID string) (*Refund, error)
	// RecordRefund writes a refund row.
	RecordRefund(ctx context.Context, r Refund) error
	// RecordRefundOnce writes the refund unless the order has one, and
	// reports whether it wrote it.
	RecordRefundOnce(ctx context.Context, r Refund) (bool, error)
}

// PayoutLedger keeps the payouts table.
type PayoutLedger interface {
	// FindPayout returns the account's payout for period, if any.
	FindPayout(ctx context.Context, accountID, period string) (*Payout, bool, error)
	// InsertPayout writes a payout row; ErrDuplicatePayout when the
	// account already has one for the period.
	InsertPayout(ctx context.Context, p Payout) error
}

// Service is the billing service.
type Service struct {
	stripe     *stripe.Client
	sqlDB      *sql.DB
	pool       *pgxpool.Pool
	pool4      *pgxpool4.Pool
	gq         *goqu.Database
	q          *db.Queries
	refunds    RefundLedger
	payouts    PayoutLedger
	http       *http.Client
	payoutsURL string
}

// New returns a Service.
func New(sc *stripe.Client, sqlDB *sql.DB, pool *pgxpool.Pool, pool4 *pgxpool4.Pool,
	refunds RefundLedger, payouts PayoutLedger, hc *http.Client, payoutsURL string) *Service {
	return &Service{
		stripe: sc, sqlDB: sqlDB, pool: pool, pool4: pool4,
		gq: goqu.New("postgres", sqlDB), q: db.New(pool),
		refunds: refunds, payouts: payouts, http: hc, payoutsURL: payoutsURL,
	}
}

// errRetryable marks a payouts API answer worth retrying.
var errRetryable = errors.New("payouts api: retryable")

// postPayout sends one payout instruction to the partner's API under key.
func (s *Service) postPayout(ctx context.Context, body []byte, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.payoutsURL+"/v2/payouts", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", errRetryable, err)
	}
	defer resp.Body.Close()
	return classify(resp)
}

// classify turns the partner's status code into an error.
func classify(resp *http.Response) error {
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("%w: status %d", errRetryable, resp.StatusCode)
	default:
		return fmt.Errorf("payouts api: status %d", resp.StatusCode)
	}
}

// pause sleeps before retry number attempt, or returns early when ctx ends.
func pause(ctx context.Context, attempt int) error {
	t := time.NewTimer(time.Duration(1<<attempt) * 200 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
