package sqlinbox

import (
	"context"
	"database/sql"
	"fmt"
)

// Payer charges orders.
type Payer interface {
	Charge(ctx context.Context, orderID string, cents int64) error
}

// Orders pays pending orders.
type Orders struct {
	db  *sql.DB
	pay Payer
}

// Pay reads the order to skip one not pending, moves it from pending to
// processing with a guarded UPDATE whose row count decides, charges, and
// moves it back to pending when the charge fails, so that a retry can
// take it again.
//
// corpus: ok releaseonerror
// modelled on: riverqueue/river riverdriver/riverpgxv5/internal/dbsqlc/river_job.sql (a job moved to running only from available, by a guarded UPDATE), for an order's status
func (o *Orders) Pay(ctx context.Context, orderID string) error {
	var status string
	var cents int64
	if err := o.db.QueryRowContext(ctx, `SELECT status, cents FROM orders WHERE id = $1`, orderID).Scan(&status, &cents); err != nil {
		return err
	}
	if status != "pending" {
		return nil
	}
	res, err := o.db.ExecContext(ctx, `UPDATE orders SET status = 'processing' WHERE id = $1 AND status = 'pending'`, orderID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if err := o.pay.Charge(ctx, orderID, cents); err != nil {
		_, _ = o.db.ExecContext(context.WithoutCancel(ctx), `UPDATE orders SET status = 'pending' WHERE id = $1 AND status = 'processing'`, orderID)
		return fmt.Errorf("charge order %s: %w", orderID, err)
	}
	_, err = o.db.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1`, orderID)
	return err
}
