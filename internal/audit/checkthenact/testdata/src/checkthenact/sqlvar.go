package checkthenact

import (
	"context"
	"database/sql"
	"errors"
)

// Statements kept in package variables, as repositories keep their SQL.
var (
	findInboxSQL   = `SELECT 1 FROM inbox WHERE message_id = $1`
	insertInboxSQL = `INSERT INTO inbox (message_id) VALUES ($1)`
	claimInboxSQL  = `INSERT INTO inbox (message_id) VALUES ($1) ` +
		`ON CONFLICT (message_id) DO NOTHING`
)

type inboxSink interface {
	Apply(ctx context.Context, id string) error
}

// inboxByVar checks, applies, then inserts, each statement from a
// variable: two deliveries both find nothing.
func inboxByVar(ctx context.Context, db *sql.DB, sink inboxSink, id string) error {
	var one int
	err := db.QueryRowContext(ctx, findInboxSQL, id).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err := sink.Apply(ctx, id); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, insertInboxSQL, id) // want `INSERT into inbox after the SELECT at sqlvar.go:\d+ races with a concurrent retry`
	return err
}

// inboxClaimByVar takes the row first with the upsert held in a
// variable, and applies only when it inserted.
func inboxClaimByVar(ctx context.Context, db *sql.DB, sink inboxSink, id string) error {
	var one int
	if err := db.QueryRowContext(ctx, findInboxSQL, id).Scan(&one); err == nil {
		return nil
	}
	q := claimInboxSQL
	res, err := db.ExecContext(ctx, q, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	return sink.Apply(ctx, id)
}
