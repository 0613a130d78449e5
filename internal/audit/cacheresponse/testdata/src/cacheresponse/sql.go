package cacheresponse

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/jackc/pgx/v5"
)

func (s *server) book(ctx context.Context, db *sql.DB, key string) (*receipt, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errInProgress
	}
	rc := &receipt{ID: "b_1"}
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'completed', completed_at = now() WHERE key = $1`, key); err != nil { // want `UPDATE of idempotency_keys sets only status, completed_at: it marks the key claimed by INSERT into idempotency_keys at sql.go:\d+ completed without the response, so a retry cannot get back what this call answered; store the status code and the marshalled body with it \(cacheresponse\)`
		return nil, err
	}
	return rc, nil
}

// Negatives.

func (s *server) bookStoring(ctx context.Context, db *sql.DB, key string) (*receipt, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errInProgress
	}
	rc := &receipt{ID: "b_1"}
	body, err := json.Marshal(rc)
	if err != nil {
		db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE key = $1`, key)
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'completed', response_status = 201, response_body = $2 WHERE key = $1`, key, body); err != nil {
		return nil, err
	}
	return rc, nil
}

// A consumer's inbox row has no response to hold.
func markHandled(ctx context.Context, db *sql.DB, eventID string) error {
	_, err := db.ExecContext(ctx, `UPDATE webhook_inbox SET status = 'done' WHERE event_id = $1`, eventID)
	return err
}

// The status code stored and the body not: a repeat gets a 200 and
// nothing else.
func (s *server) bookCoded(ctx context.Context, db *sql.DB, key string) (*receipt, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errInProgress
	}
	rc := &receipt{ID: "b_2"}
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_keys SET completed_at = now(), response_code = 200 WHERE key = $1`, key); err != nil { // want `UPDATE of idempotency_keys sets only completed_at: it marks the key claimed by INSERT into idempotency_keys at sql.go:\d+ completed without the response`
		return nil, err
	}
	return rc, nil
}

// claimBare takes a key by inserting its bare row: the row's being there
// is the claim, and its response is written when the work ends.
func claimBare(ctx context.Context, db *sql.DB, key string) (bool, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_requests (key, created_at) VALUES ($1, now()) ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// A card already on file is answered without storing the answer: a repeat
// finds the key taken and nothing to replay.
func (s *server) attach(ctx context.Context, db *sql.DB, key string, onFile *receipt) (*receipt, error) {
	fresh, err := claimBare(ctx, db, key)
	if err != nil || !fresh {
		return nil, errInProgress
	}
	if onFile != nil {
		return onFile, nil // want `this return answers without recording the response under the key claimed by claimBare`
	}
	rc := &receipt{ID: "c_1"}
	body, _ := json.Marshal(rc)
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_requests SET completed_at = now(), response_body = $2 WHERE key = $1`, key, body); err != nil {
		return nil, err
	}
	return rc, nil
}

type backupJob struct{ ID, Status string }

const claimBackupJobSQL = `-- name: ClaimBackupJob :one
UPDATE backup_jobs SET status = 'claimed', agent_id = $1
WHERE id = (SELECT id FROM backup_jobs WHERE status = 'pending' ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, status`

type queries struct {
	db interface {
		QueryRow(context.Context, string, ...interface{}) pgx.Row
	}
}

// A generated query (sqlc) that claims a job and returns the claimed row:
// the claim is its caller's from here.
func (q *queries) ClaimBackupJob(ctx context.Context, agent string) (backupJob, error) {
	row := q.db.QueryRow(ctx, claimBackupJobSQL, agent)
	var i backupJob
	err := row.Scan(&i.ID, &i.Status)
	return i, err
}
