package attemptkey

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
	"github.com/riverqueue/river"
)

// streamRow is an outbox row relayed onto a Redis stream or a job queue.
type streamRow struct {
	ID      int64
	EventID string
	Kind    string
	Payload []byte
}

type streamMarks interface {
	MarkPublished(ctx context.Context, id int64) error
}

// xaddRows appends each row to a stream under an event ID made on this
// pass: the stream's consumers drop a copy by event_id.
func xaddRows(ctx context.Context, rdb *redis.Client, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		err := rdb.XAdd(ctx, &redis.XAddArgs{
			Stream: "events",
			Values: map[string]any{"event_id": uuid.NewString(), "kind": row.Kind, "payload": row.Payload}, // want `inside the relay loop over row at enqueue.go:\d+ reaches the "event_id" entry of a map sent by XAdd`
		}).Err()
		if err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// xaddRowsKeyed appends each row under its own event ID.
func xaddRowsKeyed(ctx context.Context, rdb *redis.Client, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		values := map[string]any{"event_id": row.EventID, "kind": row.Kind}
		values["trace_id"] = uuid.NewString()
		if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "events", Values: values}).Err(); err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// xaddRetried sets the entry's own id inside the retries.
func xaddRetried(ctx context.Context, rdb *redis.Client, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		values := map[string]any{"payload": payload}
		values["id"] = ulid.Make().String() // want `inside the retry loop at enqueue.go:\d+ reaches the "id" entry of a map sent by XAdd`
		if err = rdb.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: values}).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// xaddIdempotencyKeyed carries a key besides the entry's new id.
func xaddIdempotencyKeyed(ctx context.Context, rdb *redis.Client, key string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		values := map[string]any{"id": uuid.NewString(), "idempotency_key": key, "payload": payload}
		if err = rdb.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: values}).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// pushJobRetried pushes a job marshalled with an ID made per attempt.
func pushJobRetried(ctx context.Context, rdb *redis.Client, kind string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		body, _ := json.Marshal(Job{ID: uuid.NewString(), Kind: kind, Payload: payload}) // want `inside the retry loop at enqueue.go:\d+ reaches the ID of a Job sent by RPush`
		if err = rdb.RPush(ctx, "queue:jobs", body).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// pushJobs pushes one new job for each payload: a loop over items.
func pushJobs(ctx context.Context, rdb *redis.Client, kind string, payloads [][]byte) {
	for _, p := range payloads {
		body, _ := json.Marshal(Job{ID: uuid.NewString(), Kind: kind, Payload: p})
		_ = rdb.LPush(ctx, "queue:jobs", body).Err()
	}
}

// ReceiptArgs are a river job's args, named by the receipt they send.
type ReceiptArgs struct {
	ReceiptID string
	OrderID   int64
}

func (ReceiptArgs) Kind() string { return "receipt" }

// insertReceipts inserts a job for each row with a receipt ID made on this
// pass, in the transaction that marks the row.
func insertReceipts(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		if _, err := rc.InsertTx(ctx, tx, ReceiptArgs{ReceiptID: uuid.NewString(), OrderID: row.ID}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil { // want `inside the relay loop over row at enqueue.go:\d+ reaches the ReceiptID of a ReceiptArgs sent by InsertTx`
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// insertReceiptsKeyed names each receipt by its row's event.
func insertReceiptsKeyed(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		if _, err := rc.InsertTx(ctx, tx, ReceiptArgs{ReceiptID: row.EventID, OrderID: row.ID}, nil); err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// enqueueTasks enqueues each row's task under a task ID made on this pass.
func enqueueTasks(ctx context.Context, c *asynq.Client, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		task := asynq.NewTask(row.Kind, row.Payload)
		if _, err := c.EnqueueContext(ctx, task, asynq.TaskID(uuid.NewString())); err != nil { // want `inside the relay loop over row at enqueue.go:\d+ reaches the asynq task ID \(TaskID\)`
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// enqueueTasksKeyed enqueues each row's task under the row's event ID.
func enqueueTasksKeyed(ctx context.Context, c *asynq.Client, marks streamMarks, rows []streamRow) {
	for _, row := range rows {
		task := asynq.NewTask(row.Kind, row.Payload)
		if _, err := c.EnqueueContext(ctx, task, asynq.TaskID(row.EventID)); err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

// enqueueNew enqueues a new task per call, as a handler does.
func enqueueNew(ctx context.Context, c *asynq.Client, kind string, payload []byte) error {
	_, err := c.EnqueueContext(ctx, asynq.NewTask(kind, payload), asynq.TaskID(uuid.NewString()))
	return err
}
