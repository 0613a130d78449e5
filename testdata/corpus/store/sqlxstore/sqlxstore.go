// Package sqlxstore implements billing's RefundLedger on sqlx. It imports
// billing, which declares the interface it satisfies.
package sqlxstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"example.com/corpus/billing"
)

// RefundLedger keeps the refunds table.
type RefundLedger struct {
	db *sqlx.DB
}

// NewRefundLedger returns a RefundLedger on db.
func NewRefundLedger(db *sqlx.DB) *RefundLedger { return &RefundLedger{db: db} }

var _ billing.RefundLedger = (*RefundLedger)(nil)

// RefundForOrder returns the order's refund, or nil.
func (l *RefundLedger) RefundForOrder(ctx context.Context, orderID string) (*billing.Refund, error) {
	var r billing.Refund
	err := l.db.GetContext(ctx, &r,
		`SELECT id, order_id, amount_cents, reason, stripe_refund_id, created_at
		 FROM refunds WHERE order_id = $1`, orderID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refund for order: %w", err)
	}
	return &r, nil
}

// RecordRefund writes one refund row.
func (l *RefundLedger) RecordRefund(ctx context.Context, r billing.Refund) error {
	_, err := l.db.NamedExecContext(ctx,
		`INSERT INTO refunds (order_id, amount_cents, reason, stripe_refund_id)
		 VALUES (:order_id, :amount_cents, :reason, :stripe_refund_id)`, r)
	if err != nil {
		return fmt.Errorf("record refund: %w", err)
	}
	return nil
}

// RecordRefundOnce writes the refund unless the order has one.
func (l *RefundLedger) RecordRefundOnce(ctx context.Context, r billing.Refund) (bool, error) {
	res, err := l.db.NamedExecContext(ctx,
		`INSERT INTO refunds (order_id, amount_cents, reason, stripe_refund_id)
		 VALUES (:order_id, :amount_cents, :reason, :stripe_refund_id)
		 ON CONFLICT (order_id) DO NOTHING`, r)
	if err != nil {
		return false, fmt.Errorf("record refund: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// Chargeback is a dispute the card network opened on a charge.
type Chargeback struct {
	DisputeID   string `db:"dispute_id"`
	ChargeID    string `db:"charge_id"`
	AmountCents int64  `db:"amount_cents"`
}

// RecordChargeback books a dispute the network reported; the dispute feed
// delivers each dispute at least once.
//
// corpus: bug checkthenact
// modelled on: Nivl/go-rest-tools storage/db/sqlx/queryable.go (Get, Select and NamedExec over one sqlx handle)
func (l *RefundLedger) RecordChargeback(ctx context.Context, cb Chargeback) error {
	var seen []string
	if err := l.db.SelectContext(ctx, &seen,
		`SELECT dispute_id FROM chargebacks WHERE dispute_id = $1`, cb.DisputeID); err != nil {
		return fmt.Errorf("record chargeback: %w", err)
	}
	if len(seen) > 0 {
		return nil
	}
	if _, err := l.db.NamedExecContext(ctx,
		`INSERT INTO chargebacks (dispute_id, charge_id, amount_cents)
		 VALUES (:dispute_id, :charge_id, :amount_cents)`, cb); err != nil {
		return fmt.Errorf("record chargeback: %w", err)
	}
	return nil
}
