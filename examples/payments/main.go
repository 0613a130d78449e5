// Command payments is a small payment API built the way an idemkit user builds one: its specs
// are in knowledge/projects/ (written by idemkit design), and its idempotency code was written by
// idemkit generate — the runtime in internal/idem, the charge endpoint's wiring in charges/ and
// the processor webhook's in webhooks/. The service's own code is in charges/charge_work.go and
// webhooks/processor_events_work.go; the card processor is an in-process fake that counts its
// calls. See README.md for a walk through it with curl.
//
//	go run ./examples/payments -addr 127.0.0.1:8080 -store memory|redis|postgres
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/examples/payments/internal/idem"
	"github.com/idemkit/idemkit/examples/payments/internal/idem/pgstore"
	"github.com/idemkit/idemkit/examples/payments/internal/idem/redisstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "payments:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// config is what the flags say.
type config struct {
	addr, store, redisURL, redisPrefix, databaseURL, schema, secret string
	latency                                                         time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("payments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	fs.StringVar(&c.store, "store", "memory", "idempotency store: memory, redis or postgres")
	fs.StringVar(&c.redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis URL, for -store redis")
	fs.StringVar(&c.redisPrefix, "redis-prefix", "payments:", "prefix of the keys in Redis")
	fs.StringVar(&c.databaseURL, "database-url", "postgres://127.0.0.1:5432/payments", "Postgres URL, for -store postgres")
	fs.StringVar(&c.schema, "database-schema", "", "Postgres schema of the keys table (default: the search_path)")
	fs.StringVar(&c.secret, "webhook-secret", "whsec_example", "signing secret of the processor's webhook")
	fs.DurationVar(&c.latency, "processor-latency", 0, "how long each processor call takes (try 5s to see a 409)")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return c, nil
}

// run serves the API until ctx is done, saying on stdout where it listens.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	store, audit, closeStore, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	defer closeStore()
	a, err := newApp(store, audit, c.secret, time.Now, log)
	if err != nil {
		return err
	}
	a.processor.SetLatency(c.latency)

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second}
	auditIn := "memory"
	if c.store == "postgres" {
		auditIn = "postgres"
	}
	fmt.Fprintf(stdout, "payments example listening on http://%s (store: %s, audit rows: %s)\n", ln.Addr(), c.store, auditIn)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openStore connects the store the flags name and checks that it answers, so that a wrong URL
// fails at start-up rather than as a 503 on the first request. The charges' audit rows go to
// Postgres with -store postgres, and are kept in memory otherwise (a real service keeps them in
// Postgres whatever its key store: see the spec).
func openStore(ctx context.Context, c config, log *slog.Logger) (idem.Store, idem.AuditLog, func(), error) {
	switch c.store {
	case "memory":
		return idem.NewMemoryStore(idem.MemoryOptions{}), idem.NewMemoryAuditLog(nil), func() {}, nil
	case "redis":
		opts, err := redis.ParseURL(c.redisURL)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: -redis-url: %v", errUsage, err)
		}
		rdb := redis.NewClient(opts)
		if err := rdb.Ping(ctx).Err(); err != nil {
			rdb.Close()
			return nil, nil, nil, fmt.Errorf("redis at %s: %w", c.redisURL, err)
		}
		return redisstore.New(rdb, redisstore.Options{Prefix: c.redisPrefix}), idem.NewMemoryAuditLog(nil), func() { rdb.Close() }, nil
	case "postgres":
		pool, err := pgxpool.New(ctx, c.databaseURL)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: -database-url: %v", errUsage, err)
		}
		store := pgstore.New(pool, pgstore.Options{Schema: c.schema})
		audit := pgstore.NewAuditLog(pool, pgstore.AuditOptions{Schema: c.schema})
		for _, m := range []interface{ Migrate(context.Context) error }{store, audit} {
			if err := m.Migrate(ctx); err != nil {
				pool.Close()
				return nil, nil, nil, fmt.Errorf("postgres at %s: %w", c.databaseURL, err)
			}
		}
		// Rows do not expire by themselves in Postgres: sweep the expired ones in batches.
		sweep, stop := context.WithCancel(context.WithoutCancel(ctx))
		go store.RunSweeper(sweep, time.Minute, 1000, func(err error) { log.Warn("sweeping expired keys", "err", err) })
		return store, audit, func() { stop(); pool.Close() }, nil
	}
	return nil, nil, nil, fmt.Errorf("%w: -store %q: want memory, redis or postgres", errUsage, c.store)
}
