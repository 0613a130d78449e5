package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/pgstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// connect opens a pool on the test database, or skips (fails under CI) when there is none.
// configure, when given, adjusts the pool's settings first.
func connect(t testing.TB, configure ...func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testenv.URL(t, testenv.DatabaseURL))
	if err != nil {
		t.Fatalf("%s: %v", testenv.DatabaseURL, err)
	}
	cfg.MaxConns = 32
	for _, f := range configure {
		f(cfg)
	}
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(t.Context()); err != nil {
		testenv.Unreachable(t, testenv.DatabaseURL, err)
	}
	return pool
}

// newStore returns a migrated Store in a schema of the test's own, dropped afterwards.
func newStore(t testing.TB, pool *pgxpool.Pool) (*pgstore.Store, string) {
	t.Helper()
	schema := testenv.Name(t)
	t.Cleanup(func() { dropSchema(t, pool, schema) })
	s := pgstore.New(pool, pgstore.Options{Schema: schema})
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s, schema
}

func dropSchema(t testing.TB, pool *pgxpool.Pool, schema string) {
	if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
	}
}

func TestConformance(t *testing.T) {
	pool := connect(t)
	storetest.Run(t, func(t testing.TB) idem.Store {
		s, _ := newStore(t, pool)
		return s
	}, storetest.WithOutage(func(t testing.TB, dial storetest.DialFunc) idem.Store {
		// A pool of its own, whose connections the suite cuts; the schema is dropped through the
		// shared one, which stays up.
		linked := connect(t, func(cfg *pgxpool.Config) { cfg.ConnConfig.DialFunc = pgconn.DialFunc(dial) })
		schema := testenv.Name(t)
		t.Cleanup(func() { dropSchema(t, pool, schema) })
		s := pgstore.New(linked, pgstore.Options{Schema: schema})
		if err := s.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		return s
	}))
}

