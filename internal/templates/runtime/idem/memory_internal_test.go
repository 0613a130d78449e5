package idem

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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

// checkQueues fails t unless every record of s waits in exactly one expiry queue, at its
// expiry: the ring in order of expiry, the heap in heap order, and the in-progress records in
// the heap.
func checkQueues(t *testing.T, s *MemoryStore) {
	t.Helper()
	queued := map[int]bool{}
	prev := int64(math.MinInt64)
	for k := range s.ring.n {
		it := s.ring.items[(s.ring.head+k)&(len(s.ring.items)-1)]
		e := &s.entries[it.slot]
		switch {
		case it.at < prev:
			t.Fatalf("ring item %d expires at %d, before the one ahead of it (%d)", k, it.at, prev)
		case e.index != inRing || e.state != StateCompleted || e.expires != it.at:
			t.Fatalf("ring item %d (at %d) is slot %d, %+v", k, it.at, it.slot, *e)
		case queued[it.slot]:
			t.Fatalf("slot %d queued twice", it.slot)
		}
		prev, queued[it.slot] = it.at, true
	}
	for h, it := range s.expiry {
		e := &s.entries[it.slot]
		switch {
		case h > 0 && s.expiry[(h-1)/heapArity].at > it.at:
			t.Fatalf("heap item %d expires before its parent", h)
		case e.index != h || e.state == 0 || e.expires != it.at:
			t.Fatalf("heap item %d (at %d) is slot %d, %+v", h, it.at, it.slot, *e)
		case queued[it.slot]:
			t.Fatalf("slot %d queued twice", it.slot)
		}
		queued[it.slot] = true
	}
	if len(queued) != s.live() {
		t.Fatalf("%d records queued, %d live", len(queued), s.live())
	}
}

