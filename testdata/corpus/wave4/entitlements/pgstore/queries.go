// Package pgstore holds the entitlements tables on Postgres. The query
// methods follow what sqlc generates for pgx/v5: a Queries value over a
// DBTX, one method per statement.
package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"example.com/corpus/wave4/entitlements"
)

// DBTX is what sqlc's generated code runs its statements on: a pool, a
// connection or a transaction.
type DBTX interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
	Query(context.Context, string, ...interface{}) (pgx.Rows, error)
	QueryRow(context.Context, string, ...interface{}) pgx.Row
}

// Queries runs the entitlements statements.
type Queries struct {
	db DBTX
}

// New returns Queries over db.
func New(db DBTX) *Queries { return &Queries{db: db} }

// WithTx returns Queries that run inside tx.
func (q *Queries) WithTx(tx pgx.Tx) *Queries { return &Queries{db: tx} }

const getActiveGrant = `-- name: GetActiveGrant :one
SELECT id, user_id, sku, source, starts_at, ends_at, state
FROM grants
WHERE user_id = $1 AND sku = $2 AND state = 'active'
LIMIT 1
`

// GetActiveGrant returns the user's active grant of sku.
func (q *Queries) GetActiveGrant(ctx context.Context, userID, sku string) (entitlements.Grant, error) {
	row := q.db.QueryRow(ctx, getActiveGrant, userID, sku)
	var g entitlements.Grant
	err := row.Scan(&g.ID, &g.UserID, &g.SKU, &g.Source, &g.StartsAt, &g.EndsAt, &g.State)
	return g, err
}

const insertGrant = `-- name: InsertGrant :exec
INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
VALUES ($1, $2, $3, $4, $5, $6, 'active')
`

// InsertGrant writes one grant row.
func (q *Queries) InsertGrant(ctx context.Context, g entitlements.Grant) error {
	_, err := q.db.Exec(ctx, insertGrant, g.ID, g.UserID, g.SKU, g.Source, g.StartsAt, g.EndsAt)
	return err
}

const insertGrantSkipExisting = `-- name: InsertGrantSkipExisting :execrows
INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
VALUES ($1, $2, $3, $4, $5, $6, 'active')
ON CONFLICT (user_id, sku) WHERE state = 'active' DO NOTHING
`

// InsertGrantSkipExisting writes the grant unless the user holds an active
// grant of the sku, and reports how many rows it wrote.
func (q *Queries) InsertGrantSkipExisting(ctx context.Context, g entitlements.Grant) (int64, error) {
	tag, err := q.db.Exec(ctx, insertGrantSkipExisting, g.ID, g.UserID, g.SKU, g.Source, g.StartsAt, g.EndsAt)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

const setGrantState = `-- name: SetGrantState :execrows
UPDATE grants SET state = $2 WHERE id = $1 AND state = $3
`

// SetGrantState moves grant id from state from to state to.
func (q *Queries) SetGrantState(ctx context.Context, id, to, from string) (int64, error) {
	tag, err := q.db.Exec(ctx, setGrantState, id, to, from)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// Store implements entitlements.GrantStore on a pool.
type Store struct {
	pool *pgxpool.Pool
	q    *Queries
}

// NewStore returns a Store over pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: New(pool)} }

// ActiveGrant returns the user's active grant of sku, or nil.
func (s *Store) ActiveGrant(ctx context.Context, userID, sku string) (*entitlements.Grant, error) {
	g, err := s.q.GetActiveGrant(ctx, userID, sku)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// CreateGrant writes g.
func (s *Store) CreateGrant(ctx context.Context, g entitlements.Grant) error {
	return s.q.InsertGrant(ctx, g)
}

// CreateGrantUnlessActive writes g unless the user holds an active grant of
// the sku, and reports whether it wrote it.
func (s *Store) CreateGrantUnlessActive(ctx context.Context, g entitlements.Grant) (bool, error) {
	n, err := s.q.InsertGrantSkipExisting(ctx, g)
	return n == 1, err
}

// MoveGrant moves a grant between states; it reports false when the grant
// was not in state from.
func (s *Store) MoveGrant(ctx context.Context, id, from, to string) (bool, error) {
	n, err := s.q.SetGrantState(ctx, id, to, from)
	return n == 1, err
}

const recordRequest = `
INSERT INTO grant_requests (request_key, state, created_at) VALUES ($1, 'running', $2)
ON CONFLICT (request_key) DO NOTHING
`

// BeginRequest records that the request with key started; false means a
// request with the key was seen before.
func (s *Store) BeginRequest(ctx context.Context, key string) (bool, error) {
	tag, err := s.pool.Exec(ctx, recordRequest, key, time.Now())
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// LoadRequest returns the state and stored response of a request.
func (s *Store) LoadRequest(ctx context.Context, key string) (entitlements.RequestRecord, error) {
	var r entitlements.RequestRecord
	err := s.pool.QueryRow(ctx,
		`SELECT request_key, state, coalesce(response_status, 0), coalesce(response_body, ''::bytea)
		   FROM grant_requests WHERE request_key = $1`, key).
		Scan(&r.Key, &r.State, &r.Status, &r.Body)
	return r, err
}

// FinishRequest marks the request done.
func (s *Store) FinishRequest(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE grant_requests SET state = 'succeeded', finished_at = now() WHERE request_key = $1`, key)
	return err
}

// FinishRequestWith marks the request done and keeps what it answered.
func (s *Store) FinishRequestWith(ctx context.Context, key string, status int, body []byte) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE grant_requests
		    SET state = 'succeeded', response_status = $2, response_body = $3, finished_at = now()
		  WHERE request_key = $1`, key, status, body)
	return err
}

// AbandonRequest forgets a request that failed, so that a retry runs it.
func (s *Store) AbandonRequest(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM grant_requests WHERE request_key = $1 AND state = 'running'`, key)
	return err
}
