package checkthenact_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestFixRemovesRace runs the statements of consumeSQL before and after
// its suggested fix (sql.go and sql.go.golden, which Test holds the fix
// to) against a real Postgres, with every retry made to check before any
// of them writes. Before the fix the losers of the race fail with a
// duplicate key; after it, none fails and the event is recorded once.
// The fix is right only because nothing but the INSERT follows the check,
// which is when checkthenact offers it.
func TestFixRemovesRace(t *testing.T) {
	url := os.Getenv("IDEMKIT_TEST_DATABASE_URL")
	if url == "" {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatal("IDEMKIT_TEST_DATABASE_URL is not set (CI=true: a missing server fails the run)")
		}
		t.Skip("IDEMKIT_TEST_DATABASE_URL is not set (run scripts/testenv.sh up)")
	}
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = retries + 2 // every retry holds a connection at the barrier
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("postgres at IDEMKIT_TEST_DATABASE_URL: %v", err)
	}
	schema := fmt.Sprintf("checkthenact_fix_%d", os.Getpid())
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+schema+"; CREATE TABLE "+schema+".processed_events (event_id text PRIMARY KEY, processed_at timestamptz)"); err != nil {
		t.Fatal(err)
	}
	defer pool.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")

	for i, tc := range []struct {
		file          string
		wantConflicts bool
	}{
		{"testdata/src/checkthenact/sql.go", true},
		{"testdata/src/checkthenact/sql.go.golden", false},
	} {
		sel, ins := statements(t, tc.file, "consumeSQL")
		event := fmt.Sprintf("evt_%d", i)
		conflicts, rows := race(t, pool, schema, sel, ins, event, retries)
		if got := conflicts > 0; got != tc.wantConflicts {
			t.Errorf("%s: %d of %d concurrent retries failed on the duplicate key; want failures: %v", tc.file, conflicts, retries, tc.wantConflicts)
		}
		if rows != 1 {
			t.Errorf("%s: %d rows for the event, want 1", tc.file, rows)
		}
	}
}

// retries is how many concurrent retries of one event race.
const retries = 8

// race runs n retries of one event: each runs the check, waits until all
// have, then writes when it found nothing. It returns how many failed with
// a unique violation and how many rows the event has.
func race(t *testing.T, pool *pgxpool.Pool, schema, sel, ins, event string, n int) (conflicts, rows int) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	barrier := make(chan struct{})
	var arrived sync.WaitGroup
	arrived.Add(n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pool.Acquire(ctx)
			if err != nil {
				t.Error(err)
				arrived.Done()
				return
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "SET search_path TO "+schema); err != nil {
				t.Error(err)
				arrived.Done()
				return
			}
			var seen bool
			err = conn.QueryRow(ctx, sel, event).Scan(&seen)
			arrived.Done()
			<-barrier
			if err != nil {
				t.Error(err)
				return
			}
			if seen {
				return
			}
			_, err = conn.Exec(ctx, ins, event)
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr) && pgErr.Code == "23505":
				mu.Lock()
				conflicts++
				mu.Unlock()
			case err != nil:
				t.Error(err)
			}
		}()
	}
	arrived.Wait()
	close(barrier)
	wg.Wait()
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+schema+".processed_events WHERE event_id = $1", event).Scan(&rows); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return conflicts, rows
}

// statements returns the SQL of the first and the second database call
// in the named function of a Go file: its check and its write.
func statements(t *testing.T, file, fn string) (string, string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var sqls []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					sqls = append(sqls, s)
				}
			}
			return true
		})
	}
	if len(sqls) != 2 {
		t.Fatalf("%s: %s holds %d SQL literals, want 2", file, fn, len(sqls))
	}
	return sqls[0], sqls[1]
}