// TestMemoryExpiryMixedOrder: records that do not arrive in order of expiry — a shorter TTL
// after longer ones, a lease extended past the records completed meanwhile, a claim completed
// with a TTL shorter than its own — expire when their time comes, not when the records queued
// before them do; a release among queued records leaves them be.
func TestMemoryExpiryMixedOrder(t *testing.T) {
	t.Parallel()
	start := time.Unix(1e9, 0)
	now := start
	s := NewMemoryStore(MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	at := func(d time.Duration) { now = start.Add(d) }
	claim := func(key string, lease, ttl time.Duration) string {
		t.Helper()
		c, err := s.Claim(ctx, key, "fp", lease, ttl)
		if err != nil || c.Outcome != Claimed {
			t.Fatalf("Claim %s = %v, %v; want claimed", key, c.Outcome, err)
		}
		checkQueues(t, s)
		return c.Token
	}
	complete := func(key, token string, ttl time.Duration) {
		t.Helper()
		if err := s.Complete(ctx, key, token, Response{Status: 200}, ttl); err != nil {
			t.Fatalf("Complete %s: %v", key, err)
		}
		checkQueues(t, s)
	}
	want := func(live ...string) {
		t.Helper()
		for _, key := range []string{"a", "b", "short", "extended", "shortened", "released", "after"} {
			_, err := s.Get(ctx, key)
			if found := err == nil; found != slices.Contains(live, key) {
				t.Errorf("at %v: Get %s found %v, want %v", now.Sub(start), key, found, !found)
			}
		}
		if n := s.Len(); n != len(live) {
			t.Errorf("at %v: Len = %d, want %d", now.Sub(start), n, len(live))
		}
		checkQueues(t, s)
	}

	complete("a", claim("a", time.Second, time.Hour), time.Hour) // expires at 1h
	at(time.Minute)
	complete("b", claim("b", time.Second, time.Hour), time.Hour) // 1h1m
	extended := claim("extended", time.Second, 90*time.Second)   // 2m30s, until extended
	shortened := claim("shortened", time.Second, 3*time.Hour)    // 3h1m, until completed
	released := claim("released", time.Second, time.Hour)
	at(2 * time.Minute)
	complete("short", claim("short", time.Second, time.Minute), time.Minute) // 3m, behind b
	if err := s.Extend(ctx, "extended", extended, 2*time.Hour); err != nil { // 2h2m
		t.Fatal(err)
	}
	complete("shortened", shortened, 10*time.Minute) // 12m
	if err := s.Release(ctx, "released", released); err != nil {
		t.Fatal(err)
	}
	checkQueues(t, s)
	complete("after", claim("after", time.Second, time.Hour), time.Hour) // 1h2m, in the released slot
	want("a", "b", "short", "extended", "shortened", "after")

	at(3*time.Minute - time.Nanosecond)
	want("a", "b", "short", "extended", "shortened", "after")
	at(3 * time.Minute)
	want("a", "b", "extended", "shortened", "after")
	at(12 * time.Minute)
	want("a", "b", "extended", "after")
	at(time.Hour)
	want("b", "extended", "after")
	at(time.Hour + time.Minute)
	want("extended", "after")
	at(time.Hour + 2*time.Minute)
	want("extended")
	at(2*time.Hour + 2*time.Minute - time.Nanosecond)
	want("extended")
	at(2*time.Hour + 2*time.Minute)
	want()
}

// TestMemoryQueuesRandom: under a random mix of operations, most with one TTL, some with shorter
// ones and a few with longer ones (which send the common TTL's records to the heap for a while),
// and a clock that sometimes stands still, records expire exactly when their time comes and each
// waits in the right queue.
func TestMemoryQueuesRandom(t *testing.T) {
	t.Parallel()
	now := time.Unix(1e9, 0)
	s := NewMemoryStore(MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	type model struct {
		expires time.Time
		token   string
	}
	want := map[string]*model{}
	ttl := func() time.Duration {
		switch n := rng.IntN(100); {
		case n < 70:
			return 300 * time.Millisecond
		case n < 95:
			return time.Duration(1+rng.IntN(300)) * time.Millisecond
		}
		return time.Duration(300+rng.IntN(300)) * time.Millisecond
	}
	inRing, completedInHeap := 0, 0
	for i := range 20000 {
		key := strconv.Itoa(rng.IntN(300))
		m := want[key]
		switch op := rng.IntN(4); {
		case op == 0 && m != nil && m.token != "":
			d := ttl()
			if err := s.Complete(ctx, key, m.token, Response{Status: 200}, d); err != nil {
				t.Fatalf("step %d: Complete %s: %v", i, key, err)
			}
			m.expires, m.token = now.Add(d), ""
		case op == 1 && m != nil && m.token != "" && rng.IntN(2) == 0:
			if err := s.Release(ctx, key, m.token); err != nil {
				t.Fatalf("step %d: Release %s: %v", i, key, err)
			}
			delete(want, key)
		case op == 1 && m != nil && m.token != "":
			lease := time.Duration(1+rng.IntN(600)) * time.Millisecond
			if err := s.Extend(ctx, key, m.token, lease); err != nil {
				t.Fatalf("step %d: Extend %s: %v", i, key, err)
			}
			if e := now.Add(lease); m.expires.Before(e) {
				m.expires = e
			}
		default:
			lease, d := time.Duration(1+rng.IntN(100))*time.Millisecond, ttl()
			c, err := s.Claim(ctx, key, "fp", lease, d)
			if err != nil {
				t.Fatalf("step %d: Claim %s: %v", i, key, err)
			}
			if (m == nil) != (c.Outcome == Claimed) {
				t.Fatalf("step %d: Claim %s = %v, model %+v", i, key, c.Outcome, m)
			}
			if c.Held() {
				want[key] = &model{expires: now.Add(max(lease, d)), token: c.Token}
			}
		}
		if rng.IntN(3) == 0 {
			now = now.Add(time.Duration(rng.IntN(10)) * time.Millisecond)
		}
		for k, m := range want {
			if !now.Before(m.expires) {
				delete(want, k)
			}
		}
		if n := s.Len(); n != len(want) {
			t.Fatalf("step %d: Len = %d, want %d", i, n, len(want))
		}
		checkQueues(t, s)
		if s.ring.n > 0 {
			inRing++
		}
		if slices.ContainsFunc(s.expiry, func(it expiryItem) bool { return s.entries[it.slot].state == StateCompleted }) {
			completedInHeap++
		}
		if i%97 == 0 {
			for k := range 300 {
				key := strconv.Itoa(k)
				if _, err := s.Get(ctx, key); (err == nil) != (want[key] != nil) {
					t.Fatalf("step %d: Get %s: %v; want found %v", i, key, err, want[key] != nil)
				}
			}
		}
	}
	if inRing < 10000 || completedInHeap < 5000 {
		t.Errorf("records waited in the ring in %d steps of 20000 and completed ones in the heap in %d: the test misses a queue", inRing, completedInHeap)
	}
}

// TestMemoryOneTTLKeepsOutOfTheHeap: records of one TTL on a clock that moves forward all expire
// from the ring; the heap holds only the records in progress.
func TestMemoryOneTTLKeepsOutOfTheHeap(t *testing.T) {
	t.Parallel()
	now := time.Unix(1e9, 0)
	s := NewMemoryStore(MemoryOptions{MaxEntries: 100, Now: func() time.Time { return now }})
	ctx := context.Background()
	var holding []Claim
	for i := range 1000 {
		now = now.Add(time.Second)
		c, err := s.Claim(ctx, strconv.Itoa(i), "fp", time.Minute, 90*time.Second)
		if err != nil {
			t.Fatalf("claim %d: %v", i, err)
		}
		holding = append(holding, c)
		if len(holding) == 3 { // three in progress at once, completed out of order
			for _, j := range []int{1, 0, 2} {
				if err := s.Complete(ctx, holding[j].Record.Key, holding[j].Token, Response{Status: 200}, 90*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			holding = holding[:0]
		}
		if len(s.expiry) != len(holding) {
			t.Fatalf("after claim %d the heap holds %d records, %d in progress", i, len(s.expiry), len(holding))
		}
		checkQueues(t, s)
	}
	if n := s.Len(); n != 91 {
		t.Errorf("Len = %d, want the 90 records completed in the last TTL and one in progress", n)
	}
}
