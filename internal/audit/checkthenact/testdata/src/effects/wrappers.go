package effects

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
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
	return w.exec(ctx, `INSERT INTO redemptions (code, user_id) VALUES ($1, $2)`, code, user) // want `INSERT into redemptions \(by exec, at wrappers.go:16\) after the SELECT in queryRow at wrappers.go:21, called at wrappers.go:27 races`
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
	return put(ctx, `INSERT INTO redemptions (code, user_id) VALUES ($1, $2)`, code, user) // want `INSERT into redemptions \(by exec, at wrappers.go:16\) after the SELECT in queryRow at wrappers.go:21, called at wrappers.go:\d+ races`
}

// refundKeyed posts a refund under an idempotency key made from id; its
// receiver runs it once per key.
func refundKeyed(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example/refunds", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", "refund-"+id)
	_, err = http.DefaultClient.Do(req)
	return err
}

// refundBare posts the same refund with no key.
func refundBare(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example/refunds?id="+id, nil)
	if err != nil {
		return err
	}
	_, err = http.DefaultClient.Do(req)
	return err
}

// RefundOnce checks a done mark, refunds under a key made from the same
// id, then marks: two racing retries refund once, at the payment API.
func (w *wrapped) RefundOnce(ctx context.Context, id string) error {
	var one int
	if err := w.queryRow(ctx, `SELECT 1 FROM refund_marks WHERE id = $1`, id).Scan(&one); err == nil {
		return nil
	}
	if err := refundKeyed(ctx, id); err != nil {
		return err
	}
	return w.exec(ctx, `INSERT INTO refund_marks (id) VALUES ($1) ON CONFLICT DO NOTHING`, id)
}

// RefundRacy does the same with a refund sent without a key: both racing
// retries refund.
func (w *wrapped) RefundRacy(ctx context.Context, id string) error {
	var one int
	if err := w.queryRow(ctx, `SELECT 1 FROM refund_marks WHERE id = $1`, id).Scan(&one); err == nil {
		return nil
	}
	if err := refundBare(ctx, id); err != nil {
		return err
	}
	return w.exec(ctx, `INSERT INTO refund_marks (id) VALUES ($1) ON CONFLICT DO NOTHING`, id) // want `http.Do runs after the SELECT in queryRow of refund_marks`
}
