package pgstore

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DefaultOutboxTable is the outbox table's name when OutboxOptions.Table is empty.
const DefaultOutboxTable = "idempotency_outbox"

// Event is a message to publish once the transaction that wrote it commits.
type Event struct {
	// ID identifies the event and is its deduplication key downstream: a relay that crashes
	// after publishing but before marking it sent publishes it again with the same ID, which
	// the consumer drops (ConsumeOnce).
	ID      string
	Topic   string
	Payload []byte
}

// OutboxOptions configures an Outbox.
type OutboxOptions struct {
	// Schema holds the table; empty means the connection's search_path. Migrate creates it.
	Schema string
	// Table is the table's name. Default DefaultOutboxTable.
	Table string
}

// Outbox is a transactional outbox: Enqueue writes an event in the caller's transaction, so it
// exists exactly when the business change does, and Relay publishes committed events and marks
// them sent. Relays on several instances share the work without publishing an event twice:
// each takes its batch with FOR UPDATE SKIP LOCKED.
type Outbox struct {
	db                           DB
	migrate, enqueue, take, sent string
}

//go:embed outbox.sql
var outboxSQL string

// NewOutbox returns an Outbox over db. Call Migrate once before use.
func NewOutbox(db DB, opts OutboxOptions) *Outbox {
	if opts.Table == "" {
		opts.Table = DefaultOutboxTable
	}
	r, migrate := tableSQL(opts.Schema, opts.Table, "_unsent_idx", outboxSQL)
	return &Outbox{
		db:      db,
		migrate: migrate,
		enqueue: r.Replace(`INSERT INTO {{table}} (id, topic, payload) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`),
		take: r.Replace(`SELECT id, topic, payload FROM {{table}} WHERE sent_at IS NULL
			ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`),
		sent: r.Replace(`UPDATE {{table}} SET sent_at = clock_timestamp() WHERE id = ANY($1)`),
	}
}

// Migrate creates the schema (when set), the table and its index if they are missing; safe to
// run concurrently from every instance.
func (o *Outbox) Migrate(ctx context.Context) error {
	if _, err := o.db.Exec(ctx, o.migrate); err != nil {
		return fmt.Errorf("pgstore: migrate outbox: %w", err)
	}
	return nil
}

// Enqueue writes e in tx. Enqueueing the same ID twice keeps the first, so a retried business
// transaction that derives its event ID from its idempotency key (idem.Derive) adds one event.
func (o *Outbox) Enqueue(ctx context.Context, tx pgx.Tx, e Event) error {
	if err := idem.CheckKey(e.ID); err != nil {
		return fmt.Errorf("pgstore: enqueue: event ID: %w", err)
	}
	payload := e.Payload
	if payload == nil {
		payload = []byte{}
	}
	if _, err := tx.Exec(ctx, o.enqueue, e.ID, e.Topic, payload); err != nil {
		return fmt.Errorf("pgstore: enqueue %q: %w", e.ID, err)
	}
	return nil
}

// Relay publishes up to batch unsent events, oldest first, and marks those published as sent,
// returning how many it marked. It holds the batch's rows locked while it publishes, so another
// relay skips them; an event whose publish fails stays unsent for the next pass, and the events
// before it are still marked. publish receives the event ID to pass on as the deduplication key.
func (o *Outbox) Relay(ctx context.Context, db Beginner, batch int, publish func(context.Context, Event) error) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("pgstore: relay: %w: batch %d", idem.ErrInvalid, batch)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		return 0, idem.Unavailable(ctx, "pgstore: relay: begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, o.take, batch)
	if err != nil {
		return 0, idem.Unavailable(ctx, "pgstore: relay: take", err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Event, error) {
		var e Event
		return e, row.Scan(&e.ID, &e.Topic, &e.Payload)
	})
	if err != nil {
		return 0, idem.Unavailable(ctx, "pgstore: relay: take", err)
	}
	var sent []string
	var publishErr error
	for _, e := range events {
		if publishErr = publish(ctx, e); publishErr != nil {
			publishErr = fmt.Errorf("pgstore: relay: publish %q: %w", e.ID, publishErr)
			break
		}
		sent = append(sent, e.ID)
	}
	if len(sent) > 0 {
		if _, err := tx.Exec(ctx, o.sent, sent); err != nil {
			return 0, idem.Unavailable(ctx, "pgstore: relay: mark sent", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, idem.Unavailable(ctx, "pgstore: relay: commit", err)
	}
	return len(sent), publishErr
}

// RunRelay relays every interval until ctx is done, draining full batches at once. Errors go to
// onError (which may be nil) and the next pass tries again.
func (o *Outbox) RunRelay(ctx context.Context, db Beginner, every time.Duration, batch int, publish func(context.Context, Event) error, onError func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for {
			n, err := o.Relay(ctx, db, batch, publish)
			if err != nil && ctx.Err() == nil && onError != nil {
				onError(err)
			}
			if err != nil || n < batch {
				break
			}
		}
	}
}
