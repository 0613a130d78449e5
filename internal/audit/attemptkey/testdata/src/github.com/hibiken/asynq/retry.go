package asynq

import "context"

// GetRetryCount returns how many times the task has been retried.
func GetRetryCount(ctx context.Context) (int, bool) { return 0, false }
