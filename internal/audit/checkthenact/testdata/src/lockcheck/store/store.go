// Package store declares a response store behind an interface, with no
// implementation in sight: its methods' names and arguments say what they
// do.
package store

import (
	"context"
	"time"
)

// Store keeps responses by idempotency key, and a lock per key.
type Store interface {
	Get(ctx context.Context, key string) (*Response, error)
	Set(ctx context.Context, key string, r *Response, ttl time.Duration) error
	Lock(ctx context.Context, key string, ttl time.Duration) error
	Unlock(ctx context.Context, key string) error
}

// Response is a recorded answer.
type Response struct {
	Status int
	Body   []byte
}
