package asynq

import (
	"context"
	"time"
)

// Client is a minimal copy of asynq's client, which enqueues tasks.
type Client struct{}

type Option interface{}

type TaskInfo struct{ ID string }

// TaskID names a task; asynq refuses a second task under the same ID.
func TaskID(id string) Option { return nil }

func Queue(name string) Option { return nil }

func (c *Client) Enqueue(task *Task, opts ...Option) (*TaskInfo, error) { return nil, nil }

func (c *Client) EnqueueContext(ctx context.Context, task *Task, opts ...Option) (*TaskInfo, error) {
	return nil, nil
}

// Unique makes asynq refuse a task of the same queue, type and payload
// while one is held, for ttl.
func Unique(ttl time.Duration) Option { return nil }
