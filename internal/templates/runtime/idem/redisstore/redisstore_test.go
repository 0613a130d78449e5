package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// client connects to the test Redis, or skips (fails under CI) when there is none.
func client(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(testenv.URL(t, testenv.RedisURL))
	if err != nil {
		t.Fatalf("%s: %v", testenv.RedisURL, err)
	}
	opt.PoolSize = 100 // the suite races 64 claims at once
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		testenv.Unreachable(t, testenv.RedisURL, err)
	}
	return rdb
}

// newStore returns a Store whose keys live under a prefix of the test's own, deleted afterwards.
func newStore(t testing.TB, rdb *redis.Client) (*redisstore.Store, string) {
	prefix := testenv.Name(t) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
	})
	return redisstore.New(rdb, redisstore.Options{Prefix: prefix}), prefix
}

func TestConformance(t *testing.T) {
	rdb := client(t)
	storetest.Run(t, func(t testing.TB) idem.Store {
		s, _ := newStore(t, rdb)
		return s
	})
}

// TestServerSideExpiry: every state of a record carries a Redis expiry, so a record nobody comes
// back for still goes away, and the key lives under the prefix.
func TestServerSideExpiry(t *testing.T) {
	rdb := client(t)
	s, prefix := newStore(t, rdb)
	ctx := t.Context()
	pttl := func(state string) time.Duration {
		t.Helper()
		d, err := rdb.PTTL(ctx, prefix+"k").Result()
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 {
			t.Fatalf("%s record has no expiry (PTTL %v)", state, d)
		}
		return d
	}
	c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := pttl("in-progress"); d < 59*time.Minute {
		t.Errorf("in-progress record expires in %v, want the claim's TTL of 1h", d)
	}
	if err := s.Extend(ctx, "k", c.Token, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if d := pttl("extended"); d < 119*time.Minute {
		t.Errorf("record expires in %v after extending the lease to 2h", d)
	}
	if err := s.Complete(ctx, "k", c.Token, idem.Response{Status: 200}, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := pttl("completed"); d > 10*time.Minute {
		t.Errorf("completed record expires in %v, want its result TTL of 10m", d)
	}
}

// TestDefaultPrefix: a Store without a prefix keeps its records under DefaultPrefix.
func TestDefaultPrefix(t *testing.T) {
	rdb := client(t)
	key := testenv.Name(t)
	t.Cleanup(func() { rdb.Del(context.Background(), redisstore.DefaultPrefix+key) })
	s := redisstore.New(rdb, redisstore.Options{})
	if _, err := s.Claim(t.Context(), key, "fp", time.Minute, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(t.Context(), redisstore.DefaultPrefix+key).Result(); err != nil || n != 1 {
		t.Errorf("EXISTS %s%s = %d, %v; want 1", redisstore.DefaultPrefix, key, n, err)
	}
}

// TestUnavailable: with no Redis listening every operation fails with ErrStoreUnavailable, which
// the middleware turns into a 503 without running the handler. It needs no server.
func TestUnavailable(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	s := redisstore.New(rdb, redisstore.Options{})
	ctx := t.Context()
	for name, op := range map[string]func() error{
		"Claim":    func() error { _, err := s.Claim(ctx, "k", "fp", time.Minute, time.Minute); return err },
		"Complete": func() error { return s.Complete(ctx, "k", "tok", idem.Response{}, time.Minute) },
		"Release":  func() error { return s.Release(ctx, "k", "tok") },
		"Extend":   func() error { return s.Extend(ctx, "k", "tok", time.Minute) },
		"Get":      func() error { _, err := s.Get(ctx, "k"); return err },
	} {
		if err := op(); !errors.Is(err, idem.ErrStoreUnavailable) {
			t.Errorf("%s with Redis down = %v, want ErrStoreUnavailable", name, err)
		}
	}
	if _, err := idem.Do(ctx, s, "k", "fp", func(context.Context) (idem.Response, error) {
		t.Error("the work ran without a claim")
		return idem.Response{}, nil
	}); !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Do with Redis down = %v, want ErrStoreUnavailable", err)
	}
}

func BenchmarkStore(b *testing.B) {
	rdb := client(b)
	storetest.Benchmark(b, func(t testing.TB) idem.Store {
		s, _ := newStore(t, rdb)
		return s
	})
}
