package releaseonerror

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

type queuedJob struct{ ID, Payload string }

func pay(ctx context.Context, j queuedJob) error { return nil }

// claimJob moves a queued job to processing; of two runners only one
// moves it. It hands the claimed row to its caller.
func claimJob(ctx context.Context, db *sql.DB, id string) (queuedJob, bool, error) {
	var j queuedJob
	err := db.QueryRowContext(ctx,
		`UPDATE jobs SET status = 'processing' WHERE id = $1 AND status = 'queued' RETURNING id, payload`, id).
		Scan(&j.ID, &j.Payload)
	if errors.Is(err, sql.ErrNoRows) {
		return queuedJob{}, false, nil
	}
	return j, err == nil, err
}

// runQueued leaves a failed job in processing: no runner takes it again.
func runQueued(ctx context.Context, db *sql.DB, id string) error {
	j, ok, err := claimJob(ctx, db, id)
	if err != nil || !ok {
		return err
	}
	if err := pay(ctx, j); err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err) // want `leaves the key claimed by claimJob at statusclaim.go:29 held`
	}
	_, err = db.ExecContext(ctx, `UPDATE jobs SET status = 'done' WHERE id = $1`, j.ID)
	return err
}

// runQueuedRequeueing puts a failed job back in the queue.
func runQueuedRequeueing(ctx context.Context, db *sql.DB, id string) error {
	j, ok, err := claimJob(ctx, db, id)
	if err != nil || !ok {
		return err
	}
	if err := pay(ctx, j); err != nil {
		_, _ = db.ExecContext(context.WithoutCancel(ctx), `UPDATE jobs SET status = 'queued' WHERE id = $1`, j.ID)
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	_, err = db.ExecContext(ctx, `UPDATE jobs SET status = 'done' WHERE id = $1`, j.ID)
	return err
}

// finishJob completes a processing queuedJob: an UPDATE guarded by the
// in-progress status is a completion, not a claim.
func finishJob(ctx context.Context, db *sql.DB, id string) error {
	if _, err := db.ExecContext(ctx, `UPDATE jobs SET status = 'done' WHERE id = $1 AND status = 'processing'`, id); err != nil {
		return fmt.Errorf("finish %s: %w", id, err)
	}
	return nil
}
