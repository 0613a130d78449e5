// Package goqustore implements billing's PayoutLedger with goqu. It
// imports billing, which declares the interface it satisfies.
package goqustore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/doug-martin/goqu/v9"
	_ "github.com/doug-martin/goqu/v9/dialect/postgres"
	"github.com/lib/pq"

	"example.com/corpus/billing"
)

// PayoutLedger keeps the payouts table.
type PayoutLedger struct {
	db *goqu.Database
}

// NewPayoutLedger returns a PayoutLedger on db.
func NewPayoutLedger(db *sql.DB) *PayoutLedger {
	return &PayoutLedger{db: goqu.New("postgres", db)}
}

var _ billing.PayoutLedger = (*PayoutLedger)(nil)

// FindPayout returns the account's payout for period.
func (l *PayoutLedger) FindPayout(ctx context.Context, accountID, period string) (*billing.Payout, bool, error) {
	var p billing.Payout
	found, err := l.db.From("payouts").
		Where(goqu.Ex{"account_id": accountID, "period": period}).
		ScanStructContext(ctx, &p)
	if err != nil {
		return nil, false, fmt.Errorf("find payout: %w", err)
	}
	return &p, found, nil
}

// InsertPayout writes one payout row; the unique index on
// (account_id, period) turns a second one into ErrDuplicatePayout.
func (l *PayoutLedger) InsertPayout(ctx context.Context, p billing.Payout) error {
	_, err := l.db.Insert("payouts").Rows(goqu.Record{
		"account_id":      p.AccountID,
		"period":          p.Period,
		"amount_cents":    p.AmountCents,
		"status":          "pending",
		"idempotency_key": p.IdempotencyKey,
	}).Executor().ExecContext(ctx)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return billing.ErrDuplicatePayout
	}
	if err != nil {
		return fmt.Errorf("insert payout: %w", err)
	}
	return nil
}
