package storetest

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// Benchmark measures a store's hot paths, in the store operations a request costs: a new key
// (claim and complete, two round trips) and a replay (one claim), each with a 1 KiB response; and
// bursts of concurrent replays, all of one hot key against one each of as many keys. A store
// whose replays take a lock or write shows it there: the hot key's burst queues on the key, and
// hot/spread, the ratio of their times, rises above 1.
//
// The new-key run writes one record per iteration and keeps it an hour, so the store must hold
// b.N records: give a bounded store room for them.
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
		complete(b, s, "k", resp)
		for b.Loop() {
			replay(b, s, "k")
		}
	})
	// Each iteration is two bursts of concurrentReplays claims at once, in turns: all of one hot
	// key, and one each of as many keys. The turns share the machine's load, so their ratio holds
	// on a busy machine where each alone would not; ns/op is both bursts.
	b.Run("Concurrent"+strconv.Itoa(concurrentReplays)+"Replays", func(b *testing.B) {
		s := newStore(b)
		keys := make([]string, concurrentReplays)
		for i := range keys {
			keys[i] = "k" + strconv.Itoa(i)
			complete(b, s, keys[i], resp)
		}
		burst := func(key func(i int) string) time.Duration {
			start := time.Now()
			var wg sync.WaitGroup
			for i := range concurrentReplays {
				wg.Go(func() { replay(b, s, key(i)) })
			}
			wg.Wait()
			return time.Since(start)
		}
		hotKey := func(int) string { return keys[0] }
		spreadKeys := func(i int) string { return keys[i] }
		var hot, spread time.Duration
		turn := 0
		for b.Loop() {
			turn++
			if turn%2 == 0 {
				hot += burst(hotKey)
				spread += burst(spreadKeys)
			} else {
				spread += burst(spreadKeys)
				hot += burst(hotKey)
			}
		}
		n := float64(b.N * concurrentReplays)
		b.ReportMetric(float64(hot.Nanoseconds())/n, "hot-ns/replay")
		b.ReportMetric(float64(spread.Nanoseconds())/n, "spread-ns/replay")
		b.ReportMetric(float64(hot)/float64(spread), "hot/spread")
	})
}

// concurrentReplays is the size of a burst of replays.
const concurrentReplays = 200

// complete stores resp under key, for the replays to find.
func complete(b *testing.B, s idem.Store, key string, resp idem.Response) {
	c, err := s.Claim(b.Context(), key, "fp", time.Minute, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Complete(b.Context(), key, c.Token, resp, time.Hour); err != nil {
		b.Fatal(err)
	}
}

// replay claims a completed key and checks that it was a replay. It may run on any goroutine.
func replay(b *testing.B, s idem.Store, key string) {
	r, err := s.Claim(b.Context(), key, "fp", time.Minute, time.Hour)
	if err != nil || r.Outcome != idem.Replay {
		b.Errorf("claim %q = %v, %v; want replay", key, r.Outcome, err)
	}
}
