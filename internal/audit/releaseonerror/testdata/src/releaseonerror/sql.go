package releaseonerror

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
)

var errDuplicate = errors.New("duplicate")

func ship(ctx context.Context, orderID string) error { return nil }

func reserve(ctx context.Context, db *sql.DB, key, orderID string) error {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errDuplicate
	}
	if err := ship(ctx, orderID); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into idempotency_keys at sql.go:16 held: every retry is refused as in progress until its TTL or lease runs out; defer a DELETE of the row from idempotency_keys right after the claim \(or claim inside a transaction with a deferred Rollback\), or delete it before returning \(releaseonerror\)`
	}
	_, err = db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done', response = $2 WHERE key = $1`, key, "{}")
	return err
}

const claimEvent = `INSERT INTO processed_events (event_id, state) VALUES ($1, $2) ON CONFLICT DO NOTHING`

func handleEvent(ctx context.Context, conn *pgx.Conn, eventID string) error {
	tag, err := conn.Exec(ctx, claimEvent, eventID, "processing")
	if err != nil {
		return err
	}
	if tag.RowsAffected() < 1 {
		return nil
	}
	if err := ship(ctx, eventID); err != nil {
		return err // want `claimed by INSERT into processed_events at sql.go:33 held`
	}
	_, err = conn.Exec(ctx, `UPDATE processed_events SET state = 'done' WHERE event_id = $1`, eventID)
	return err
}

// Negatives.

func reserveReleasing(ctx context.Context, db *sql.DB, key, orderID string) error {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errDuplicate
	}
	if err := ship(ctx, orderID); err != nil {
		if _, derr := db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE key = $1`, key); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	_, err = db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done', response = $2 WHERE key = $1`, key, "{}")
	return err
}

// The claim rolls back with the transaction on every failure.
func reserveInTx(ctx context.Context, db *sql.DB, key, orderID string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'pending')`, key); err != nil {
		return errDuplicate // the unique key is taken: the claim failed
	}
	if err := ship(ctx, orderID); err != nil {
		return err
	}
	return tx.Commit()
}

func handleEventInTx(ctx context.Context, conn *pgx.Conn, eventID string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, claimEvent, eventID, "processing")
	if err != nil {
		tx.Rollback(ctx)
		return err
	}
	if tag.RowsAffected() == 0 {
		return tx.Rollback(ctx)
	}
	if err := ship(ctx, eventID); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// Recording an event as processed is the record, not a claim: a failure
// after it is checkthenact's and the design's business, not a held key.
func markThenShip(ctx context.Context, db *sql.DB, eventID string) error {
	if _, err := db.ExecContext(ctx, `INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING`, eventID); err != nil {
		return err
	}
	return ship(ctx, eventID)
}

// An INSERT ... ON CONFLICT DO NOTHING of an in-progress row claims the
// key whatever the table is called.
func requestPayout(ctx context.Context, conn *pgx.Conn, key, payout string) error {
	tag, err := conn.Exec(ctx, `INSERT INTO payout_requests (key, payout_id, status) VALUES ($1, $2, 'in_progress') ON CONFLICT (key) DO NOTHING`, key, payout)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errDuplicate
	}
	if err := ship(ctx, payout); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into payout_requests at sql.go:115 held`
	}
	_, err = conn.Exec(ctx, `UPDATE payout_requests SET status = 'sent' WHERE key = $1`, key)
	return err
}

// A session advisory lock stays held on the pooled connection until it
// is unlocked.
func rebuildReport(ctx context.Context, db *sql.DB, report int64) error {
	var locked bool
	if err := db.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, report).Scan(&locked); err != nil {
		return err
	}
	if !locked {
		return errDuplicate
	}
	if err := ship(ctx, "report"); err != nil {
		return err // want `this error return leaves the key claimed by pg_advisory_lock at sql.go:\d+ held: .* defer the SELECT pg_advisory_unlock`
	}
	_, err := db.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, report)
	return err
}

// Negative: the unlock is deferred; and a transaction-level lock ends
// with its transaction.
func rebuildReportDeferred(ctx context.Context, db *sql.DB, report int64) error {
	var locked bool
	if err := db.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, report).Scan(&locked); err != nil || !locked {
		return err
	}
	defer db.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, report)
	return ship(ctx, "report")
}

func rebuildInTx(ctx context.Context, tx *sql.Tx, report int64) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, report); err != nil {
		return err
	}
	return ship(ctx, "report")
}
