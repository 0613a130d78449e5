// Package pgstore implements the store repositories on pgx v5.
package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"example.com/corpus/store"
)

// GrantStore keeps the grants table.
type GrantStore struct {
	pool *pgxpool.Pool
}

// NewGrantStore returns a GrantStore on pool.
func NewGrantStore(pool *pgxpool.Pool) *GrantStore { return &GrantStore{pool: pool} }

var _ store.GrantRepository = (*GrantStore)(nil)

// HasGrant reports whether the user holds the feature.
func (s *GrantStore) HasGrant(ctx context.Context, userID, feature string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`,
		userID, feature).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("has grant: %w", err)
	}
	return ok, nil
}

// InsertGrant writes one grant row.
func (s *GrantStore) InsertGrant(ctx context.Context, g store.Grant) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)`,
		g.UserID, g.Feature, g.Source)
	if err != nil {
		return fmt.Errorf("insert grant: %w", err)
	}
	return nil
}

// InsertGrantIfAbsent writes the grant unless (user_id, feature) exists.
func (s *GrantStore) InsertGrantIfAbsent(ctx context.Context, g store.Grant) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)
		 ON CONFLICT (user_id, feature) DO NOTHING`,
		g.UserID, g.Feature, g.Source)
	if err != nil {
		return false, fmt.Errorf("insert grant: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// EnsureGrant gives the user the feature unless they hold it already; the
// partner import calls it once per row of a partner's file, and re-sends
// the file when the import times out.
//
// corpus: bug checkthenact
// modelled on: tosone/GithubTraveler models/RepoSubscribersCount.go (look the row up, create it when not found)
func (s *GrantStore) EnsureGrant(ctx context.Context, userID, feature, source string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`,
		userID, feature).Scan(&exists); err != nil {
		return fmt.Errorf("ensure grant: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)`,
		userID, feature, source); err != nil {
		return fmt.Errorf("ensure grant: %w", err)
	}
	return nil
}

// SyncGrant makes the user's grant of feature match the partner's latest
// record: it reads the current source for the log, then upserts.
//
// corpus: ok checkthenact
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (update or create; here one upsert instead of two statements)
func (s *GrantStore) SyncGrant(ctx context.Context, userID, feature, source string) (previous string, err error) {
	err = s.pool.QueryRow(ctx,
		`SELECT source FROM grants WHERE user_id = $1 AND feature = $2`,
		userID, feature).Scan(&previous)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("sync grant: %w", err)
	}
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)
		 ON CONFLICT (user_id, feature) DO UPDATE SET source = EXCLUDED.source`,
		userID, feature, source); err != nil {
		return "", fmt.Errorf("sync grant: %w", err)
	}
	return previous, nil
}

// IdempotencyStore keeps the idempotency_keys table.
type IdempotencyStore struct {
	pool *pgxpool.Pool
}

// NewIdempotencyStore returns an IdempotencyStore on pool.
func NewIdempotencyStore(pool *pgxpool.Pool) *IdempotencyStore {
	return &IdempotencyStore{pool: pool}
}

var _ store.IdempotencyRepository = (*IdempotencyStore)(nil)

// Claim inserts the key in progress unless it exists.
func (s *IdempotencyStore) Claim(ctx context.Context, key, fingerprint string) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (key, fingerprint, status) VALUES ($1, $2, 'in_progress')
		 ON CONFLICT (key) DO NOTHING`, key, fingerprint)
	if err != nil {
		return false, fmt.Errorf("claim %q: %w", key, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Lookup returns the record of key.
func (s *IdempotencyStore) Lookup(ctx context.Context, key string) (*store.IdempotencyRecord, error) {
	var r store.IdempotencyRecord
	err := s.pool.QueryRow(ctx,
		`SELECT key, fingerprint, status, coalesce(response_code, 0), response_body, created_at
		 FROM idempotency_keys WHERE key = $1`, key).
		Scan(&r.Key, &r.Fingerprint, &r.Status, &r.ResponseCode, &r.ResponseBody, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("lookup %q: %w", key, err)
	}
	return &r, nil
}

// MarkCompleted sets the key's status to completed.
func (s *IdempotencyStore) MarkCompleted(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET status = 'completed' WHERE key = $1`, key)
	if err != nil {
		return fmt.Errorf("complete %q: %w", key, err)
	}
	return nil
}

// SaveResponse stores the answer with the completed status.
func (s *IdempotencyStore) SaveResponse(ctx context.Context, key string, code int, body []byte) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'completed', response_code = $2, response_body = $3
		 WHERE key = $1`, key, code, body)
	if err != nil {
		return fmt.Errorf("save response %q: %w", key, err)
	}
	return nil
}

// Release deletes the key.
func (s *IdempotencyStore) Release(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE key = $1`, key)
	if err != nil {
		return fmt.Errorf("release %q: %w", key, err)
	}
	return nil
}
