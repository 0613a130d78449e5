package idem_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, newMemory)
}

// BenchmarkMemorySteadyState measures a new key's claim and complete on a memory store in the
// steady state of a server under constant load, as BenchmarkOverhead in idemhttp has it: it
// holds 10,000 records, and a fake clock moves a TTL/10,000 forward with each new key, so every
// claim expires the oldest record.
func BenchmarkMemorySteadyState(b *testing.B) {
	const live = 10_000
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := idem.NewMemoryStore(idem.MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	resp := idem.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"ch_1","amount":12999}`)}
	keys := make([]string, 4*live)
	for i := range keys {
		keys[i] = "idem:0::POST:8:/charges:" + strconv.Itoa(i)
	}
	fp := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	i := 0
	step := func() {
		now = now.Add(idem.DefaultTTL / live)
		key := keys[i%len(keys)]
		i++
		c, err := s.Claim(ctx, key, fp, idem.DefaultLease, idem.DefaultTTL)
		if err != nil || c.Outcome != idem.Claimed {
			b.Fatalf("claim %s: %v, %v", key, c.Outcome, err)
		}
		if err := s.Complete(ctx, key, c.Token, resp, idem.DefaultTTL); err != nil {
			b.Fatal(err)
		}
	}
	for range live {
		step()
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}
