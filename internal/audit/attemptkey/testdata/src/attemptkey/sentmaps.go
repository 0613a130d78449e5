package attemptkey

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
)

// xaddJobRetried names the stream entry's job anew on each attempt: a job
// whose XADD landed but whose answer was lost runs twice.
func xaddJobRetried(ctx context.Context, rdb *redis.Client, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = rdb.XAdd(ctx, &redis.XAddArgs{
			Stream: "jobs",
			Values: map[string]any{"job_id": uuid.NewString(), "payload": payload}, // want `inside the retry loop at sentmaps.go:\d+ reaches the "job_id" entry of a map sent by XAdd`
		}).Err()
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// pushTaskRetried pushes a JSON task whose task_id is set on each attempt.
func pushTaskRetried(ctx context.Context, rdb *redis.Client, kind string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		task := map[string]any{"kind": kind}
		task["task_id"] = ulid.Make().String() // want `inside the retry loop at sentmaps.go:\d+ reaches the "task_id" entry of a map sent by RPush`
		body, _ := json.Marshal(task)
		if err = rdb.RPush(ctx, "queue:tasks", body).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// publishMsgRetried gives the message a new msg_id on each attempt.
func publishMsgRetried(ctx context.Context, pub beatPublisher, text string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		body, _ := json.Marshal(map[string]string{"msg_id": uuid.NewString(), "text": text}) // want `inside the retry loop at sentmaps.go:\d+ reaches the "msg_id" entry of a map sent by Publish`
		if err = pub.Publish(ctx, body); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// xaddJobKeyed carries an idempotency key besides the job's new ID, which
// the consumers go by.
func xaddJobKeyed(ctx context.Context, rdb *redis.Client, key string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		values := map[string]any{"job_id": uuid.NewString(), "idempotency_key": key, "payload": payload}
		if err = rdb.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: values}).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// xaddJobOnce names the job before its retries.
func xaddJobOnce(ctx context.Context, rdb *redis.Client, payload []byte) error {
	values := map[string]any{"job_id": uuid.NewString(), "payload": payload}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = rdb.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: values}).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// xaddTraced gives each attempt a new trace ID and a new order reference
// it was handed fresh: neither is the entry's own ID.
func xaddTraced(ctx context.Context, rdb *redis.Client, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		values := map[string]any{"trace_id": uuid.NewString(), "order_id": uuid.NewString(), "payload": payload}
		if err = rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders", Values: values}).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
