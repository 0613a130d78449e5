package storetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// Benchmark measures a store's two hot paths, in the store operations a request costs: a new key
// (claim and complete, two round trips) and a replay (one claim), each with a 1 KiB response.
func Benchmark(b *testing.B, newStore func(testing.TB) idem.Store) {
	resp := idem.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: make([]byte, 1024)}
	b.Run("New", func(b *testing.B) {
		s := newStore(b)
		i := 0
		for b.Loop() {
			i++
			key := strconv.Itoa(i)
			c, err := s.Claim(b.Context(), key, "fp", time.Minute, time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Complete(b.Context(), key, c.Token, resp, time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Replay", func(b *testing.B) {
		s := newStore(b)
		c, err := s.Claim(b.Context(), "k", "fp", time.Minute, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Complete(b.Context(), "k", c.Token, resp, time.Hour); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			r, err := s.Claim(b.Context(), "k", "fp", time.Minute, time.Hour)
			if err != nil || r.Outcome != idem.Replay {
				b.Fatalf("claim = %v, %v; want replay", r.Outcome, err)
			}
		}
	})
}
