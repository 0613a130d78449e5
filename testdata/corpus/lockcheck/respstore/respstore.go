// Package respstore declares where the replay middleware keeps answers:
// an interface whose backends live in the services that use it, none in
// this module.
package respstore

import (
	"context"
	"net/http"
	"time"
)

// Store keeps a recorded answer per idempotency key, and a lock per key
// that Unlock gives back.
type Store interface {
	Lock(ctx context.Context, key string, ttl time.Duration) error
	Unlock(ctx context.Context, key string) error
	Get(ctx context.Context, key string) (*Answer, error)
	Set(ctx context.Context, key string, a *Answer, ttl time.Duration) error
}

// Answer is a response kept for replay.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}
