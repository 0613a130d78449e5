// Package backoff is a minimal copy of github.com/cenkalti/backoff/v4's signatures.
package backoff

import (
	"context"
	"time"
)

type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

type ExponentialBackOff struct{ MaxElapsedTime time.Duration }

func NewExponentialBackOff() *ExponentialBackOff         { return &ExponentialBackOff{} }
func (b *ExponentialBackOff) NextBackOff() time.Duration { return 0 }
func (b *ExponentialBackOff) Reset()                     {}
func WithMaxRetries(b BackOff, max uint64) BackOff       { return b }
func WithContext(b BackOff, ctx context.Context) BackOff { return b }

type Operation func() error
type OperationWithData[T any] func() (T, error)
type Notify func(error, time.Duration)

func Retry(o Operation, b BackOff) error                                { return o() }
func RetryNotify(operation Operation, b BackOff, notify Notify) error   { return operation() }
func RetryWithData[T any](o OperationWithData[T], b BackOff) (T, error) { return o() }
func Permanent(err error) error                                         { return err }
