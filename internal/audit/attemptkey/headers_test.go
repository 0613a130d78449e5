package attemptkey

import (
	"slices"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

func TestKeyHeaders(t *testing.T) {
	t.Parallel()
	header := func(dedup, name string) rules.Target {
		return rules.Target{Dedup: dedup, Via: rules.Location{Kind: "header", Name: name}}
	}
	targets := []rules.Target{
		header(rules.DedupKey, "PayPal-Request-Id"),
		header(rules.DedupKey, "Idempotency-Key"),
		header(rules.DedupKey, "X-Request-Id"),
		header(rules.DedupKey, "Request-Id"),
		header(rules.DedupKey, "X-Correlation-Id"),
		header(rules.DedupNone, "X-Dedupe-Token"),
		{Dedup: rules.DedupKey, Via: rules.Location{Kind: "body", Name: "/idempotency_key"}},
	}
	got := keyHeaders(targets)
	want := []string{"PayPal-Request-Id", "Idempotency-Key"}
	if !slices.Equal(got, want) {
		t.Errorf("keyHeaders = %q, want %q", got, want)
	}
	if !slices.Contains(targetHeaders(), "PayPal-Request-Id") {
		t.Errorf("the default catalogue's key headers %q lack PayPal-Request-Id", targetHeaders())
	}
}
