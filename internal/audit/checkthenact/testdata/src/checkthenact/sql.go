package checkthenact

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The classic: SELECT whether the event was processed, then INSERT it.
func consumeSQL(ctx context.Context, db *sql.DB, eventID string) error {
	var seen bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)`, eventID).Scan(&seen); err != nil {
		return err
	}
	if seen {
		return nil
	}
	_, err := db.ExecContext(ctx, `INSERT INTO processed_events (event_id, processed_at) VALUES ($1, now())`, eventID) // want `INSERT into processed_events after the SELECT at sql.go:14 races with a concurrent retry; use INSERT ... ON CONFLICT DO NOTHING and treat no row inserted as already done \(checkthenact\)`
	return err
}

// The fix: the INSERT is the check.
func consumeSQLOnConflict(ctx context.Context, db *sql.DB, eventID string) error {
	var seen bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)`, eventID).Scan(&seen); err != nil {
		return err
	}
	if seen {
		return nil
	}
	_, err := db.ExecContext(ctx, `INSERT INTO processed_events (event_id, processed_at) VALUES ($1, now()) ON CONFLICT (event_id) DO NOTHING`, eventID)
	return err
}

// FOR UPDATE locks rows that exist; two retries that find none both insert.
func claimForUpdate(ctx context.Context, pool *pgxpool.Pool, key string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var status string
	err = tx.QueryRow(ctx, "SELECT status FROM idempotency_keys WHERE key = $1 FOR UPDATE", key).Scan(&status)
	if err == pgx.ErrNoRows {
		_, err = tx.Exec(ctx, "INSERT INTO idempotency_keys (key, status) VALUES ($1, 'running') RETURNING key", key) // want `INSERT into idempotency_keys after the SELECT \.\.\. FOR UPDATE \(which cannot lock a row that does not exist yet\) at sql.go:45 races`
	}
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// A version column makes the UPDATE a compare-and-set.
func advanceVersioned(ctx context.Context, tx pgx.Tx, key string) error {
	var version int
	if err := tx.QueryRow(ctx, "SELECT version FROM idempotency_keys WHERE key = $1", key).Scan(&version); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE idempotency_keys SET status = 'running', version = version + 1 WHERE key = $1 AND version = $2", key, version)
	return err
}

// Without it, both retries read "pending" and both take the key.
func advanceBlind(ctx context.Context, tx pgx.Tx, key string) error {
	var status string
	if err := tx.QueryRow(ctx, "SELECT status FROM idempotency_keys WHERE key = $1", key).Scan(&status); err != nil {
		return err
	}
	if status != "pending" {
		return nil
	}
	_, err := tx.Exec(ctx, "UPDATE idempotency_keys SET status = 'running' WHERE key = $1", key) // want `UPDATE of idempotency_keys after the SELECT at sql.go:68 races with a concurrent retry; compare what was read`
	return err
}

// Any table races: two concurrent retries both count none and both insert.
func createOrder(ctx context.Context, db *sql.DB, id string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM orders WHERE id = $1", id).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO orders (id) VALUES ($1)", id) // want `INSERT into orders after the SELECT at sql.go:81 races`
	return err
}

// A payments table keyed by the client's idempotency key is a dedup table.
func createPayment(ctx context.Context, db *sql.DB, idempotencyKey string, amount int) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM payments WHERE idempotency_key = $1", idempotencyKey).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, insertPayment, idempotencyKey, amount) // want `INSERT into payments after the SELECT at sql.go:94 races`
	return err
}

const insertPayment = "INSERT INTO payments (idempotency_key, amount) VALUES ($1, $2)"

// The INSERT comes first and the SELECT reads back what it wrote.
func insertThenSelect(ctx context.Context, db *sql.DB, eventID string) error {
	if _, err := db.ExecContext(ctx, "INSERT INTO processed_events (event_id) VALUES ($1)", eventID); err != nil {
		return err
	}
	return db.QueryRowContext(ctx, "SELECT processed_at FROM processed_events WHERE event_id = $1", eventID).Err()
}

// The check and the write are on exclusive branches.
func eitherOr(ctx context.Context, db *sql.DB, eventID string, replay bool) error {
	if replay {
		return db.QueryRowContext(ctx, "SELECT 1 FROM processed_events WHERE event_id = $1", eventID).Err()
	}
	_, err := db.ExecContext(ctx, "INSERT INTO processed_events (event_id) VALUES ($1)", eventID)
	return err
}

// MySQL: the fix is not ours to write, the finding stands.
func consumeMySQL(ctx context.Context, db *sql.DB, eventID string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM webhook_inbox WHERE delivery_id = ?", eventID).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err := db.ExecContext(ctx, "INSERT INTO webhook_inbox (delivery_id) VALUES (?)", eventID) // want `INSERT into webhook_inbox after the SELECT at sql.go:126 races`
	return err
}

// MySQL done right.
func consumeMySQLIgnore(ctx context.Context, db *sql.DB, eventID string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM webhook_inbox WHERE delivery_id = ?", eventID).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err := db.ExecContext(ctx, "INSERT IGNORE INTO webhook_inbox (delivery_id) VALUES (?)", eventID)
	return err
}

// A finding the team has looked at.
func consumeIgnored(ctx context.Context, db *sql.DB, eventID string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM webhook_inbox WHERE delivery_id = ?", eventID).Scan(&n); err != nil || n > 0 {
		return err
	}
	//idemkit:ignore checkthenact the unique index on delivery_id turns the race into an error the caller retries
	_, err := db.ExecContext(ctx, "INSERT INTO webhook_inbox (delivery_id) VALUES (?)", eventID)
	return err
}
