package pgledger

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// StatementLine is one line of a bank statement file.
type StatementLine struct {
	BankRef     string
	AccountID   string
	AmountMinor int64
	BookedAt    time.Time
}

// ImportLines imports a bank statement's lines, skipping the lines already
// imported. The existence checks go out in one batch, the inserts of the
// new lines in a second one.
//
// corpus: bug checkthenact
// modelled on: ari-ahm/bale_kamp awesomeProject/main/main.go (statements queued on a pgx.Batch with a callback per row, then SendBatch)
func (s *Store) ImportLines(ctx context.Context, lines []StatementLine) (int, error) {
	seen := make([]bool, len(lines))
	check := &pgx.Batch{}
	for i, l := range lines {
		check.Queue(`SELECT EXISTS (SELECT 1 FROM bank_lines WHERE bank_ref = $1)`, l.BankRef).
			QueryRow(func(row pgx.Row) error { return row.Scan(&seen[i]) })
	}
	if err := s.pool.SendBatch(ctx, check).Close(); err != nil {
		return 0, fmt.Errorf("check lines: %w", err)
	}
	insert := &pgx.Batch{}
	n := 0
	for i, l := range lines {
		if seen[i] {
			continue
		}
		insert.Queue(`INSERT INTO bank_lines (bank_ref, account_id, amount_minor, booked_at) VALUES ($1, $2, $3, $4)`,
			l.BankRef, l.AccountID, l.AmountMinor, l.BookedAt)
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if err := s.pool.SendBatch(ctx, insert).Close(); err != nil {
		return 0, fmt.Errorf("insert lines: %w", err)
	}
	return n, nil
}

// ImportLinesOnce imports a bank statement's lines in one batch of inserts
// that skip a bank reference already imported, and counts what went in.
//
// corpus: ok checkthenact
// modelled on: ari-ahm/bale_kamp awesomeProject/main/main.go (statements queued on a pgx.Batch with a callback per row, then SendBatch)
func (s *Store) ImportLinesOnce(ctx context.Context, lines []StatementLine) (int, error) {
	b := &pgx.Batch{}
	n := 0
	for _, l := range lines {
		b.Queue(`INSERT INTO bank_lines (bank_ref, account_id, amount_minor, booked_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (bank_ref) DO NOTHING`, l.BankRef, l.AccountID, l.AmountMinor, l.BookedAt).
			Exec(func(tag pgconn.CommandTag) error {
				n += int(tag.RowsAffected())
				return nil
			})
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("insert lines: %w", err)
	}
	return n, nil
}
