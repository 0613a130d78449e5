// Package river is a minimal copy of github.com/riverqueue/river's signatures.
package river

import "context"

type JobArgs interface{ Kind() string }

type Job[T JobArgs] struct {
	ID      int64
	Attempt int
	Args    T
}

type Worker[T JobArgs] interface {
	Work(ctx context.Context, job *Job[T]) error
}

type WorkerDefaults[T JobArgs] struct{}
