package releaseonerror

import (
	"context"
	"database/sql"
)

// The claim statement held in a constant or a package variable, as
// repositories keep their SQL, reads as the one written in the call.

const claimKeySQL = `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'processing') ON CONFLICT (key) DO NOTHING`

var claimKeyQuery = "INSERT INTO idempotency_keys (key, status) " +
	"VALUES ($1, 'processing') ON CONFLICT (key) DO NOTHING"

var releaseKeyQuery = `DELETE FROM idempotency_keys WHERE key = $1`

// Positive: the claim in a constant.
func claimByConst(ctx context.Context, db *sql.DB, key string) error {
	res, err := db.ExecContext(ctx, claimKeySQL, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := send(ctx, key); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into idempotency_keys at sqlvar.go:\d+ held`
	}
	return nil
}

// Positive: the claim in a package variable.
func claimByVar(ctx context.Context, db *sql.DB, key string) error {
	res, err := db.ExecContext(ctx, claimKeyQuery, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := send(ctx, key); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into idempotency_keys at sqlvar.go:\d+ held`
	}
	return nil
}

// Negative: the claim in a local variable, released by a statement in a
// package variable.
func claimByLocal(ctx context.Context, db *sql.DB, key string) error {
	q := claimKeyQuery
	res, err := db.ExecContext(ctx, q, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := send(ctx, key); err != nil {
		_, _ = db.ExecContext(ctx, releaseKeyQuery, key)
		return err
	}
	return nil
}
