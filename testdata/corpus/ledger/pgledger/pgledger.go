// Package pgledger implements the ledger's repositories on pgx v5. A
// transaction begun by WithTx travels in the context, and every query runs
// on it when it is there.
package pgledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"example.com/corpus/ledger"
)

type txKey struct{}

// querier is what a pool and a transaction share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store implements ledger.EntryRepository, ledger.TxManager and
// ledger.IdempotencyStore.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a Store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

var (
	_ ledger.EntryRepository  = (*Store)(nil)
	_ ledger.TxManager        = (*Store)(nil)
	_ ledger.IdempotencyStore = (*Store)(nil)
)

func (s *Store) q(ctx context.Context) querier {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return s.pool
}

// WithTx runs fn in a transaction that the repositories pick up from ctx.
func (s *Store) WithTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
}

const entryCols = `id, reference, debit_acct, credit_acct, amount_minor, currency, status, posted_at`

func scanEntry(row pgx.Row) (*ledger.Entry, error) {
	var e ledger.Entry
	err := row.Scan(&e.ID, &e.Reference, &e.DebitAcct, &e.CreditAcct, &e.AmountMinor, &e.Currency, &e.Status, &e.PostedAt)
	return &e, err
}

// FindByReference implements ledger.EntryRepository.
func (s *Store) FindByReference(ctx context.Context, ref string) (*ledger.Entry, error) {
	e, err := scanEntry(s.q(ctx).QueryRow(ctx,
		`SELECT `+entryCols+` FROM ledger_entries WHERE reference = $1`, ref))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &ledger.NotFoundError{Kind: "entry", Key: ref}
	}
	if err != nil {
		return nil, fmt.Errorf("select entry: %w", err)
	}
	return e, nil
}

// ListByReference implements ledger.EntryRepository.
func (s *Store) ListByReference(ctx context.Context, ref string) ([]ledger.Entry, error) {
	rows, err := s.q(ctx).Query(ctx, `SELECT `+entryCols+` FROM ledger_entries WHERE reference = $1`, ref)
	if err != nil {
		return nil, fmt.Errorf("select entries: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ledger.Entry, error) {
		e, err := scanEntry(row)
		if err != nil {
			return ledger.Entry{}, err
		}
		return *e, nil
	})
}

// StatusOf implements ledger.EntryRepository.
func (s *Store) StatusOf(ctx context.Context, ref string) (string, error) {
	var status string
	err := s.q(ctx).QueryRow(ctx, `SELECT status FROM ledger_entries WHERE reference = $1`, ref).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return status, err
}

// Insert implements ledger.EntryRepository.
func (s *Store) Insert(ctx context.Context, e *ledger.Entry) error {
	err := s.q(ctx).QueryRow(ctx,
		`INSERT INTO ledger_entries (reference, debit_acct, credit_acct, amount_minor, currency, status, posted_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		e.Reference, e.DebitAcct, e.CreditAcct, e.AmountMinor, e.Currency, e.Status, e.PostedAt).Scan(&e.ID)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return ledger.ErrDuplicateReference
	}
	return err
}

// Claim implements ledger.IdempotencyStore.
func (s *Store) Claim(ctx context.Context, key, fingerprint string) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO ledger_idempotency (key, fingerprint, status) VALUES ($1, $2, 'in_progress')
		 ON CONFLICT (key) DO NOTHING`, key, fingerprint)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// Release implements ledger.IdempotencyStore.
func (s *Store) Release(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM ledger_idempotency WHERE key = $1 AND status = 'in_progress'`, key)
	return err
}

// Complete implements ledger.IdempotencyStore.
func (s *Store) Complete(ctx context.Context, key string, code int, body []byte) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE ledger_idempotency SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, code, body)
	return err
}

// MarkDone implements ledger.IdempotencyStore.
func (s *Store) MarkDone(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `UPDATE ledger_idempotency SET status = 'completed' WHERE key = $1`, key)
	return err
}

// Lookup implements ledger.IdempotencyStore.
func (s *Store) Lookup(ctx context.Context, key string) (*ledger.StoredResponse, error) {
	var st ledger.StoredResponse
	err := s.pool.QueryRow(ctx,
		`SELECT status, coalesce(response_code, 0), response_body FROM ledger_idempotency WHERE key = $1`, key).
		Scan(&st.Status, &st.Code, &st.Body)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
