package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
)

// BenchmarkVsBaseline runs the store and the least a hand-written client could do for the same
// job side by side, in alternating rounds on the same Redis and connection pool, so that a busy
// machine slows both alike. A new key is Claim + Complete against SET NX + SET XX (two round
// trips, no token, lease or fingerprint check); a replay is Claim against one SET ... NX GET.
// It reports the store's ns/op, the baseline's (base-ns/op), and the store's throughput as a
// fraction of the baseline's (x-baseline): the goal is at least 0.9. The responses are 1 KiB;
// New16K completes new keys with 16 KiB responses, to show that a complete's cost on the server
// does not grow with the response faster than a plain SET's.
//
// It runs on two servers: server=redis is the one in IDEMKIT_TEST_REDIS_URL (scripts/testenv.sh
// starts Debian bookworm's Redis 7.0), whose SET has no IFEQ, so a complete runs a script;
// server=valkey is the one in IDEMKIT_TEST_VALKEY_URL (Valkey 8.1), where a complete is one SET
// ... IFEQ.
func BenchmarkVsBaseline(b *testing.B) {
	for _, srv := range []struct{ name, env string }{{"redis", testenv.RedisURL}, {"valkey", testenv.ValkeyURL}} {
		b.Run("server="+srv.name, func(b *testing.B) { vsBaseline(b, clientAt(b, srv.env)) })
	}
}

func vsBaseline(b *testing.B, rdb *redis.Client) {
	fp := strings.Repeat("f", 64) // a hex SHA-256, as the middleware's fingerprints are
	held := "P" + idem.NewToken() + "|0|" + fp
	ctx := context.Background()
	// record is the record the baseline writes for a response of size bytes, as long as the store's.
	record := func(size int) string {
		return "C" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "|64|" + fp + "201|1|1|12|Content-Type1|16|application/json" + string(make([]byte, size))
	}
	for _, tc := range []struct {
		name    string
		workers int
		size    int
	}{{"New", 1, 1 << 10}, {"New", 16, 1 << 10}, {"New16K", 1, 16 << 10}, {"New16K", 16, 16 << 10}} {
		b.Run(fmt.Sprintf("%s/workers=%d", tc.name, tc.workers), func(b *testing.B) {
			resp := idem.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: make([]byte, tc.size)}
			done := record(tc.size)
			s, prefix := newStore(b, rdb)
			var n atomic.Int64
			sideBySide(b, tc.workers, func() error {
				key := strconv.FormatInt(n.Add(1), 10)
				c, err := s.Claim(ctx, key, fp, time.Minute, time.Hour)
				if err != nil {
					return err
				}
				if c.Outcome != idem.Claimed {
					return fmt.Errorf("claim of a new key = %v", c.Outcome)
				}
				return s.Complete(ctx, key, c.Token, resp, time.Hour)
			}, func() error {
				key := prefix + "base:" + strconv.FormatInt(n.Add(1), 10)
				if err := rdb.SetArgs(ctx, key, held, redis.SetArgs{Mode: "NX", TTL: time.Hour}).Err(); err != nil {
					return err
				}
				//idemkit:ignore releaseonerror the bare two commands the store is measured against; an error fails the benchmark
				return rdb.SetArgs(ctx, key, done, redis.SetArgs{Mode: "XX", TTL: time.Hour}).Err()
			})
		})
	}
	resp := idem.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: make([]byte, 1<<10)}
	done := record(1 << 10)
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("Replay/workers=%d", workers), func(b *testing.B) {
			s, prefix := newStore(b, rdb)
			c, err := s.Claim(ctx, "k", fp, time.Minute, time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Complete(ctx, "k", c.Token, resp, time.Hour); err != nil {
				b.Fatal(err)
			}
			if err := rdb.Set(ctx, prefix+"base", done, time.Hour).Err(); err != nil {
				b.Fatal(err)
			}
			sideBySide(b, workers, func() error {
				r, err := s.Claim(ctx, "k", fp, time.Minute, time.Hour)
				if err == nil && (r.Outcome != idem.Replay || len(r.Record.Response.Body) != len(resp.Body)) {
					err = fmt.Errorf("claim = %v with a body of %d bytes, want a replay of %d", r.Outcome, len(r.Record.Response.Body), len(resp.Body))
				}
				return err
			}, func() error {
				v, err := rdb.SetArgs(ctx, prefix+"base", held, redis.SetArgs{Mode: "NX", Get: true, TTL: time.Hour}).Result()
				if err == nil && len(v) != len(done) {
					err = fmt.Errorf("SET NX GET answered %d bytes, want %d", len(v), len(done))
				}
				return err
			})
		})
	}
}

// sideBySide runs b.N operations of store and of base, each spread over workers goroutines, in
// alternating rounds, and reports each one's wall time per operation and their ratio.
func sideBySide(b *testing.B, workers int, store, base func() error) {
	const round = 20
	var storeTime, baseTime time.Duration
	run := func(op func() error, ops int) time.Duration {
		var (
			wg   sync.WaitGroup
			left atomic.Int64
			fail atomic.Pointer[error]
		)
		left.Store(int64(ops))
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if err := op(); err != nil {
						fail.CompareAndSwap(nil, &err)
						return
					}
				}
			})
		}
		wg.Wait()
		d := time.Since(start)
		if err := fail.Load(); err != nil {
			b.Fatal(*err)
		}
		return d
	}
	b.ResetTimer()
	for done, i := 0, 0; done < b.N; i++ {
		ops := min(round, b.N-done)
		if i%2 == 0 {
			storeTime += run(store, ops)
			baseTime += run(base, ops)
		} else {
			baseTime += run(base, ops)
			storeTime += run(store, ops)
		}
		done += ops
	}
	b.StopTimer()
	b.ReportMetric(float64(storeTime.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(baseTime.Nanoseconds())/float64(b.N), "base-ns/op")
	b.ReportMetric(baseTime.Seconds()/storeTime.Seconds(), "x-baseline")
}
