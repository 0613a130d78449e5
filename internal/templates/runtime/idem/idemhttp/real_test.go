package idemhttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// body1K is a typical 1 KB JSON request body: a payment with line items, addresses and metadata.
const body1K = `{"customer":"cus_9a8b7c6d5e4f","amount":12999,"currency":"eur","locale":"fr-FR","v":2,` +
	`"description":"Order #100234 for Jane Doe","timestamp":"2026-01-01T12:34:56.789Z","capture":true,` +
	`"statement_descriptor":null,"items":[{"sku":"SKU-00017","name":"Espresso cups, set of 4","qty":2,` +
	`"unit_price":1999,"tax_rate":0.2,"discount":null},{"sku":"SKU-00342","name":"Grinder \u00e9dition limit\u00e9e",` +
	`"qty":1,"unit_price":7999,"tax_rate":0.2,"discount":{"code":"WINTER","percent":10}},{"sku":"SKU-01200",` +
	`"name":"Descaler","qty":3,"unit_price":333,"tax_rate":0.055,"discount":null}],"shipping":{"name":"Jane Doe",` +
	`"phone":"+33 1 23 45 67 89","address":{"line1":"12 rue de la Paix","line2":"Bâtiment B","city":"Paris",` +
	`"postal_code":"75002","country":"FR"},"method":"express","cost":599},"billing":{"same_as_shipping":true},` +
	`"metadata":{"order_id":"o-100234","channel":"web","campaign":"newsletter-2026-01","ab_bucket":7,` +
	`"referrer":"https://example.com/promo?utm_source=mail"},"risk":{"score":12.5,"checks":["cvc","postal_code","3ds"]}}`

// chargeHandler stands for the handler being protected: it reads the body and answers 201.
var chargeHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write([]byte(`{"id":"ch_1","amount":12999}`))
})

// newChargeRequest is a 1 KB JSON POST under key, as a server hands it to a handler. It is made
// by http.NewRequest rather than parsed by httptest.NewRequest, which reads each request through
// a new 4 KB bufio.Reader where a server reuses one per connection: that garbage, tripling what a
// benchmark iteration allocates, made the collector run three times as often as serving would,
// and each run marks every record the store holds.
func newChargeRequest(key string) *http.Request {
	r, err := http.NewRequest(http.MethodPost, "/charges", strings.NewReader(body1K))
	if err != nil {
		panic(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(idemhttp.HeaderKey, key)
	return r
}

// serveCharge serves r through h and fails the benchmark unless the handler's answer came back.
func serveCharge(b *testing.B, h http.Handler, r *http.Request) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusCreated {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// newMiddleware wraps chargeHandler in the middleware over s, excluding the body's timestamp.
func newMiddleware(b *testing.B, s idem.Store) http.Handler {
	mw, err := idemhttp.New(idemhttp.Options{Keeper: &idem.Keeper{Store: s}, Unscoped: true,
		Exclude: []string{"timestamp"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return mw(chargeHandler)
}

func bigMemoryStore(testing.TB) idem.Store {
	return idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: 1 << 30, MaxBytes: 1 << 40})
}

// BenchmarkMiddleware measures a 1 KB JSON POST through the middleware with each store against
// the bare handler: a new key each time (claim and complete) and a replay (one claim).
func BenchmarkMiddleware(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveCharge(b, chargeHandler, newChargeRequest("k"))
		}
	})
	stores := map[string]func(testing.TB) idem.Store{"memory": bigMemoryStore}
	for name, newStore := range realStores(testenv.Name(b)) {
		stores[name] = newStore
	}
	for name, newStore := range stores {
		b.Run(name, func(b *testing.B) {
			h := newMiddleware(b, newStore(b))
			run := testenv.Name(b)
			b.Run("new", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					serveCharge(b, h, newChargeRequest(run+strconv.Itoa(i)))
				}
			})
			b.Run("replay", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					serveCharge(b, h, newChargeRequest("replayed"))
				}
			})
		})
	}
}

// BenchmarkOverhead measures what the middleware adds to a 1 KB JSON POST on the memory store,
// beside the bare handler in the same run, so that load on the machine weighs on both alike:
// each iteration serves one request through the bare handler and one through the middleware,
// each timed on its own (building the request is left out of both). It reports bare-ns/req,
// idem-ns/req, their difference overhead-ns/req (the goal: at most 5000) and overhead-allocs/req,
// for a new key (claim, run, complete) and a replay (one claim).
//
// The store is in the steady state of a server under constant load: it holds overheadLive
// records, as a fake clock moves a TTL/overheadLive forward with each new key, so every claim
// expires the oldest record. The run measures what a request costs then, the collector's marking
// of the live records included, rather than a map growing with b.N.
func BenchmarkOverhead(b *testing.B) {
	const overheadLive = 10_000
	for _, tc := range []struct {
		name string
		key  func(i int) string
		step time.Duration
	}{
		{"new", strconv.Itoa, idem.DefaultTTL / overheadLive},
		{"replay", func(int) string { return "replayed" }, 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var clock atomic.Int64
			clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
			s := idem.NewMemoryStore(idem.MemoryOptions{Now: func() time.Time { return time.Unix(0, clock.Load()) }})
			h := newMiddleware(b, s)
			serve := func(i int) {
				clock.Add(int64(tc.step))
				serveCharge(b, h, newChargeRequest(tc.key(i)))
			}
			i := 0
			for range overheadLive { // reach the steady state
				i++
				serve(i)
			}
			var bare, idem time.Duration
			for b.Loop() {
				i++
				r := newChargeRequest("k")
				start := time.Now()
				serveCharge(b, chargeHandler, r)
				bare += time.Since(start)
				r = newChargeRequest(tc.key(i))
				clock.Add(int64(tc.step))
				start = time.Now()
				serveCharge(b, h, r)
				idem += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(float64(bare.Nanoseconds())/n, "bare-ns/req")
			b.ReportMetric(float64(idem.Nanoseconds())/n, "idem-ns/req")
			b.ReportMetric(float64((idem-bare).Nanoseconds())/n, "overhead-ns/req")
			b.StopTimer()
			allocs := func(h http.Handler) float64 {
				return testing.AllocsPerRun(100, func() {
					i++
					r := newChargeRequest(tc.key(i))
					clock.Add(int64(tc.step))
					serveCharge(b, h, r)
				})
			}
			b.ReportMetric(allocs(h)-allocs(chargeHandler), "overhead-allocs/req")
			if n := s.Len(); n > overheadLive+1 {
				b.Fatalf("the store holds %d records, more than the %d of the steady state", n, overheadLive)
			}
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
