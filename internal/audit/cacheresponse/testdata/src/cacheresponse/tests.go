package cacheresponse

import (
	"context"
	"testing"
)

// A test drives a store: what it completes is the test's business.
func TestKeepsWhatever(t *testing.T) {
	var keys Keys
	ok, _ := keys.Claim(context.Background(), "k")
	if !ok {
		t.Fatal("not claimed")
	}
	snap := Snapshot{Status: 503}
	keys.Complete(context.Background(), "k", snap)
}
