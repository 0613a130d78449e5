package idemhttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/pgstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
)

// realStores makes, for each real backend, a function that returns a new store client — one per
// simulated server instance — on data shared by the clients under name (a key prefix, a schema)
// and isolated from other tests. The functions skip (fail under CI) the test they are given when
// the server is missing.
func realStores(name string) map[string]func(testing.TB) idem.Store {
	prefix := name + ":"
	return map[string]func(testing.TB) idem.Store{
		"redis": func(tb testing.TB) idem.Store {
			opt, err := redis.ParseURL(testenv.URL(tb, testenv.RedisURL))
			if err != nil {
				tb.Fatal(err)
			}
			rdb := redis.NewClient(opt)
			tb.Cleanup(func() { rdb.Close() })
			if err := rdb.Ping(context.Background()).Err(); err != nil {
				testenv.Unreachable(tb, testenv.RedisURL, err)
			}
			tb.Cleanup(func() {
				ctx := context.Background()
				for iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator(); iter.Next(ctx); {
					rdb.Del(ctx, iter.Val())
				}
			})
			return redisstore.New(rdb, redisstore.Options{Prefix: prefix})
		},
		"postgres": func(tb testing.TB) idem.Store {
			cfg, err := pgxpool.ParseConfig(testenv.URL(tb, testenv.DatabaseURL))
			if err != nil {
				tb.Fatal(err)
			}
			cfg.MaxConns = 8
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(pool.Close)
			if err := pool.Ping(context.Background()); err != nil {
				testenv.Unreachable(tb, testenv.DatabaseURL, err)
			}
			schema := strings.TrimSuffix(prefix, ":")
			tb.Cleanup(func() {
				pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			})
			s := pgstore.New(pool, pgstore.Options{Schema: schema})
			if err := s.Migrate(context.Background()); err != nil {
				tb.Fatal(err)
			}
			return s
		},
	}
}

// TestInstancesShareOneStore: 8 server instances, each with its own store client, share one
// Redis (and then one Postgres); 200 concurrent duplicates of each of 3 keys are spread over
// them. Each key's handler runs exactly once and never concurrently; every other answer is a 409
// or a replay of the same body.
func TestInstancesShareOneStore(t *testing.T) {
	t.Parallel()
	for name, newStore := range realStores(testenv.Name(t)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const instances, duplicates = 8, 200
			keys := []string{"k1", "k2", "k3"}
			var (
				mu      sync.Mutex
				runs    = map[string]int{}
				running = map[string]bool{}
			)
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				key := r.Header.Get(idemhttp.HeaderKey)
				mu.Lock()
				if running[key] {
					t.Errorf("key %s ran concurrently", key)
				}
				running[key] = true
				runs[key]++
				mu.Unlock()
				time.Sleep(20 * time.Millisecond) // long enough for duplicates to arrive meanwhile
				mu.Lock()
				running[key] = false
				mu.Unlock()
				fmt.Fprintf(w, "result for %s", key)
			})
			var urls []string
			for range instances {
				mw, err := idemhttp.New(idemhttp.Options{
					Keeper:   &idem.Keeper{Store: newStore(t), Lease: 10 * time.Second},
					Unscoped: true,
					Logger:   slog.New(slog.DiscardHandler),
				})
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(mw(handler))
				t.Cleanup(srv.Close)
				urls = append(urls, srv.URL)
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}, Timeout: time.Minute}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range duplicates * len(keys) {
				wg.Go(func() {
					key := keys[i%len(keys)]
					req, _ := http.NewRequest(http.MethodPost, urls[i%instances]+"/orders", strings.NewReader(`{"n":1}`))
					req.Header.Set(idemhttp.HeaderKey, key)
					req.Header.Set("Content-Type", "application/json")
					<-start
					resp, err := client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					defer resp.Body.Close()
					body, _ := io.ReadAll(resp.Body)
					switch {
					case resp.StatusCode == http.StatusConflict:
					case resp.StatusCode == http.StatusOK && string(body) == "result for "+key:
					default:
						t.Errorf("key %s answered %d %q, want 409 or the one result", key, resp.StatusCode, body)
					}
				})
			}
			close(start)
			wg.Wait()
			for _, key := range keys {
				if runs[key] != 1 {
					t.Errorf("key %s ran %d times, want exactly once", key, runs[key])
				}
			}
		})
	}
}

// BenchmarkMiddleware measures the per-request overhead of the middleware with each store
// against the bare handler: a new key each time (claim and complete) and a replay (one claim).
func BenchmarkMiddleware(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":"ch_1","amount":4200}`))
	})
	body := `{"customer":"cus_1","amount":4200,"currency":"eur"}`
	serve := func(b *testing.B, h http.Handler, key func(i int) string) {
		i := 0
		for b.Loop() {
			i++
			r := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(idemhttp.HeaderKey, key(i))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusCreated {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
		}
	}
	b.Run("bare", func(b *testing.B) { serve(b, handler, func(int) string { return "k" }) })
	stores := map[string]func(testing.TB) idem.Store{"memory": func(testing.TB) idem.Store {
		return idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: 1 << 30, MaxBytes: 1 << 40})
	}}
	for name, newStore := range realStores(testenv.Name(b)) {
		stores[name] = newStore
	}
	for name, newStore := range stores {
		b.Run(name, func(b *testing.B) {
			mw, err := idemhttp.New(idemhttp.Options{Keeper: &idem.Keeper{Store: newStore(b)}, Unscoped: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			h := mw(handler)
			run := testenv.Name(b)
			b.Run("new", func(b *testing.B) { serve(b, h, func(i int) string { return fmt.Sprint(run, i) }) })
			b.Run("replay", func(b *testing.B) { serve(b, h, func(int) string { return "replayed" }) })
		})
	}
}

// BenchmarkDuplicateStorm measures throughput under a storm: each iteration sends 64 concurrent
// duplicates of a new key through the middleware; one runs the handler, the rest get a 409 or
// the replay.
func BenchmarkDuplicateStorm(b *testing.B) {
	const duplicates = 64
	stores := map[string]func(testing.TB) idem.Store{"memory": func(testing.TB) idem.Store {
		return idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: 1 << 30, MaxBytes: 1 << 40})
	}}
	for name, newStore := range realStores(testenv.Name(b)) {
		stores[name] = newStore
	}
	for name, newStore := range stores {
		b.Run(name, func(b *testing.B) {
			mw, err := idemhttp.New(idemhttp.Options{Keeper: &idem.Keeper{Store: newStore(b)}, Unscoped: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("done")) }))
			run := testenv.Name(b)
			i := 0
			for b.Loop() {
				i++
				key := fmt.Sprint(run, i)
				var wg sync.WaitGroup
				for range duplicates {
					wg.Go(func() {
						r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`))
						r.Header.Set(idemhttp.HeaderKey, key)
						w := httptest.NewRecorder()
						h.ServeHTTP(w, r)
						if w.Code != http.StatusOK && w.Code != http.StatusConflict {
							b.Errorf("status %d", w.Code)
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.N*duplicates)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
