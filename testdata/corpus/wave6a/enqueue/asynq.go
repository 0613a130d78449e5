package enqueue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
)

// TaskExportClip is the asynq type of a clip export.
const TaskExportClip = "clip:export"

type exportPayload struct {
	ClipID      string `json:"clip_id"`
	UserID      string `json:"user_id"`
	RequestID   string `json:"request_id"`
	RequestedAt int64  `json:"requested_at,omitempty"`
}

// Exports enqueues clip exports on asynq.
type Exports struct {
	client *asynq.Client
}

// Enqueue queues an export of a clip with asynq.Unique, so that a double
// click does not render it twice; the payload carries a request ID made
// for this enqueue, so the second click's payload differs and both run.
//
// corpus: bug attemptkey
// modelled on: hibiken/asynq client.go (Unique: a task is a duplicate while one of the same queue, type and payload is held)
func (e *Exports) Enqueue(ctx context.Context, clipID, userID string) error {
	payload, err := json.Marshal(exportPayload{ClipID: clipID, UserID: userID, RequestID: uuid.NewString()})
	if err != nil {
		return err
	}
	_, err = e.client.EnqueueContext(ctx, asynq.NewTask(TaskExportClip, payload), asynq.Unique(10*time.Minute), asynq.MaxRetry(2))
	return err
}

// EnqueueOnce queues the export by the clip and its user alone.
//
// corpus: ok attemptkey
// modelled on: hibiken/asynq client.go (Unique: a task is a duplicate while one of the same queue, type and payload is held)
func (e *Exports) EnqueueOnce(ctx context.Context, clipID, userID string) error {
	payload, err := json.Marshal(exportPayload{ClipID: clipID, UserID: userID})
	if err != nil {
		return err
	}
	task := asynq.NewTask(TaskExportClip, payload)
	_, err = e.client.EnqueueContext(ctx, task, asynq.Unique(10*time.Minute), asynq.MaxRetry(2))
	return err
}

// NewRegisterClusterTask builds the task that registers a cluster, unique
// for ten minutes; its payload carries the time it was built, so no two
// are ever the same.
//
// corpus: bug attemptkey
// modelled on: hibiken/asynq client.go (NewTask with options: Unique given to the task itself)
func NewRegisterClusterTask(clusterID string) (*asynq.Task, error) {
	data, err := json.Marshal(map[string]any{"cluster_id": clusterID, "queued_at": time.Now().Unix()})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask("cluster:register", data, asynq.MaxRetry(5), asynq.Unique(10*time.Minute)), nil
}

// NewDigestTask builds the day's digest task for a user: the day, cut from
// the clock, names the slot, the same for every enqueue that day.
//
// corpus: ok attemptkey
// modelled on: hibiken/asynq client.go (NewTask with options: Unique given to the task itself)
func NewDigestTask(userID string) (*asynq.Task, error) {
	data, err := json.Marshal(map[string]any{"user_id": userID, "day": time.Now().UTC().Format("2006-01-02")})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask("digest:send", data, asynq.Unique(24*time.Hour)), nil
}
