package checkthenact

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Inbox is a webhook receiver's store, its check and its write split
// into helpers that a handler in another file calls in turn.
type Inbox struct{ pool *pgxpool.Pool }

func (in *Inbox) alreadyProcessed(ctx context.Context, eventID string) (bool, error) {
	var seen bool
	err := in.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM webhook_inbox WHERE event_id = $1)", eventID).Scan(&seen)
	return seen, err
}

func (in *Inbox) markProcessed(ctx context.Context, eventID string) error {
	_, err := in.pool.Exec(ctx, "INSERT INTO webhook_inbox (event_id) VALUES ($1)", eventID)
	return err
}

func (in *Inbox) record(ctx context.Context, eventID string) error {
	_, err := in.pool.Exec(ctx, "INSERT INTO webhook_inbox (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING", eventID)
	return err
}

func (in *Inbox) lastSeen(ctx context.Context, eventID string) error {
	return in.pool.QueryRow(ctx, "SELECT received_at FROM webhook_inbox WHERE event_id = $1", eventID).Scan(new(string))
}
