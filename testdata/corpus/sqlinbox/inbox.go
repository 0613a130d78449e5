// Package sqlinbox consumes events through an inbox table: a fast-path
// read of the event's status, an insert that claims it, the handler,
// and a status update.
package sqlinbox

import (
	"context"
	"database/sql"
)

// Event is one delivery from the broker.
type Event struct {
	ID      string
	Payload []byte
}

// Ledger posts the entries an event asks for.
type Ledger interface {
	PostEntry(ctx context.Context, eventID string, payload []byte) error
}

// Inbox records the events it has consumed.
type Inbox struct {
	db     *sql.DB
	ledger Ledger
}

// Consume skips an event already done, claims it with INSERT ... ON
// CONFLICT DO NOTHING, posts its entry only when the insert took the row, and
// marks it done: the claim, not the read, lets one delivery through.
//
// corpus: ok checkthenact
// modelled on: Chengxufeng1994/event-driven-arch-in-go internal/tm/inbox_middleware.go (the inbox row inserted before the handler, a duplicate skipped), with a status read first to skip duplicates cheaply
func (in *Inbox) Consume(ctx context.Context, ev Event) error {
	var status string
	err := in.db.QueryRowContext(ctx, `SELECT status FROM inbox WHERE event_id = $1`, ev.ID).Scan(&status)
	switch {
	case err == nil && status == "done":
		return nil
	case err != nil && err != sql.ErrNoRows:
		return err
	}
	res, err := in.db.ExecContext(ctx, `INSERT INTO inbox (event_id, status) VALUES ($1, 'processing') ON CONFLICT (event_id) DO NOTHING`, ev.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := in.ledger.PostEntry(ctx, ev.ID, ev.Payload); err != nil {
		_, _ = in.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM inbox WHERE event_id = $1 AND status = 'processing'`, ev.ID)
		return err
	}
	_, err = in.db.ExecContext(ctx, `UPDATE inbox SET status = 'done' WHERE event_id = $1`, ev.ID)
	return err
}

// ConsumeLate posts the entry first and inserts the inbox row after:
// two deliveries both find no row and both post.
//
// corpus: bug checkthenact
// modelled on: Chengxufeng1994/event-driven-arch-in-go internal/tm/inbox_middleware.go (the inbox row), with the insert moved after the handler
func (in *Inbox) ConsumeLate(ctx context.Context, ev Event) error {
	var status string
	err := in.db.QueryRowContext(ctx, `SELECT status FROM inbox WHERE event_id = $1`, ev.ID).Scan(&status)
	if err == nil {
		return nil
	}
	if err != sql.ErrNoRows {
		return err
	}
	if err := in.ledger.PostEntry(ctx, ev.ID, ev.Payload); err != nil {
		return err
	}
	_, err = in.db.ExecContext(ctx, `INSERT INTO inbox (event_id, status) VALUES ($1, 'done') ON CONFLICT (event_id) DO NOTHING`, ev.ID)
	return err
}
