package idem

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestMemoryHashCollisions: keys whose hashes collide (here in threes) are kept apart, found,
// completed, released and expired one by one, in whatever order their records come and go.
func TestMemoryHashCollisions(t *testing.T) {
	t.Parallel()
	now := time.Unix(1e9, 0)
	s := NewMemoryStore(MemoryOptions{Now: func() time.Time { return now }})
	s.hash = func(key string) uint64 { n, _ := strconv.Atoi(key); return uint64(n % 3) }
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	type model struct {
		expires time.Time
		token   string
		done    bool
	}
	want := map[string]*model{}
	for i := range 5000 {
		key := strconv.Itoa(rng.IntN(12))
		d := time.Duration(1+rng.IntN(50)) * time.Millisecond
		m := want[key]
		switch op := rng.IntN(3); {
		case op == 0 && m != nil && m.token != "":
			if err := s.Complete(ctx, key, m.token, Response{Status: 200, Body: []byte(key)}, d); err != nil {
				t.Fatalf("step %d: Complete %s: %v", i, key, err)
			}
			m.expires, m.token, m.done = now.Add(d), "", true
		case op == 1 && m != nil && m.token != "":
			if err := s.Release(ctx, key, m.token); err != nil {
				t.Fatalf("step %d: Release %s: %v", i, key, err)
			}
			delete(want, key)
		default:
			c, err := s.Claim(ctx, key, "fp", d, d)
			if err != nil {
				t.Fatalf("step %d: Claim %s: %v", i, key, err)
			}
			switch {
			case m == nil && c.Outcome != Claimed,
				m != nil && m.done && c.Outcome != Replay,
				m != nil && !m.done && c.Outcome != InProgress:
				t.Fatalf("step %d: Claim %s = %v, want it as the model has it: %+v", i, key, c.Outcome, m)
			case c.Outcome == Replay && string(c.Record.Response.Body) != key:
				t.Fatalf("step %d: Claim %s replays %q", i, key, c.Record.Response.Body)
			case c.Held():
				want[key] = &model{expires: now.Add(d), token: c.Token}
			}
		}
		now = now.Add(time.Duration(rng.IntN(5)) * time.Millisecond)
		for k, m := range want {
			if !now.Before(m.expires) {
				delete(want, k)
			}
		}
		if n := s.Len(); n != len(want) {
			t.Fatalf("step %d: Len = %d, want %d", i, n, len(want))
		}
		for k := range 12 {
			key := strconv.Itoa(k)
			if r, err := s.Get(ctx, key); (err == nil) != (want[key] != nil) || err == nil && r.Key != key {
				t.Fatalf("step %d: Get %s = %+v, %v; want found %v", i, key, r, err, want[key] != nil)
			}
		}
	}
}
