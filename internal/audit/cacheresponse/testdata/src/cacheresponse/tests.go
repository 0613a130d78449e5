package cacheresponse

import (
	"context"
	"testing"
)

type snapStore struct{}

// Complete stores snap as key's answer.
//
//idemkit:complete
func (snapStore) Complete(ctx context.Context, key string, snap Snapshot) error { return nil }

// A test drives a store: what it completes is the test's business.
func TestKeepsWhatever(t *testing.T) {
	var s snapStore
	for _, snap := range []Snapshot{{Status: 201}, {Status: 503}} {
		s.Complete(context.Background(), "k", snap)
	}
}

// The same outside a test.
func keepWhatever(s snapStore) {
	for _, snap := range []Snapshot{{Status: 201}, {Status: 503}} {
		s.Complete(context.Background(), "k", snap) // want `Complete stores snap whatever its status`
	}
}
