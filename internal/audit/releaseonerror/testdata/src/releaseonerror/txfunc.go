package releaseonerror

import (
	"context"
	"database/sql"
)

// prepareTx begins a transaction and returns its commit and rollback.
func prepareTx(ctx context.Context, db *sql.DB) (*sql.Tx, func(context.Context) error, func(), error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return tx, func(context.Context) error { return tx.Commit() }, func() { _ = tx.Rollback() }, nil
}

// The claim is a row of the transaction the deferred rollback undoes: an
// error return before the commit gives it back.
func createRunsTx(ctx context.Context, db *sql.DB, key string, work func(*sql.Tx) error) error {
	tx, commit, rollback, err := prepareTx(ctx, db)
	if err != nil {
		return err
	}
	defer rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := work(tx); err != nil {
		return err
	}
	return commit(ctx)
}

// The same claim made outside the transaction: its rollback undoes nothing
// of it.
func createRunsOutside(ctx context.Context, db *sql.DB, key string, work func(*sql.Tx) error) error {
	tx, commit, rollback, err := prepareTx(ctx, db)
	if err != nil {
		return err
	}
	defer rollback()
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := work(tx); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into idempotency_keys at txfunc.go:\d+ held`
	}
	return commit(ctx)
}
