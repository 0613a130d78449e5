package pgledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// BalanceSnapshot is one row of balance_history: an account's balance in
// an asset as a connector last reported it.
type BalanceSnapshot struct {
	AccountID   string
	Asset       string
	AmountMinor int64
	ReportedAt  time.Time
}

// RecordSnapshot keeps an account's balance history in tx: a report no
// newer than the last one is dropped, one with the same amount moves the
// last row's reported time on, and one with another amount appends a new
// row. The append runs only when the last snapshot was found, so it adds
// to a history that exists rather than creating a record two callers both
// missed.
//
// corpus: ok checkthenact
// modelled on: formancehq/payments internal/storage/balances.go (insertBalances: latest row by ORDER BY ... LIMIT 1, found flag, insert on a changed amount)
func RecordSnapshot(ctx context.Context, tx pgx.Tx, s BalanceSnapshot) error {
	var last BalanceSnapshot
	found := true
	err := tx.QueryRow(ctx,
		`SELECT account_id, asset, amount_minor, reported_at FROM balance_history
		 WHERE account_id = $1 AND asset = $2 ORDER BY reported_at DESC LIMIT 1`,
		s.AccountID, s.Asset).Scan(&last.AccountID, &last.Asset, &last.AmountMinor, &last.ReportedAt)
	if err != nil {
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("last snapshot: %w", err)
		}
		found = false
	}
	if !found {
		return nil // the first snapshot comes from the account's import, under its own claim
	}
	if last.ReportedAt.After(s.ReportedAt) {
		return nil
	}
	switch {
	case found && last.AmountMinor == s.AmountMinor:
		_, err = tx.Exec(ctx,
			`UPDATE balance_history SET reported_at = $3 WHERE account_id = $1 AND asset = $2 AND reported_at = $4`,
			s.AccountID, s.Asset, s.ReportedAt, last.ReportedAt)
	case found && last.AmountMinor != s.AmountMinor:
		_, err = tx.Exec(ctx,
			`INSERT INTO balance_history (account_id, asset, amount_minor, reported_at) VALUES ($1, $2, $3, $4)`,
			s.AccountID, s.Asset, s.AmountMinor, s.ReportedAt)
	}
	if err != nil {
		return fmt.Errorf("record snapshot: %w", err)
	}
	return nil
}
