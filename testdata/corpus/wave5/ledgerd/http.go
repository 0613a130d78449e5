package ledgerd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
)

// capture records what a handler answered.
type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(code int) { c.status = code; c.ResponseWriter.WriteHeader(code) }

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// AdjustAPI serves manual balance adjustments for the back office.
type AdjustAPI struct {
	pool   *pgxpool.Pool
	adjust http.Handler
}

func (a *AdjustAPI) claimKey(ctx context.Context, key string) (bool, error) {
	tag, err := a.pool.Exec(ctx,
		`INSERT INTO http_idempotency (key, state) VALUES ($1, 'running') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (a *AdjustAPI) replay(w http.ResponseWriter, r *http.Request, key string) {
	var state string
	var status int
	var body []byte
	err := a.pool.QueryRow(r.Context(),
		`SELECT state, coalesce(status, 0), coalesce(body, ''::bytea) FROM http_idempotency WHERE key = $1`, key).
		Scan(&state, &status, &body)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if state != "done" {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ServeAdjust runs a balance adjustment once per Idempotency-Key and
// answers a repeat with the stored response.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (PostgreSQL storage of idempotency records holding the response)
func (a *AdjustAPI) ServeAdjust(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claimKey(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.replay(w, r, key)
		return
	}
	rec := &capture{ResponseWriter: w}
	a.adjust.ServeHTTP(rec, r)
	_, _ = a.pool.Exec(context.WithoutCancel(ctx),
		`UPDATE http_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1`,
		key, rec.status, rec.body.Bytes())
}

// ServeAdjustStored runs a balance adjustment once per Idempotency-Key and
// answers a repeat with the stored response; a server error is not
// stored, the key is given back for the retry.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (PostgreSQL storage of idempotency records holding the response)
func (a *AdjustAPI) ServeAdjustStored(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claimKey(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.replay(w, r, key)
		return
	}
	rec := &capture{ResponseWriter: w}
	a.adjust.ServeHTTP(rec, r)
	bg := context.WithoutCancel(ctx)
	if rec.status >= http.StatusInternalServerError {
		_, _ = a.pool.Exec(bg, `DELETE FROM http_idempotency WHERE key = $1`, key)
		return
	}
	_, _ = a.pool.Exec(bg,
		`UPDATE http_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1`,
		key, rec.status, rec.body.Bytes())
}

// InterestRun accrues a day's interest on every savings account.
type InterestRun struct {
	pool *pgxpool.Pool
}

type accrual struct {
	AccountID string `json:"account_id"`
	Cents     int64  `json:"cents"`
}

// ApplyInterest accrues interest for the day, once per day: the run row
// is claimed before the batches are posted.
//
// corpus: bug releaseonerror
// modelled on: specvital/specvital.github.io docs/en/adr/collector/04-distributed-lock-scheduler-concurrency.md (scheduled job run once across instances)
func (j *InterestRun) ApplyInterest(ctx context.Context, day string, batches [][]accrual) error {
	tag, err := j.pool.Exec(ctx,
		`INSERT INTO interest_runs (run_day, status, started_at) VALUES ($1, 'running', now())
		 ON CONFLICT (run_day) DO NOTHING`, day)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil // run by another instance, or already done
	}
	for i, batch := range batches {
		doc, _ := json.Marshal(batch)
		if _, err := j.pool.Exec(ctx,
			`UPDATE accounts a SET balance_cents = a.balance_cents + x.cents
			 FROM jsonb_to_recordset($1::jsonb) AS x(account_id text, cents bigint)
			 WHERE a.id = x.account_id`, doc); err != nil {
			return fmt.Errorf("interest %s batch %d: %w", day, i, err)
		}
	}
	_, err = j.pool.Exec(ctx, `UPDATE interest_runs SET status = 'done', finished_at = now() WHERE run_day = $1`, day)
	return err
}

// ApplyInterestAtomically accrues interest for the day, once per day: the
// run row and every batch are written in one transaction, so a failed
// batch rolls the claim back with them.
//
// corpus: ok releaseonerror
// modelled on: specvital/specvital.github.io docs/en/adr/collector/04-distributed-lock-scheduler-concurrency.md (scheduled job run once across instances)
func (j *InterestRun) ApplyInterestAtomically(ctx context.Context, day string, batches [][]accrual) error {
	tx, err := j.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx,
		`INSERT INTO interest_runs (run_day, status, started_at) VALUES ($1, 'done', now())
		 ON CONFLICT (run_day) DO NOTHING`, day)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	for i, batch := range batches {
		doc, _ := json.Marshal(batch)
		if _, err := tx.Exec(ctx,
			`UPDATE accounts a SET balance_cents = a.balance_cents + x.cents
			 FROM jsonb_to_recordset($1::jsonb) AS x(account_id text, cents bigint)
			 WHERE a.id = x.account_id`, doc); err != nil {
			return fmt.Errorf("interest %s batch %d: %w", day, i, err)
		}
	}
	return tx.Commit(ctx)
}
