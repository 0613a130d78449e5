// Package payments receives payment webhooks. It is a fixture of the end-to-end
// test of go vet -vettool=idemkit: a line that ends in "// finding: NAME" is
// where analyzer NAME must report, and nowhere else may any analyzer report.
package payments

import (
	"context"
	"database/sql"
)

// HandleEvent checks whether the event was processed, then records it: two
// concurrent deliveries of one event both get past the check.
func HandleEvent(ctx context.Context, db *sql.DB, eventID string) error {
	var seen bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)`, eventID).Scan(&seen); err != nil {
		return err
	}
	if seen {
		return nil
	}
	_, err := db.ExecContext(ctx, `INSERT INTO processed_events (event_id) VALUES ($1)`, eventID) // finding: checkthenact
	return err
}

// RecordEvent is the same done right: the INSERT is the check, and no row
// inserted means another delivery got there first.
func RecordEvent(ctx context.Context, db *sql.DB, eventID string) (first bool, err error) {
	res, err := db.ExecContext(ctx, `INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING`, eventID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
