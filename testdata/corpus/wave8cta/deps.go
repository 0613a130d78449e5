// Package wave8cta is a webhook gateway's event ingestion: events are
// stored whatever the lookup of their idempotency key found (the index on
// the key is not unique, so a repeat is kept, flagged as a duplicate),
// and deliveries fan out only for an event not flagged. The repository
// sits behind an interface the package declares, as does the queue the
// deliveries go out on.
package wave8cta

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Event is one event a producer sent to a project.
type Event struct {
	ID             string
	ProjectID      string
	EventType      string
	IdempotencyKey string
	Data           []byte
	IsDuplicate    bool
	CreatedAt      time.Time
}

// EventRepository keeps the events of every project.
type EventRepository interface {
	HasIdempotencyKey(ctx context.Context, projectID, key string) (bool, error)
	CreateEvent(ctx context.Context, ev *Event) error
	CreateEventChecked(ctx context.Context, ev *Event) error
}

// Queue hands a delivery job to the delivery workers.
type Queue interface {
	Write(ctx context.Context, queue string, eventID string, payload []byte) error
}

type pgEvents struct{ pool *pgxpool.Pool }

// NewEventRepository returns the Postgres event repository.
func NewEventRepository(pool *pgxpool.Pool) EventRepository { return &pgEvents{pool: pool} }

func (r *pgEvents) HasIdempotencyKey(ctx context.Context, projectID, key string) (bool, error) {
	var exists bool
	err := r.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM events WHERE project_id = $1 AND idempotency_key = $2 AND deleted_at IS NULL)`,
		projectID, key).Scan(&exists)
	return exists, err
}

func (r *pgEvents) CreateEvent(ctx context.Context, ev *Event) error {
	_, err := r.pool.Exec(ctx,
		`INSERT INTO events (id, project_id, event_type, idempotency_key, data, is_duplicate_event, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
		ev.ID, ev.ProjectID, ev.EventType, ev.IdempotencyKey, ev.Data, ev.IsDuplicate)
	return err
}

// CreateEventChecked serialises the writers of one key with a
// transaction-scoped advisory lock, looks again under it and flags the
// event itself: what its caller flagged is only a first guess.
func (r *pgEvents) CreateEventChecked(ctx context.Context, ev *Event) error {
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if ev.IdempotencyKey != "" && !ev.IsDuplicate {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "events-idempotency:"+ev.ProjectID+":"+ev.IdempotencyKey); err != nil {
				return err
			}
			var exists bool
			if err := tx.QueryRow(ctx,
				`SELECT EXISTS (SELECT 1 FROM events WHERE project_id = $1 AND idempotency_key = $2 AND deleted_at IS NULL)`,
				ev.ProjectID, ev.IdempotencyKey).Scan(&exists); err != nil {
				return err
			}
			if exists {
				ev.IsDuplicate = true
			}
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO events (id, project_id, event_type, idempotency_key, data, is_duplicate_event, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
			ev.ID, ev.ProjectID, ev.EventType, ev.IdempotencyKey, ev.Data, ev.IsDuplicate)
		return err
	})
}

// isUniqueViolation reports whether err is Postgres's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
