package pgledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrConflict says the account changed under a versioned update.
var ErrConflict = errors.New("pgledger: account changed concurrently")

// feeCharge is one row of fee_charges.
type feeCharge struct {
	InvoiceID   string    `db:"invoice_id"`
	AmountMinor int64     `db:"amount_minor"`
	ChargedAt   time.Time `db:"charged_at"`
}

// ApplyInterest adds a month's interest to an account's balance. The
// account row exists; the write is guarded by its version column.
//
// corpus: ok checkthenact
// modelled on: Revazashvili/ecommerce-inventory-management stock/database/query.sql (UpdateStockReserve: version = version+1 WHERE id AND version)
func (s *Store) ApplyInterest(ctx context.Context, accountID string, rateBP int64) error {
	var balance int64
	var version int
	if err := s.pool.QueryRow(ctx,
		`SELECT balance_minor, version FROM accounts WHERE id = $1`, accountID).Scan(&balance, &version); err != nil {
		return fmt.Errorf("select account: %w", err)
	}
	interest := balance * rateBP / 10000
	tag, err := s.pool.Exec(ctx,
		`UPDATE accounts SET balance_minor = $1, version = version + 1 WHERE id = $2 AND version = $3`,
		balance+interest, accountID, version)
	if err != nil {
		return fmt.Errorf("update account: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrConflict
	}
	return nil
}

// PostUnderAccountLock posts an entry for a reference once. The debit
// account's row, which exists, is locked first, and every posting against
// the account takes the same lock, so the lookup and the insert cannot
// interleave with another posting's.
//
// corpus: ok checkthenact
// modelled on: hervibest/tablelink internal/repository/repository.go (BeginTx helper around a pgx transaction)
func (s *Store) PostUnderAccountLock(ctx context.Context, ref, debit, credit string, amount int64) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, debit).Scan(&id); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx,
			`SELECT count(*) FROM ledger_entries WHERE reference = $1`, ref).Scan(&n); err != nil {
			return fmt.Errorf("count entries: %w", err)
		}
		if n > 0 {
			return nil
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO ledger_entries (reference, debit_acct, credit_acct, amount_minor, currency, status, posted_at)
			 VALUES ($1, $2, $3, $4, 'EUR', 'posted', now())`, ref, debit, credit, amount)
		return err
	})
}

// ChargeFee records the monthly fee for an invoice once.
//
// corpus: bug checkthenact
// modelled on: hatena/go-Intern-Bookmark model/error.go (a not-found error told apart from the others)
func (s *Store) ChargeFee(ctx context.Context, invoiceID string, amount int64) (*feeCharge, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT invoice_id, amount_minor, charged_at FROM fee_charges WHERE invoice_id = $1`, invoiceID)
	if err != nil {
		return nil, fmt.Errorf("select fee: %w", err)
	}
	fc, err := pgx.CollectOneRow(rows, pgx.RowToStructByName[feeCharge])
	if err == nil {
		return &fc, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("collect fee: %w", err)
	}
	fc = feeCharge{InvoiceID: invoiceID, AmountMinor: amount, ChargedAt: time.Now()}
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO fee_charges (invoice_id, amount_minor, charged_at) VALUES ($1, $2, $3)`,
		fc.InvoiceID, fc.AmountMinor, fc.ChargedAt); err != nil {
		return nil, fmt.Errorf("insert fee: %w", err)
	}
	return &fc, nil
}

// ChargeFeeOnce records the monthly fee for an invoice once, in one
// statement that inserts only when no row exists; the unique index on
// invoice_id turns a concurrent twin into a duplicate error, taken as
// "already charged".
//
// corpus: ok checkthenact
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (a seed row inserted only when absent)
func (s *Store) ChargeFeeOnce(ctx context.Context, invoiceID string, amount int64) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO fee_charges (invoice_id, amount_minor, charged_at)
		 SELECT $1, $2, now()
		 WHERE NOT EXISTS (SELECT 1 FROM fee_charges WHERE invoice_id = $1)`, invoiceID, amount)
	if isUniqueViolation(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("insert fee: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// OpenStatement opens the month's statement for an account once, holding
// a transaction-scoped advisory lock on the account and month across the
// lookup and the insert.
//
// corpus: ok checkthenact
// modelled on: coder/coder coderd/database/queries/lock.sql (pg_advisory_xact_lock held to the end of the transaction)
func (s *Store) OpenStatement(ctx context.Context, accountID, month string) error {
	return s.WithTx(ctx, func(ctx context.Context) error {
		q := s.q(ctx)
		if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "statement:"+accountID+":"+month); err != nil {
			return fmt.Errorf("advisory lock: %w", err)
		}
		var exists bool
		if err := q.QueryRow(ctx,
			`SELECT EXISTS (SELECT 1 FROM statements WHERE account_id = $1 AND month = $2)`,
			accountID, month).Scan(&exists); err != nil {
			return fmt.Errorf("statement exists: %w", err)
		}
		if exists {
			return nil
		}
		_, err := q.Exec(ctx, `INSERT INTO statements (account_id, month, opened_at) VALUES ($1, $2, now())`, accountID, month)
		return err
	})
}
