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

// takeLease makes this replica the holder of a named lease row, when no
// one holds it or the holder's time ran out.
func takeLease(ctx context.Context, db *sql.DB, name, me string) (bool, error) {
	res, err := db.ExecContext(ctx,
		`UPDATE leases SET holder = $2, expires_at = now() + interval '1 hour'
		  WHERE name = $1 AND (holder IS NULL OR expires_at < now())`, name, me)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// giveLease hands the lease back: setting the holder to NULL releases.
func giveLease(ctx context.Context, db *sql.DB, name, me string) error {
	_, err := db.ExecContext(ctx, `UPDATE leases SET holder = NULL, expires_at = NULL WHERE name = $1 AND holder = $2`, name, me)
	return err
}

// sweepOnce keeps the lease for an hour when the sweep fails.
func sweepOnce(ctx context.Context, db *sql.DB, me string, sweep func() error) error {
	got, err := takeLease(ctx, db, "sweep", me)
	if err != nil || !got {
		return err
	}
	if err := sweep(); err != nil {
		return fmt.Errorf("sweep: %w", err) // want `leaves the key claimed by takeLease at statusclaim.go:\d+ held`
	}
	return giveLease(ctx, db, "sweep", me)
}

// sweepReleasing gives the lease back however the sweep ends.
func sweepReleasing(ctx context.Context, db *sql.DB, me string, sweep func() error) error {
	got, err := takeLease(ctx, db, "sweep", me)
	if err != nil || !got {
		return err
	}
	defer func() {
		if err := giveLease(context.WithoutCancel(ctx), db, "sweep", me); err != nil {
			fmt.Println("give lease back:", err)
		}
	}()
	return sweep()
}

// grantStore moves grants between states; false when the grant was not
// in the state it is moved from.
type grantStore interface {
	MoveGrant(ctx context.Context, id, from, to string) (bool, error)
}

func issueSeat(ctx context.Context, id string) error { return nil }

// provision leaves a grant in provisioning when the vendor fails.
func provision(ctx context.Context, gs grantStore, id string) error {
	ok, err := gs.MoveGrant(ctx, id, "pending", "provisioning")
	if err != nil || !ok {
		return err
	}
	if err := issueSeat(ctx, id); err != nil {
		return fmt.Errorf("issue seat for %s: %w", id, err) // want `leaves the key claimed by MoveGrant at statusclaim.go:\d+ held`
	}
	_, err = gs.MoveGrant(ctx, id, "provisioning", "active")
	return err
}

// provisionOrRequeue moves a failed grant back to pending.
func provisionOrRequeue(ctx context.Context, gs grantStore, id string) error {
	ok, err := gs.MoveGrant(ctx, id, "pending", "provisioning")
	if err != nil || !ok {
		return err
	}
	if err := issueSeat(ctx, id); err != nil {
		_, _ = gs.MoveGrant(context.WithoutCancel(ctx), id, "provisioning", "pending")
		return fmt.Errorf("issue seat for %s: %w", id, err)
	}
	_, err = gs.MoveGrant(ctx, id, "provisioning", "active")
	return err
}

// runPendingGuarded moves a pending order to processing with a guarded
// UPDATE, and on failure moves it back with another, guarded by the
// processing status: the move back hands the row back; it claims
// nothing.
func runPendingGuarded(ctx context.Context, db *sql.DB, id string) error {
	res, err := db.ExecContext(ctx, `UPDATE orders SET status = 'processing' WHERE id = $1 AND status = 'pending'`, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if err := pay(ctx, queuedJob{ID: id}); err != nil {
		_, _ = db.ExecContext(context.WithoutCancel(ctx), `UPDATE orders SET status = 'pending' WHERE id = $1 AND status = 'processing'`, id)
		return fmt.Errorf("order %s: %w", id, err)
	}
	_, err = db.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1`, id)
	return err
}

// runPendingReusingErr reads the row count into a variable of its own,
// then reuses that variable for the payment's error: returned after the
// payment failed, it is no longer the claim's answer, and the row is
// left in processing. (The finding sits at the first failing return.)
func runPendingReusingErr(ctx context.Context, db *sql.DB, id string) error {
	res, err := db.ExecContext(ctx, `UPDATE orders SET status = 'processing' WHERE id = $1 AND status = 'pending'`, id)
	if err != nil {
		return err
	}
	n, countErr := res.RowsAffected()
	if countErr != nil || n == 0 {
		return countErr // want `leaves the key claimed by UPDATE of orders to in progress at statusclaim.go:\d+ held \(and 1 more failing return\)`
	}
	countErr = pay(ctx, queuedJob{ID: id})
	if countErr != nil {
		return countErr
	}
	_, err = db.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1`, id)
	return err
}
