package workers

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
)

// StatementJob asks the accounting provider to produce each merchant's
// daily statement. The scheduler runs it at 02:00 and runs it again when a
// run fails or the pod is replaced mid-run.
type StatementJob struct {
	db       *sql.DB
	http     *http.Client
	endpoint string
	log      *slog.Logger
}

// NewStatementJob returns a StatementJob.
func NewStatementJob(db *sql.DB, hc *http.Client, endpoint string, log *slog.Logger) *StatementJob {
	return &StatementJob{db: db, http: hc, endpoint: endpoint, log: log}
}

func (j *StatementJob) merchants(ctx context.Context) ([]string, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT id FROM merchants WHERE active`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (j *StatementJob) request(ctx context.Context, merchantID, day, key string) error {
	body, _ := json.Marshal(map[string]string{"merchant_id": merchantID, "day": day})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.endpoint+"/statements", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := j.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("statements: %s", resp.Status)
	}
	return nil
}

// Run asks for yesterday's statement of every active merchant.
//
// corpus: bug attemptkey
// modelled on: Receipt-Wrangler/receipt-wrangler-api internal/tasks/example.go (scheduled task handler)
func (j *StatementJob) Run(ctx context.Context) error {
	runID := uuid.NewString()
	day := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	ids, err := j.merchants(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := j.request(ctx, id, day, runID+":"+id); err != nil {
			return fmt.Errorf("statement for %s: %w", id, err)
		}
	}
	j.log.InfoContext(ctx, "statements requested", "run", runID, "day", day, "merchants", len(ids))
	return nil
}

// RunSlot asks for the statement of every active merchant for the day
// before the slot the scheduler fired for.
//
// corpus: ok attemptkey
// modelled on: Receipt-Wrangler/receipt-wrangler-api internal/tasks/example.go (scheduled task handler) with the key made of job and slot
func (j *StatementJob) RunSlot(ctx context.Context, scheduledFor time.Time) error {
	day := scheduledFor.UTC().AddDate(0, 0, -1).Format("2006-01-02")
	runID := uuid.NewString() // for the logs only
	ids, err := j.merchants(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := j.request(ctx, id, day, "statement:"+day+":"+id); err != nil {
			return fmt.Errorf("statement for %s: %w", id, err)
		}
	}
	j.log.InfoContext(ctx, "statements requested", "run", runID, "day", day, "merchants", len(ids))
	return nil
}

// LeaseJob runs the hourly marketplace-fee sweep on one replica at a
// time; the replica holds a lease row while it sweeps.
type LeaseJob struct {
	db    *sql.DB
	sweep func(context.Context) error
	log   *slog.Logger
}

// NewLeaseJob returns a LeaseJob.
func NewLeaseJob(db *sql.DB, sweep func(context.Context) error, log *slog.Logger) *LeaseJob {
	return &LeaseJob{db: db, sweep: sweep, log: log}
}

func holder() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", h, os.Getpid())
}

func (l *LeaseJob) take(ctx context.Context, me string) (bool, error) {
	res, err := l.db.ExecContext(ctx,
		`UPDATE job_leases SET holder = $2, expires_at = now() + interval '55 minutes'
		  WHERE name = $1 AND (holder IS NULL OR expires_at < now())`, "fee-sweep", me)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (l *LeaseJob) give(ctx context.Context, me string) error {
	_, err := l.db.ExecContext(ctx,
		`UPDATE job_leases SET holder = NULL, expires_at = NULL WHERE name = $1 AND holder = $2`, "fee-sweep", me)
	return err
}

// Tick runs the sweep when this replica gets the lease.
//
// corpus: bug releaseonerror
// modelled on: Murtadah-1984/Payment docs/02-Payment/Webhook_Retry_Mechanism.md (background service picks due work on a schedule, marks it, and finishes it)
func (l *LeaseJob) Tick(ctx context.Context) error {
	me := holder()
	got, err := l.take(ctx, me)
	if err != nil || !got {
		return err
	}
	if err := l.sweep(ctx); err != nil {
		return fmt.Errorf("fee sweep: %w", err)
	}
	return l.give(ctx, me)
}

// TickReleasing runs the sweep when this replica gets the lease, and
// hands the lease back however the sweep ends.
//
// corpus: ok releaseonerror
// modelled on: Murtadah-1984/Payment docs/02-Payment/Webhook_Retry_Mechanism.md (background service picks due work on a schedule) with the lease given back in a defer
func (l *LeaseJob) TickReleasing(ctx context.Context) error {
	me := holder()
	got, err := l.take(ctx, me)
	if err != nil || !got {
		return err
	}
	defer func() {
		if err := l.give(context.WithoutCancel(ctx), me); err != nil {
			l.log.ErrorContext(ctx, "give lease back", "err", err)
		}
	}()
	if err := l.sweep(ctx); err != nil {
		return fmt.Errorf("fee sweep: %w", err)
	}
	return nil
}
