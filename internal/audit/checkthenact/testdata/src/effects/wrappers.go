package effects

import (
	"context"
	"database/sql"
	"errors"
)

// A store whose statements all pass through two small helpers, as many
// services write them: the SQL lives at the call, the library call in
// the helper.
type wrapped struct{ db *sql.DB }

func (w *wrapped) exec(ctx context.Context, query string, args ...any) error {
	_, err := w.db.ExecContext(ctx, query, args...)
	return err
}

func (w *wrapped) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return w.db.QueryRowContext(ctx, query, args...)
}

// Redeem checks and writes through the helpers: a race all the same.
func (w *wrapped) Redeem(ctx context.Context, code, user string) error {
	var one int
	err := w.queryRow(ctx, `SELECT 1 FROM redemptions WHERE code = $1 AND user_id = $2`, code, user).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return w.exec(ctx, `INSERT INTO redemptions (code, user_id) VALUES ($1, $2)`, code, user) // want `INSERT into redemptions \(by exec, at wrappers.go:15\) after the SELECT in queryRow at wrappers.go:20, called at wrappers.go:26 races`
}

// RedeemOnce claims through the same helper: ON CONFLICT settles it.
func (w *wrapped) RedeemOnce(ctx context.Context, code, user string) error {
	var one int
	err := w.queryRow(ctx, `SELECT 1 FROM redemptions WHERE code = $1 AND user_id = $2`, code, user).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return w.exec(ctx, `INSERT INTO redemptions (code, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, code, user)
}

// Audit writes another table than it read: no race on one record.
func (w *wrapped) Audit(ctx context.Context, code, user string) error {
	var one int
	if err := w.queryRow(ctx, `SELECT 1 FROM redemptions WHERE code = $1`, code).Scan(&one); err != nil {
		return err
	}
	return w.exec(ctx, `INSERT INTO redemption_log (code, user_id) VALUES ($1, $2)`, code, user)
}

// Grant calls its store's insert through a method value: the same race.
func (w *wrapped) Grant(ctx context.Context, code, user string) error {
	var one int
	if err := w.queryRow(ctx, `SELECT 1 FROM redemptions WHERE code = $1 AND user_id = $2`, code, user).Scan(&one); err == nil {
		return nil
	}
	put := w.exec
	return put(ctx, `INSERT INTO redemptions (code, user_id) VALUES ($1, $2)`, code, user) // want `INSERT into redemptions \(by exec, at wrappers.go:15\) after the SELECT in queryRow at wrappers.go:20, called at wrappers.go:\d+ races`
}
