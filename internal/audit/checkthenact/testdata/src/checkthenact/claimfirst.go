package checkthenact

import (
	"context"
	"database/sql"
	"errors"
)

type inbox struct {
	db     *sql.DB
	handle func(ctx context.Context, id string) error
}

// consume reads the event's status to skip the common duplicate, claims
// it with INSERT ... ON CONFLICT DO NOTHING, and goes on only when the
// insert took a row: the claim decides.
func (b *inbox) consume(ctx context.Context, id string) error {
	var status string
	err := b.db.QueryRowContext(ctx, `SELECT status FROM inbox_events WHERE event_id = $1`, id).Scan(&status)
	if err == nil && status == "done" {
		return nil
	}
	res, err := b.db.ExecContext(ctx, `INSERT INTO inbox_events (event_id, status) VALUES ($1, 'running') ON CONFLICT (event_id) DO NOTHING`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := b.handle(ctx, id); err != nil {
		b.db.ExecContext(ctx, `DELETE FROM inbox_events WHERE event_id = $1`, id)
		return err
	}
	_, err = b.db.ExecContext(ctx, `UPDATE inbox_events SET status = 'done' WHERE event_id = $1`, id)
	return err
}

// consumeUnchecked claims but never looks at whether the insert took a
// row: every caller that passed the read handles the event.
func (b *inbox) consumeUnchecked(ctx context.Context, id string) error {
	var status string
	err := b.db.QueryRowContext(ctx, `SELECT status FROM inbox_events WHERE event_id = $1`, id).Scan(&status)
	if err == nil && status == "done" {
		return nil
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO inbox_events (event_id, status) VALUES ($1, 'running') ON CONFLICT (event_id) DO NOTHING`, id); err != nil {
		return err
	}
	if err := b.handle(ctx, id); err != nil {
		return err
	}
	_, err = b.db.ExecContext(ctx, `UPDATE inbox_events SET status = 'done' WHERE event_id = $1`, id) // want `UPDATE of inbox_events after the SELECT at claimfirst.go:\d+ races with a concurrent retry`
	return err
}

// errUniqueViolation stands for the driver's unique-constraint error.
var errUniqueViolation = errors.New("duplicate key value violates unique constraint")

func isUniqueViolation(err error) bool { return errors.Is(err, errUniqueViolation) }

// consumeInserted claims with a plain INSERT whose unique violation means
// another delivery took the event: the constraint decides.
func (b *inbox) consumeInserted(ctx context.Context, id string) error {
	var status string
	if err := b.db.QueryRowContext(ctx, `SELECT status FROM inbox_events WHERE event_id = $1`, id).Scan(&status); err == nil && status == "done" {
		return nil
	}
	_, err := b.db.ExecContext(ctx, `INSERT INTO inbox_events (event_id, status) VALUES ($1, 'running')`, id)
	if isUniqueViolation(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := b.handle(ctx, id); err != nil {
		b.db.ExecContext(ctx, `DELETE FROM inbox_events WHERE event_id = $1`, id)
		return err
	}
	_, err = b.db.ExecContext(ctx, `UPDATE inbox_events SET status = 'done' WHERE event_id = $1`, id)
	return err
}

// orderPayments charges for orders.
type orderPayments interface {
	Charge(ctx context.Context, orderID string, cents int64) error
}

type orderDesk struct {
	db  *sql.DB
	pay orderPayments
}

// payOrder reads the order to skip one not pending, moves it from pending
// to processing with a guarded UPDATE whose row count decides, charges,
// and on failure moves it back: the guarded UPDATE, not the read, lets
// one caller through, and the move back is a release.
func (d *orderDesk) payOrder(ctx context.Context, id string) error {
	var status string
	var cents int64
	if err := d.db.QueryRowContext(ctx, `SELECT status, cents FROM orders WHERE id = $1`, id).Scan(&status, &cents); err != nil {
		return err
	}
	if status != "pending" {
		return nil
	}
	res, err := d.db.ExecContext(ctx, `UPDATE orders SET status = 'processing' WHERE id = $1 AND status = 'pending'`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := d.pay.Charge(ctx, id, cents); err != nil {
		d.db.ExecContext(context.WithoutCancel(ctx), `UPDATE orders SET status = 'pending' WHERE id = $1 AND status = 'processing'`, id)
		return err
	}
	_, err = d.db.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1`, id)
	return err
}
