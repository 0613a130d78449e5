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
// a burst of concurrent replays, all of one hot key against as many over as many keys. A store
// whose replays take a lock or write shows it there: the one-key burst queues on the key.
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
	// Each iteration is a burst of concurrentReplays claims at once; ns/op is the whole burst.
	for _, keys := range []int{1, concurrentReplays} {
		b.Run("Concurrent"+strconv.Itoa(concurrentReplays)+"Replays/Keys"+strconv.Itoa(keys), func(b *testing.B) {
			s := newStore(b)
			for k := range keys {
				complete(b, s, strconv.Itoa(k), resp)
			}
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range concurrentReplays {
					wg.Go(func() { replay(b, s, strconv.Itoa(i%keys)) })
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*concurrentReplays), "ns/replay")
		})
	}
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