// TestRefusalsWriteNothing: a replay, a live lease and a mismatch are answered from a read. The
// row keeps its version (ctid, xmin) and takes no lock, which would set its xmax: a claim that
// locked the row to refuse it would queue every replay of a hot key behind the others.
func TestRefusalsWriteNothing(t *testing.T) {
	pool := connect(t)
	s, schema := newStore(t, pool)
	ctx := t.Context()
	table := pgx.Identifier{schema, pgstore.DefaultTable}.Sanitize()
	version := func(key string) string {
		t.Helper()
		var v string
		if err := pool.QueryRow(ctx, "SELECT ctid::text || ' ' || xmin::text || ' ' || xmax::text FROM "+table+" WHERE key = $1", key).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	done, err := s.Claim(ctx, "done", "fp", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, "done", done.Token, idem.Response{Status: 201}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "busy", "fp", time.Hour, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, fp string
		want    idem.Outcome
	}{
		{"done", "fp", idem.Replay},
		{"done", "other", idem.Mismatch},
		{"busy", "fp", idem.InProgress},
		{"busy", "other", idem.Mismatch},
	} {
		before := version(tc.key)
		for range 3 {
			c, err := s.Claim(ctx, tc.key, tc.fp, time.Minute, time.Hour)
			if err != nil || c.Outcome != tc.want {
				t.Fatalf("claim %s with %s = %v, %v; want %v", tc.key, tc.fp, c.Outcome, err, tc.want)
			}
		}
		if after := version(tc.key); after != before {
			t.Errorf("%v claims of %s changed its row (ctid xmin xmax) from %s to %s", tc.want, tc.key, before, after)
		}
	}
}

// TestMigrateConcurrent: every instance migrates at start-up, at the same time, repeatedly.
func TestMigrateConcurrent(t *testing.T) {
	pool := connect(t)
	schema := testenv.Name(t)
	t.Cleanup(func() { dropSchema(t, pool, schema) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := pgstore.New(pool, pgstore.Options{Schema: schema, Table: "keys"}).Migrate(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM "+pgx.Identifier{schema, "keys"}.Sanitize()).Scan(&n); err != nil || n != 0 {
		t.Errorf("table %s.keys after migrating: %d rows, %v", schema, n, err)
	}
}

// TestClaimTx: the claim, the business write and the response commit or roll back together.
func TestClaimTx(t *testing.T) {
	pool := connect(t)
	s, schema := newStore(t, pool)
	ctx := t.Context()
	orders := pgx.Identifier{schema, "orders"}.Sanitize()
	if _, err := pool.Exec(ctx, "CREATE TABLE "+orders+" (id text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	run := func(commit bool) idem.Claim {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		c, err := s.ClaimTx(ctx, tx, "k", "fp", time.Minute, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Held() {
			return c
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+orders+" VALUES ('o1')"); err != nil {
			t.Fatal(err)
		}
		if err := s.CompleteTx(ctx, tx, "k", c.Token, idem.Response{Status: 201, Body: []byte("o1")}, time.Hour); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	countOrders := func() int {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+orders).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if c := run(false); c.Outcome != idem.Claimed {
		t.Fatalf("first claim in a transaction = %v", c.Outcome)
	}
	if _, err := s.Get(ctx, "k"); !errors.Is(err, idem.ErrNotFound) || countOrders() != 0 {
		t.Fatalf("after rollback: Get = %v and %d orders; want neither the key nor the order", err, countOrders())
	}
	if c := run(true); c.Outcome != idem.Claimed {
		t.Fatalf("claim after the rollback = %v, want claimed", c.Outcome)
	}
	if c := run(true); c.Outcome != idem.Replay || string(c.Record.Response.Body) != "o1" {
		t.Fatalf("claim after the commit = %v %q, want the replayed response", c.Outcome, c.Record.Response.Body)
	}
	if n := countOrders(); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// TestClaimTxBlocksConcurrentClaim: a claim of a key another transaction has claimed waits for
// that transaction, then sees what it committed — a replay, not a second run.
func TestClaimTxBlocksConcurrentClaim(t *testing.T) {
	pool := connect(t)
	s, _ := newStore(t, pool)
	ctx := t.Context()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	c, err := s.ClaimTx(ctx, tx, "k", "fp", time.Minute, time.Hour)
	if err != nil || c.Outcome != idem.Claimed {
		t.Fatalf("ClaimTx = %v, %v", c.Outcome, err)
	}
	var txPID int
	if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&txPID); err != nil {
		t.Fatal(err)
	}
	other := make(chan idem.Claim, 1)
	go func() {
		c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
		if err != nil {
			t.Error(err)
		}
		other <- c
	}()
	// The concurrent claim must be waiting on the transaction's lock before the commit.
	end := time.Now().Add(15 * time.Second)
	for {
		var blocked bool
		err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))", txPID).Scan(&blocked)
		if err != nil {
			t.Fatal(err)
		}
		if blocked {
			break
		}
		select {
		case got := <-other:
			t.Fatalf("the concurrent claim returned %v before the transaction ended", got.Outcome)
		default:
		}
		if time.Now().After(end) {
			t.Fatal("the concurrent claim never waited on the transaction")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.CompleteTx(ctx, tx, "k", c.Token, idem.Response{Status: 200, Body: []byte("done")}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-other; got.Outcome != idem.Replay || string(got.Record.Response.Body) != "done" {
		t.Errorf("concurrent claim after commit = %v %q, want the replay", got.Outcome, got.Record.Response.Body)
	}
}

// TestSweep: expired rows are already invisible; Sweep deletes them in batches and leaves live ones.
func TestSweep(t *testing.T) {
	pool := connect(t)
	s, schema := newStore(t, pool)
	ctx := t.Context()
	const expiring = 7
	for i := range expiring {
		key := string(rune('a' + i))
		c, err := s.Claim(ctx, key, "fp", time.Millisecond, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 { // completed and in-progress rows both expire
			if err := s.Complete(ctx, key, c.Token, idem.Response{Status: 200}, 500*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.Claim(ctx, "live", "fp", time.Hour, time.Hour); err != nil {
		t.Fatal(err)
	}
	for i := range expiring {
		for end := time.Now().Add(15 * time.Second); ; {
			_, err := s.Get(ctx, string(rune('a'+i)))
			if errors.Is(err, idem.ErrNotFound) {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("row %c never expired: %v", 'a'+i, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	n, err := s.Sweep(ctx, 3)
	if err != nil || n != expiring {
		t.Fatalf("Sweep = %d, %v; want %d deleted", n, err, expiring)
	}
	var rows int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{schema, pgstore.DefaultTable}.Sanitize()).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("%d rows left, %v; want the live one", rows, err)
	}
	if _, err := s.Sweep(ctx, 0); !errors.Is(err, idem.ErrInvalid) {
		t.Errorf("Sweep with batch 0 = %v, want ErrInvalid", err)
	}
}

// TestRunSweeper: the background sweeper removes rows as they expire and stops with its context.
func TestRunSweeper(t *testing.T) {
	pool := connect(t)
	s, schema := newStore(t, pool)
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := s.Claim(ctx, "k", "fp", time.Millisecond, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		s.RunSweeper(ctx, 10*time.Millisecond, 100, func(err error) { t.Error(err) })
		close(done)
	}()
	table := pgx.Identifier{schema, pgstore.DefaultTable}.Sanitize()
	for end := time.Now().Add(15 * time.Second); ; {
		var rows int
		if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the sweeper never removed the expired row")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}

// TestSweepUnavailable: a sweep with no Postgres listening fails with ErrStoreUnavailable; the
// conformance suite's outage tests cover the Store methods. It needs no server.
func TestSweepUnavailable(t *testing.T) {
	pool, err := pgxpool.New(t.Context(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pgstore.New(pool, pgstore.Options{}).Sweep(t.Context(), 10); !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Sweep with Postgres down = %v, want ErrStoreUnavailable", err)
	}
}

func BenchmarkStore(b *testing.B) {
	pool := connect(b)
	storetest.Benchmark(b, func(t testing.TB) idem.Store {
		s, _ := newStore(t, pool)
		return s
	})
}

// BenchmarkPoolSize runs bursts of 200 concurrent requests — new keys (claim and complete) and
// replays of one hot key — through pools of several sizes (pgxpool's MaxConns, the URL's
// pool_max_conns), for docs/postgres.md. ns/op is a whole burst; ns/request divides it.
func BenchmarkPoolSize(b *testing.B) {
	const burst = 200
	resp := idem.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: make([]byte, 1024)}
	for _, conns := range []int32{4, 8, 16, 32, 64} {
		// A pool and a table per size, closed and dropped before the next size opens.
		b.Run(fmt.Sprintf("MaxConns%d", conns), func(b *testing.B) {
			pool := connect(b, func(cfg *pgxpool.Config) { cfg.MaxConns = conns })
			s, _ := newStore(b, pool)
			claimAndComplete := func(key string) {
				c, err := s.Claim(b.Context(), key, "fp", time.Minute, time.Hour)
				if err != nil {
					b.Error(err)
					return
				}
				if c.Held() {
					if err := s.Complete(b.Context(), key, c.Token, resp, time.Hour); err != nil {
						b.Error(err)
					}
				}
			}
			claimAndComplete("hot")
			next := 0
			for _, kind := range []string{"New", "Replay"} {
				run := func() {
					var wg sync.WaitGroup
					for range burst {
						next++
						key := "hot"
						if kind == "New" {
							key = strconv.Itoa(next)
						}
						wg.Go(func() { claimAndComplete(key) })
					}
					wg.Wait()
				}
				b.Run(kind, func(b *testing.B) {
					run() // opens the pool's connections before the clock starts
					for b.Loop() {
						run()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*burst), "ns/request")
				})
			}
		})
	}
}
