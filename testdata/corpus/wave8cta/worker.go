package wave8cta

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Subscription is an endpoint subscribed to a project's events.
type Subscription struct {
	ID         string
	EndpointID string
}

// Subscriptions finds the subscriptions an event goes to.
type Subscriptions interface {
	Match(ctx context.Context, projectID, eventType string) ([]Subscription, error)
}

// Worker turns queued events into stored events and their deliveries.
type Worker struct {
	events EventRepository
	subs   Subscriptions
	queue  Queue
	pool   *pgxpool.Pool
	log    *slog.Logger
}

// ProcessEventCreation flags the event with what the lookup of its key
// found, stores it, and fans out only an event not flagged. Two
// concurrent events with one key both find nothing, both are stored
// unflagged and both are delivered.
//
// corpus: bug checkthenact
// modelled on: frain-dev/convoy worker/task/process_event_creation.go (FindEventsByIdempotencyKey sets IsDuplicateEvent before CreateEvent; duplicates are not fanned out)
func (w *Worker) ProcessEventCreation(ctx context.Context, ev *Event) error {
	if ev.IdempotencyKey != "" {
		dup, err := w.events.HasIdempotencyKey(ctx, ev.ProjectID, ev.IdempotencyKey)
		if err != nil {
			return fmt.Errorf("check idempotency key: %w", err)
		}
		ev.IsDuplicate = dup
	}
	if err := w.events.CreateEvent(ctx, ev); err != nil {
		return fmt.Errorf("create event: %w", err)
	}
	if ev.IsDuplicate {
		w.log.InfoContext(ctx, "duplicate event stored, not delivered", "event", ev.ID)
		return nil
	}
	return w.fanOut(ctx, ev)
}

// fanOut queues one delivery per subscription the event matches.
func (w *Worker) fanOut(ctx context.Context, ev *Event) error {
	subs, err := w.subs.Match(ctx, ev.ProjectID, ev.EventType)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if err := w.queue.Write(ctx, "deliveries", ev.ID+":"+s.ID, ev.Data); err != nil {
			return err
		}
	}
	return nil
}

// CreateFanoutEvent builds the event with what the lookup of its key
// found, stores it and hands it to a helper that delivers only an event
// not flagged.
//
// corpus: bug checkthenact
// modelled on: frain-dev/convoy services/create_fanout_event.go (the idempotency lookup's answer carried as the new event's IsDuplicate)
func (w *Worker) CreateFanoutEvent(ctx context.Context, projectID, eventType, key string, data []byte) (*Event, error) {
	isDuplicate, err := w.events.HasIdempotencyKey(ctx, projectID, key)
	if err != nil {
		return nil, err
	}
	ev := &Event{ID: newEventID(), ProjectID: projectID, EventType: eventType, IdempotencyKey: key, Data: data, IsDuplicate: isDuplicate}
	if err := w.events.CreateEvent(ctx, ev); err != nil {
		return nil, err
	}
	return ev, w.deliver(ctx, ev)
}

// deliver fans the event out unless it was stored as a duplicate.
func (w *Worker) deliver(ctx context.Context, ev *Event) error {
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// ProcessEventCreationChecked flags the event from a first lookup, but
// the repository's create takes an advisory lock on the key, looks again
// under it and flags the event itself: the flag tested after it is the
// locked answer.
//
// corpus: ok checkthenact
// modelled on: frain-dev/convoy internal/events/impl.go (CreateEvent's pg_advisory_xact_lock and re-check of the idempotency key before the insert)
func (w *Worker) ProcessEventCreationChecked(ctx context.Context, ev *Event) error {
	dup, err := w.events.HasIdempotencyKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.events.CreateEventChecked(ctx, ev); err != nil {
		return err
	}
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// IngestEvent stores the flag for the producer's answer only: the event is
// queued either way and the matcher downstream decides, so the lookup
// decides nothing here.
//
// corpus: ok checkthenact
// modelled on: frain-dev/convoy api/handlers/event.go (IsDuplicateEvent only picks the response message)
func (w *Worker) IngestEvent(ctx context.Context, ev *Event) (string, error) {
	dup, err := w.events.HasIdempotencyKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return "", err
	}
	ev.IsDuplicate = dup
	if err := w.events.CreateEvent(ctx, ev); err != nil {
		return "", err
	}
	if err := w.queue.Write(ctx, "match", ev.ID, nil); err != nil {
		return "", err
	}
	if ev.IsDuplicate {
		return "Duplicate event received, but will not be sent", nil
	}
	return "Event received", nil
}

// ProcessEventUnique relies on a partial unique index on the key over
// events not flagged: of two concurrent first events one insert fails
// with a unique violation, and that event is stored flagged instead.
//
// corpus: ok checkthenact
// modelled on: frain-dev/convoy worker/task/process_event_creation.go (a duplicate key error from CreateEvent handed back for the status policy, not fanned out again)
func (w *Worker) ProcessEventUnique(ctx context.Context, ev *Event) error {
	dup, err := w.events.HasIdempotencyKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	err = w.events.CreateEvent(ctx, ev)
	if err != nil && isUniqueViolation(err) && !ev.IsDuplicate {
		ev.IsDuplicate = true
		err = w.events.CreateEvent(ctx, ev)
	}
	if err != nil {
		return err
	}
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// ReceiveWebhook counts the events with the key, builds the event with
// the count's answer and inserts it, then queues the match job only for
// an event not flagged.
//
// corpus: bug checkthenact
// modelled on: frain-dev/convoy api/ingest.go (the source's idempotency check feeds IsDuplicateEvent of the event literal; work skipped for duplicates)
func (w *Worker) ReceiveWebhook(ctx context.Context, projectID, key string, body []byte) error {
	var n int
	if err := w.pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1 AND idempotency_key = $2`, projectID, key).Scan(&n); err != nil {
		return err
	}
	ev := Event{ID: newEventID(), ProjectID: projectID, EventType: "webhook", IdempotencyKey: key, Data: body, IsDuplicate: n > 0}
	if _, err := w.pool.Exec(ctx,
		`INSERT INTO events (id, project_id, event_type, idempotency_key, data, is_duplicate_event, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
		ev.ID, ev.ProjectID, ev.EventType, ev.IdempotencyKey, ev.Data, ev.IsDuplicate); err != nil {
		return err
	}
	if !ev.IsDuplicate {
		return w.queue.Write(ctx, "match", ev.ID, ev.Data)
	}
	return nil
}

// ReceiveWebhookLocked takes a transaction-scoped advisory lock on the
// key before counting: the next event with the key waits for this
// transaction and counts its row.
//
// corpus: ok checkthenact
// modelled on: frain-dev/convoy internal/events/impl.go (the advisory lock serialises the writers of one project and key across instances)
func (w *Worker) ReceiveWebhookLocked(ctx context.Context, projectID, key string, body []byte) error {
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, projectID+":"+key); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1 AND idempotency_key = $2`, projectID, key).Scan(&n); err != nil {
		return err
	}
	ev := Event{ID: newEventID(), ProjectID: projectID, EventType: "webhook", IdempotencyKey: key, Data: body, IsDuplicate: n > 0}
	if _, err := tx.Exec(ctx,
		`INSERT INTO events (id, project_id, event_type, idempotency_key, data, is_duplicate_event, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
		ev.ID, ev.ProjectID, ev.EventType, ev.IdempotencyKey, ev.Data, ev.IsDuplicate); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if !ev.IsDuplicate {
		return w.queue.Write(ctx, "match", ev.ID, ev.Data)
	}
	return nil
}
