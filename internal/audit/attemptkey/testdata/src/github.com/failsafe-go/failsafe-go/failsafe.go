// Package failsafe is a minimal copy of failsafe-go's executor, which runs
// a function under the policies it is built from.
package failsafe

import "context"

type Policy[R any] interface{ policy() }

type Executor[R any] interface {
	WithContext(ctx context.Context) Executor[R]
	Run(fn func() error) error
	Get(fn func() (R, error)) (R, error)
}

func With[R any](policies ...Policy[R]) Executor[R] { return nil }

func Run(fn func() error, policies ...Policy[any]) error { return nil }
