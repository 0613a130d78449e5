// Package retry is a minimal copy of github.com/avast/retry-go/v4's signatures.
package retry

import (
	"context"
	"time"
)

type RetryableFunc func() error
type RetryableFuncWithData[T any] func() (T, error)
type Option func(*Config)
type Config struct{}

func Do(retryableFunc RetryableFunc, opts ...Option) error { return retryableFunc() }
func DoWithData[T any](retryableFunc RetryableFuncWithData[T], opts ...Option) (T, error) {
	return retryableFunc()
}
func Attempts(attempts uint) Option      { return nil }
func Delay(delay time.Duration) Option   { return nil }
func Context(ctx context.Context) Option { return nil }
func Unrecoverable(err error) error      { return err }
