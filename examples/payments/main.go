// Command payments is a small payment API built the way an idemkit user builds one: its specs
// are in knowledge/projects/ (written by idemkit design), and its idempotency code was written by
// idemkit generate — the runtime in internal/idem, the charge endpoint's wiring in charges/ and
// the processor webhook's in webhooks/. The service's own code is in charges/charge_work.go and
// webhooks/processor_events_work.go; the card processor is a fake that counts its calls, in the
// process, or shared by several instances over HTTP (-processor-url, as the fault soak runs
// them). See README.md for a walk through it with curl.
//
//	go run ./examples/payments -addr 127.0.0.1:8080 -store memory|redis|postgres
//
// GET /metrics serves the idempotency store's metrics to Prometheus (see metrics.go and
// docs/operations.md).
package main

import (
	"bytes"
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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/examples/payments/internal/idem"
	"github.com/idemkit/idemkit/examples/payments/internal/idem/pgstore"
	"github.com/idemkit/idemkit/examples/payments/internal/idem/redisstore"
	"github.com/idemkit/idemkit/examples/payments/processor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The runtime logs what it does on its own (a takeover, a key it could not release) to
	// slog's default logger: the same format as the service's.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil, errors.Is(err, errHelp):
		return
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "payments:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "payments:", err)
		os.Exit(1)
	}
}

var (
	errUsage = errors.New("usage")
	// errHelp: -h or --help asked for the usage, which went to stdout; not a failure.
	errHelp = errors.New("help requested")
)

// config is what the flags say.
type config struct {
	addr, store, redisURL, redisPrefix, databaseURL, schema, secret string
	processorURL                                                    string
	latency, lease                                                  time.Duration
	memoryMaxEntries                                                int
	memoryMaxBytes                                                  int64
}

// parseFlags reads the flags. The usage goes to stdout when asked for (-h, --help: errHelp) and
// to stderr with a usage error.
func parseFlags(args []string, stdout, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("payments", flag.ContinueOnError)
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	fs.StringVar(&c.store, "store", "memory", "idempotency store: memory, redis or postgres")
	fs.StringVar(&c.redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis URL, for -store redis")
	fs.StringVar(&c.redisPrefix, "redis-prefix", "payments:", "prefix of the keys in Redis")
	fs.StringVar(&c.databaseURL, "database-url", "postgres://127.0.0.1:5432/payments",
		"Postgres URL, for -store postgres; size its pool with ?pool_max_conns=N (docs/postgres.md)")
	fs.StringVar(&c.schema, "database-schema", "", "Postgres schema of the keys table (default: the search_path)")
	fs.StringVar(&c.secret, "webhook-secret", "whsec_example", "signing secret of the processor's webhook")
	fs.DurationVar(&c.latency, "processor-latency", 0, "how long each processor call takes (try 5s to see a 409)")
	fs.DurationVar(&c.lease, "lease", 0,
		"lease of a charge's and an event's claim, renewed while it runs; 0: the specs' (30s). Shorter than a holder's longest stall lets a retry run it again")
	fs.StringVar(&c.processorURL, "processor-url", "",
		"base URL of a card processor served over HTTP (processor.Handler), shared by several instances; empty: an in-process one")
	fs.IntVar(&c.memoryMaxEntries, "memory-max-entries", idem.DefaultMaxEntries,
		"most live keys the memory store holds; when full it refuses new requests with 503 (store full)")
	fs.Int64Var(&c.memoryMaxBytes, "memory-max-bytes", idem.DefaultMaxBytes,
		"most bytes of keys and stored responses the memory store holds; when full it refuses new requests with 503")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		io.Copy(stdout, &usage)
		return c, errHelp
	}
	io.Copy(stderr, &usage)
	if err != nil {
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if c.memoryMaxEntries <= 0 || c.memoryMaxBytes <= 0 {
		return c, fmt.Errorf("%w: -memory-max-entries %d and -memory-max-bytes %d must be positive", errUsage, c.memoryMaxEntries, c.memoryMaxBytes)
	}
	if c.lease < 0 {
		return c, fmt.Errorf("%w: -lease %v is negative: leave it 0 for the specs' leases, or give a positive duration such as 5s", errUsage, c.lease)
	}
	if c.processorURL != "" && c.latency != 0 {
		return c, fmt.Errorf("%w: -processor-latency is the in-process processor's; it does not apply with -processor-url", errUsage)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return c, nil
}

// run serves the API, and the store's metrics on GET /metrics, until ctx is done, saying on
// stdout where it listens.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stdout, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	store, audit, closeStore, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	defer closeStore()
	reg := prometheus.NewRegistry()
	store = idem.Observe(store, newStoreMetrics(reg).hooks())
	var remote *processor.Client
	if c.processorURL != "" {
		remote = processor.NewClient(c.processorURL, &http.Client{Timeout: processorTimeout})
	}
	a, err := newApp(store, audit, remote, c.secret, c.lease, time.Now, log)
	if err != nil {
		return err
	}
	if a.processor != nil {
		a.processor.SetLatency(c.latency)
	}
	mux := http.NewServeMux()
	mux.Handle("/", a.handler)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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

// processorTimeout bounds a call to a processor over HTTP. A call that runs out fails the charge
// with a 502, which releases its key: the retry asks the processor again under the same derived
// key, and finds out whether the card was charged.
const processorTimeout = 10 * time.Second

// openStore connects the store the flags name and checks that it answers, so that a wrong URL
// fails at start-up rather than as a 503 on the first request. The charges' audit rows go to
// Postgres with -store postgres, and are kept in memory otherwise (a real service keeps them in
// Postgres whatever its key store: see the spec).
func openStore(ctx context.Context, c config, log *slog.Logger) (idem.Store, idem.AuditLog, func(), error) {
	switch c.store {
	case "memory":
		s := idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: c.memoryMaxEntries, MaxBytes: c.memoryMaxBytes})
		return s, idem.NewMemoryAuditLog(nil), func() {}, nil
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
