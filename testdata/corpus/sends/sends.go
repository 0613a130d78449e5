// Package sends holds jobs and events handed to queues by calls not named
// for sending (a Redis list's RPUSH, a stream's XADD), records a
// constructor names anew, and loops that wait between turns: a record
// whose ID is made on each attempt of a retry or pass of a relay is sent
// again under another ID, while a loop that takes an input, or sends
// something new after each wait, makes one operation per turn.
package sends

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Job is what the workers pop from a Redis list.
type Job struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Payload   []byte    `json:"payload"`
	CreatedAt time.Time `json:"created_at"`
}

// newJob stamps a job with a new ID.
func newJob(kind string, payload []byte) Job {
	return Job{ID: uuid.NewString(), Kind: kind, Payload: payload, CreatedAt: time.Now()}
}

// mustJSON marshals a value the package built itself.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// outboxRow is a job written in the transaction that asked for it.
type outboxRow struct {
	ID      int64
	JobID   string
	EventID string
	Kind    string
	Payload []byte
}

// Relay moves outbox rows onto the workers' list and their stream.
type Relay struct {
	db  *pgxpool.Pool
	rdb *redis.Client
	log *slog.Logger
}

func (r *Relay) markSent(ctx context.Context, id int64) error {
	_, err := r.db.Exec(ctx, `UPDATE job_outbox SET sent_at = now() WHERE id = $1`, id)
	return err
}

// PushPending pushes each row onto the list as a job newJob names: a row
// whose mark failed is pushed again by the next pass under another ID,
// and the workers run it twice.
//
// corpus: bug attemptkey
// modelled on: kaviraj-j/dispatch internal/queue/job.go (newJob stamping uuid.NewString on the job it returns)
func (r *Relay) PushPending(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		job := newJob(row.Kind, row.Payload)
		if err := r.rdb.RPush(ctx, "jobs:"+row.Kind, mustJSON(job)).Err(); err != nil {
			r.log.WarnContext(ctx, "push job", "row", row.ID, "err", err)
			continue
		}
		if err := r.markSent(ctx, row.ID); err != nil {
			r.log.WarnContext(ctx, "mark job sent", "row", row.ID, "err", err)
		}
	}
}

// PushPendingKeyed pushes each row as a job under the ID written with the
// row, the same on every pass.
//
// corpus: ok attemptkey
// modelled on: kaviraj-j/dispatch internal/queue/job.go (newJob, its ID replaced by the row's)
func (r *Relay) PushPendingKeyed(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		job := newJob(row.Kind, row.Payload)
		job.ID = row.JobID
		if err := r.rdb.RPush(ctx, "jobs:"+row.Kind, mustJSON(job)).Err(); err != nil {
			r.log.WarnContext(ctx, "push job", "row", row.ID, "err", err)
			continue
		}
		if err := r.markSent(ctx, row.ID); err != nil {
			r.log.WarnContext(ctx, "mark job sent", "row", row.ID, "err", err)
		}
	}
}

// ForwardToStream appends each row to the events stream with an event_id
// made on this pass; the stream's consumers drop a copy by event_id, so a
// row sent again after a failed mark is handled twice.
//
// corpus: bug attemptkey
// modelled on: open-outbox/relay internal/publishers/redis.go (an outbox event's fields XADDed as the entry's Values)
func (r *Relay) ForwardToStream(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		values := map[string]any{"kind": row.Kind, "payload": row.Payload}
		values["event_id"] = uuid.NewString()
		if err := r.rdb.XAdd(ctx, &redis.XAddArgs{Stream: "events", Values: values}).Err(); err != nil {
			continue
		}
		_ = r.markSent(ctx, row.ID)
	}
}

// ForwardToStreamKeyed appends each row under the event ID stored with
// it; a trace ID is new on every send and nobody drops a copy by it.
//
// corpus: ok attemptkey
// modelled on: open-outbox/relay internal/publishers/redis.go (an outbox event's fields XADDed as the entry's Values)
func (r *Relay) ForwardToStreamKeyed(ctx context.Context, rows []outboxRow) {
	for _, row := range rows {
		err := r.rdb.XAdd(ctx, &redis.XAddArgs{
			Stream: "events",
			Values: map[string]any{"event_id": row.EventID, "trace_id": uuid.NewString(), "kind": row.Kind, "payload": row.Payload},
		}).Err()
		if err != nil {
			continue
		}
		_ = r.markSent(ctx, row.ID)
	}
}

// Enqueuer puts jobs on the workers' list from the API.
type Enqueuer struct {
	rdb *redis.Client
}

// EnqueueUntilAccepted pushes the job again after every failure, building
// it anew each time: a push whose reply was lost lands twice under two
// IDs.
//
// corpus: bug attemptkey
// modelled on: kaviraj-j/dispatch internal/queue/job.go (newJob), pushed until Redis answers
func (e *Enqueuer) EnqueueUntilAccepted(ctx context.Context, kind string, payload []byte) error {
	for {
		err := e.rdb.LPush(ctx, "jobs:"+kind, mustJSON(newJob(kind, payload))).Err()
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
			continue
		}
		return nil
	}
}

// EnqueueOnce builds the job once and pushes that job until Redis takes
// it.
//
// corpus: ok attemptkey
// modelled on: kaviraj-j/dispatch internal/queue/job.go (newJob), pushed until Redis answers
func (e *Enqueuer) EnqueueOnce(ctx context.Context, kind string, payload []byte) error {
	body := mustJSON(newJob(kind, payload))
	for {
		err := e.rdb.LPush(ctx, "jobs:"+kind, body).Err()
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
			continue
		}
		return nil
	}
}

// Sweeper enqueues reminders that have come due.
type Sweeper struct {
	db  *pgxpool.Pool
	rdb *redis.Client
}

func (s *Sweeper) due(ctx context.Context) ([][]byte, error) {
	rows, err := s.db.Query(ctx, `SELECT payload FROM reminders WHERE due_at <= now() AND queued_at IS NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var p []byte
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Run pushes a new job for every reminder found due, then sleeps: each
// turn pushes other reminders, so a new ID per job is right.
//
// corpus: ok attemptkey
// modelled on: steffanharmaajarvi/go-orders-outbox internal/worker/outbox_dispatcher/outbox_dispatcher.go (a dispatcher that polls and waits between rounds)
func (s *Sweeper) Run(ctx context.Context) {
	for ctx.Err() == nil {
		due, err := s.due(ctx)
		if err == nil {
			for _, p := range due {
				_ = s.rdb.LPush(ctx, "jobs:reminder", mustJSON(Job{ID: uuid.NewString(), Kind: "reminder", Payload: p})).Err()
			}
		}
		time.Sleep(30 * time.Second)
	}
}

// Forwarder posts each webhook body it takes to a partner, and a
// heartbeat on every tick.
type Forwarder struct {
	hc  *http.Client
	url string
}

func (f *Forwarder) post(ctx context.Context, path string, body []byte, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := f.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (f *Forwarder) ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Run takes bodies and ticks in one select: each body is a delivery of its
// own, posted once under its own key; nothing is posted again.
//
// corpus: ok attemptkey
// modelled on: Chengxufeng1994/event-driven-arch-in-go cmd/busywork/client.go (a select loop on a timer and the context)
func (f *Forwarder) Run(ctx context.Context, bodies <-chan []byte) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case body := <-bodies:
			_ = f.post(ctx, "/hooks", body, uuid.NewString())
		case <-t.C:
			_ = f.ping(ctx)
		}
	}
}
