package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idemkit/examples/payments/internal/idem"
	"github.com/idemkit/idemkit/examples/payments/processor"
)

// clock is the memory store's clock, which the tests move across leases and TTLs.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// outage is a store that can be cut off, as a Redis or Postgres behind a failed network is.
type outage struct {
	idem.Store
	mu   sync.Mutex
	down bool
}

func (o *outage) set(down bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.down = down
}

func (o *outage) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	o.mu.Lock()
	down := o.down
	o.mu.Unlock()
	if down {
		return idem.Claim{}, fmt.Errorf("test outage: %w", idem.ErrStoreUnavailable)
	}
	return o.Store.Claim(ctx, key, fingerprint, lease, ttl)
}

// server is the example served over real HTTP on loopback, on a memory store the test controls.
type server struct {
	t     *testing.T
	url   string
	app   *app
	clock *clock
	store *outage
	audit *idem.MemoryAuditLog
}

func newServer(t *testing.T) *server {
	t.Helper()
	c := &clock{now: time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)}
	store := &outage{Store: idem.NewMemoryStore(idem.MemoryOptions{Now: c.Now})}
	audit := idem.NewMemoryAuditLog(nil)
	a, err := newApp(store, audit, nil, "whsec_test", 0, time.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(a.handler)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the crash row panics on purpose
	ts.Start()
	t.Cleanup(ts.Close)
	return &server{t: t, url: ts.URL, app: a, clock: c, store: store, audit: audit}
}

// response is what a client saw.
type response struct {
	status  int
	header  http.Header
	body    string
	err     error
	replays bool
}

const card = `{"amount":4200,"currency":"eur","card":"4242424242424242"}`

// charge sends POST /v1/charges as account with the Idempotency-Key header values keys.
func (s *server) charge(ctx context.Context, account, body string, keys ...string) response {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/v1/charges", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+account)
	for _, k := range keys {
		req.Header.Add("Idempotency-Key", k)
	}
	return do(req)
}

func do(req *http.Request) response {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b), err: err, replays: resp.Header.Get("Idempotent-Replayed") == "true"}
}

func (s *server) calls() int { return s.app.processor.Stats().Calls }

// gate makes processor call number n wait until the returned release is called (or its request
// ends), and reports on entered when it starts waiting.
func (s *server) gate(n int) (entered <-chan struct{}, release func()) {
	in, out := make(chan struct{}), make(chan struct{})
	s.app.processor.SetFault(func(ctx context.Context, call int) error {
		if call != n {
			return nil
		}
		close(in)
		select {
		case <-out:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	var once sync.Once
	return in, func() { once.Do(func() { close(out) }) }
}

func (r response) is(t *testing.T, what string, status int) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	if r.status != status {
		t.Fatalf("%s: %d %s, want %d", what, r.status, r.body, status)
	}
}

func (r response) problem(t *testing.T, what string, status int, kind string) {
	t.Helper()
	r.is(t, what, status)
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" || !strings.Contains(r.body, `"type":"urn:idemkit:problem:`+kind+`"`) {
		t.Errorf("%s: %s %s, want a %s problem+json", what, ct, r.body, kind)
	}
}

// TestRuntimeSemantics drives the running example over HTTP through every row of the runtime
// semantics table in DESIGN.md, on the charge endpoint, watching the fake processor's calls.
func TestRuntimeSemantics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("no key on a route that requires one: 400, store untouched", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		s.charge(ctx, "acct_1", card).problem(t, "no key", 400, "key-missing")
		if s.calls() != 0 {
			t.Errorf("the processor was called")
		}
	})

	t.Run("malformed key: 400, store untouched", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		for what, keys := range map[string][]string{
			"over 255 bytes": {strings.Repeat("k", 256)},
			"control chars":  {"key\twith-a-tab"},
			"not ASCII":      {"clé"},
			"a list":         {"a, b"},
			"repeated":       {"a", "b"},
		} {
			s.charge(ctx, "acct_1", card, keys...).problem(t, what, 400, "key-malformed")
		}
		if s.calls() != 0 {
			t.Errorf("the processor was called")
		}
	})

	t.Run("new key: the handler runs once; completed: replayed", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		first := s.charge(ctx, "acct_1", card, `"key-1"`)
		first.is(t, "first", 201)
		// The same key bare rather than quoted, and sent_at (left out of the fingerprint) added.
		retry := s.charge(ctx, "acct_1", `{"sent_at":"10:02","amount":4200,"currency":"eur","card":"4242424242424242"}`, "key-1")
		retry.is(t, "retry", 201)
		if retry.body != first.body || !retry.replays || first.replays {
			t.Errorf("retry %q (replayed %v), want the first answer %q replayed", retry.body, retry.replays, first.body)
		}
		if s.calls() != 1 {
			t.Errorf("the processor was called %d times, want once", s.calls())
		}
		// One audit row for the charge, none for its replay.
		if rows := s.audit.Entries(); len(rows) != 1 || rows[0].Operation != "charge" || rows[0].Status != 201 || !strings.HasSuffix(rows[0].Key, ":acct_1:key-1") {
			t.Errorf("audit rows %+v, want one of charge acct_1 key-1 with status 201", rows)
		}
	})

	t.Run("keys are scoped by account", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		a := s.charge(ctx, "acct_1", card, "key-1")
		b := s.charge(ctx, "acct_2", card, "key-1")
		a.is(t, "acct_1", 201)
		b.is(t, "acct_2", 201)
		if b.replays || b.body == a.body || s.app.processor.Stats().Charges != 2 {
			t.Errorf("a second account's equal key replayed the first's charge: %s / %s", a.body, b.body)
		}
	})

	t.Run("in progress, lease live: 409 with Retry-After", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		entered, release := s.gate(1)
		done := make(chan response)
		go func() { done <- s.charge(ctx, "acct_1", card, "key-1") }()
		<-entered
		second := s.charge(ctx, "acct_1", card, "key-1")
		second.problem(t, "concurrent", 409, "in-progress")
		if got := second.header.Get("Retry-After"); got != "5" {
			t.Errorf("Retry-After %q, want the spec's 5", got)
		}
		release()
		(<-done).is(t, "first", 201)
		if s.calls() != 1 {
			t.Errorf("the processor was called %d times, want once", s.calls())
		}
	})

	t.Run("different fingerprint, any state: 422", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		other := `{"amount":9900,"currency":"eur","card":"4242424242424242"}`
		entered, release := s.gate(1)
		done := make(chan response)
		go func() { done <- s.charge(ctx, "acct_1", card, "key-1") }()
		<-entered
		s.charge(ctx, "acct_1", other, "key-1").problem(t, "in progress", 422, "key-reused")
		release()
		(<-done).is(t, "first", 201)
		s.charge(ctx, "acct_1", other, "key-1").problem(t, "completed", 422, "key-reused")
		if s.calls() != 1 {
			t.Errorf("the processor was called %d times, want once", s.calls())
		}
	})

	t.Run("in progress, lease expired: taken over, the handler runs", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		entered, release := s.gate(1)
		done := make(chan response)
		go func() { done <- s.charge(ctx, "acct_1", card, "key-1") }()
		<-entered
		s.clock.Advance(31 * time.Second) // past the spec's 30s lease: the holder looks dead
		second := s.charge(ctx, "acct_1", card, "key-1")
		second.is(t, "takeover", 201)
		release()
		(<-done).is(t, "stale holder", 201) // its client still gets its answer; its complete is refused
		if st := s.app.processor.Stats(); st.Calls != 2 || st.Charges != 1 {
			t.Errorf("processor %+v: want two calls under one derived key, one charge", st)
		}
		if later := s.charge(ctx, "acct_1", card, "key-1"); !later.replays || later.body != second.body {
			t.Errorf("after the takeover: %s (replayed %v), want the takeover's answer replayed", later.body, later.replays)
		}
	})

	t.Run("2xx and 4xx answers are stored", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		declined := `{"amount":4200,"currency":"eur","card":"` + processor.DeclinedCard + `"}`
		s.charge(ctx, "acct_1", declined, "key-1").is(t, "declined", 402)
		if r := s.charge(ctx, "acct_1", declined, "key-1"); r.status != 402 || !r.replays {
			t.Errorf("retry of a decline: %d (replayed %v), want the 402 replayed", r.status, r.replays)
		}
		s.charge(ctx, "acct_1", `{"amount":-1}`, "key-2").is(t, "invalid", 400)
		if r := s.charge(ctx, "acct_1", `{"amount":-1}`, "key-2"); r.status != 400 || !r.replays {
			t.Errorf("retry of a bad request: %d (replayed %v), want the 400 replayed", r.status, r.replays)
		}
		if s.calls() != 1 {
			t.Errorf("the processor was called %d times, want once", s.calls())
		}
	})

	t.Run("5xx, panic, cancelled: not stored, key released", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		s.app.processor.SetFault(func(_ context.Context, call int) error {
			if call == 1 {
				return processor.ErrUnavailable
			}
			return nil
		})
		s.charge(ctx, "acct_1", card, "key-5xx").is(t, "processor down", 503)
		s.charge(ctx, "acct_1", card, "key-5xx").is(t, "retry after a 5xx", 201)

		s.app.processor.SetFault(func(_ context.Context, call int) error {
			if call == 3 {
				panic("crash mid-flight")
			}
			return nil
		})
		// The panic drops the connection. net/http's client retries a request that carries an
		// Idempotency-Key by itself, and its retry finds the key released and runs.
		r := s.charge(ctx, "acct_1", card, "key-panic")
		r.is(t, "retry after a panic", 201)
		if r.replays || s.calls() != 4 {
			t.Errorf("after the panic: replayed %v, %d processor calls; want the retry to run (4 calls)", r.replays, s.calls())
		}

		entered, release := s.gate(5)
		defer release()
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan response)
		go func() { done <- s.charge(cctx, "acct_1", card, "key-cancel") }()
		<-entered
		cancel()
		if r := <-done; r.err == nil {
			t.Errorf("a cancelled request answered %d", r.status)
		}
		// The server releases the key once it sees the client gone.
		var retry response
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if retry = s.charge(ctx, "acct_1", card, "key-cancel"); retry.status != 409 {
				break
			}
		}
		retry.is(t, "retry after a cancelled request", 201)
		if retry.replays {
			t.Errorf("the retry after a cancelled request was a replay")
		}
	})

	t.Run("store unreachable: 503, handler not run", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		s.store.set(true)
		r := s.charge(ctx, "acct_1", card, "key-1")
		r.problem(t, "store down", 503, "store-unavailable")
		if s.calls() != 0 {
			t.Errorf("the processor was called while the store was down")
		}
		s.store.set(false)
		s.charge(ctx, "acct_1", card, "key-1").is(t, "store back", 201)
	})

	t.Run("completed and past its TTL: a new request", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		s.charge(ctx, "acct_1", card, "key-1").is(t, "first", 201)
		s.clock.Advance(24*time.Hour + time.Second)
		r := s.charge(ctx, "acct_1", card, "key-1")
		r.is(t, "after the TTL", 201)
		if r.replays || s.calls() != 2 {
			t.Errorf("after the 1d TTL: replayed %v, %d processor calls; want a new run", r.replays, s.calls())
		}
	})
}

// event sends a processor event with id and body, signed at signedAt.
func (s *server) event(body string, signedAt time.Time, secret string) response {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/webhooks/processor", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(processor.SignatureHeader, processor.Sign(secret, []byte(body), signedAt))
	return do(req)
}

// TestWebhook drives the processor's webhook: verified first, processed once per event ID.
func TestWebhook(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ev := `{"id":"evt_1","type":"charge.succeeded","data":{"charge":"ch_000001"}}`
	now := time.Now()

	s.event(ev, now, "wrong secret").is(t, "bad signature", 401)
	s.event(ev, now.Add(-10*time.Minute), "whsec_test").is(t, "stale signature", 401)
	if n := len(s.app.ledger.Settlements()); n != 0 {
		t.Fatalf("an unverified event was processed (%d settlements)", n)
	}
	s.event(ev, now, "whsec_test").is(t, "delivery", 200)
	if r := s.event(ev, now, "whsec_test"); r.status != 200 || !r.replays {
		t.Errorf("redelivery: %d (replayed %v), want the spec's ack, 200", r.status, r.replays)
	}
	s.event(`{"id":"evt_1","type":"charge.succeeded","data":{"charge":"ch_000002"}}`, now, "whsec_test").is(t, "event ID reused", 422)
	if got := s.app.ledger.Settlements(); len(got) != 1 || got[0].Charge != "ch_000001" {
		t.Errorf("ledger %+v, want ch_000001 settled once", got)
	}
}

// started runs the example's main code with args and returns its address; the server stops at
// the end of the test, and run must then return nil.
func started(t *testing.T, args ...string) string {
	t.Helper()
	return startedLogging(t, io.Discard, args...)
}

// startedLogging is started with the server's log going to stderr.
func startedLogging(t *testing.T, stderr io.Writer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), w, stderr)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	m := regexp.MustCompile(`^payments example listening on (http://\S+) \(store: (\w+), audit rows: (\w+)\)\n$`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("run printed %q (%v), want where it listens", line, err)
	}
	if want := map[bool]string{true: "postgres", false: "memory"}[m[2] == "postgres"]; m[3] != want {
		t.Errorf("run printed %q: audit rows in %s with store %s, want %s", line, m[3], m[2], want)
	}
	return m[1]
}

// walk is the README's curl walk: a first request, a replay, a concurrent 409 and a 422.
func walk(t *testing.T, url string) {
	t.Helper()
	post := func(key, body string) response {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/charges", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer acct_walk")
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return do(req)
	}
	key := fmt.Sprintf("walk-%d", time.Now().UnixNano())
	first := post(key, card)
	first.is(t, "first request", 201)
	if r := post(key, card); !r.replays || r.body != first.body {
		t.Errorf("replay: %d %s (replayed %v)", r.status, r.body, r.replays)
	}
	post(key, `{"amount":1,"currency":"eur","card":"4242424242424242"}`).problem(t, "different body", 422, "key-reused")

	// Two requests at once: the processor's latency keeps the first in progress while the
	// second arrives, whichever comes first.
	slow := key + "-slow"
	done := make(chan response, 2)
	for range 2 {
		go func() { done <- post(slow, card) }()
	}
	a, b := <-done, <-done
	if a.status == 409 {
		a, b = b, a
	}
	a.is(t, "the one that ran", 201)
	b.problem(t, "concurrent", 409, "in-progress")

	resp, err := http.Get(url + "/processor/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st processor.Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Charges != 2 {
		t.Errorf("processor stats %+v (%v), want two charges", st, err)
	}
}

// TestRun starts the example as go run does, on each store, and walks the README's requests.
// Redis and Postgres are the servers named by IDEMKIT_TEST_REDIS_URL (and, for the Redis store
// on Valkey, IDEMKIT_TEST_VALKEY_URL) and IDEMKIT_TEST_DATABASE_URL (make test starts them);
// without them those stores are skipped, except under CI=true, where that fails.
func TestRun(t *testing.T) {
	t.Parallel()
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	cases := []struct {
		name, store, env string
		args             []string
		shared           bool // the processor served over HTTP (-processor-url)
	}{
		{store: "memory"},
		{name: "memory with a shared processor", store: "memory", shared: true},
		{store: "redis", env: "IDEMKIT_TEST_REDIS_URL", args: []string{"-redis-prefix", "payments-test-" + suffix + ":"}},
		// Valkey 8.1, whose SET takes IFEQ: the store completes without a script there.
		{name: "redis on valkey", store: "redis", env: "IDEMKIT_TEST_VALKEY_URL", args: []string{"-redis-prefix", "payments-test-" + suffix + ":"}},
		{store: "postgres", env: "IDEMKIT_TEST_DATABASE_URL", args: []string{"-database-schema", "payments_test_" + suffix}},
	}
	for _, tc := range cases {
		name := cmp.Or(tc.name, tc.store)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-store", tc.store, "-processor-latency", "300ms"}, tc.args...)
			if tc.shared {
				p := processor.New()
				p.SetLatency(300 * time.Millisecond)
				ts := httptest.NewServer(p.Handler())
				t.Cleanup(ts.Close)
				args = append([]string{"-store", tc.store, "-processor-url", ts.URL}, tc.args...)
			}
			if tc.env != "" {
				u := os.Getenv(tc.env)
				if u == "" {
					if os.Getenv("CI") == "true" {
						t.Fatalf("%s is not set; CI must run the %s store", tc.env, tc.store)
					}
					t.Skipf("%s is not set (make test starts a server)", tc.env)
				}
				flag := map[string]string{"redis": "-redis-url", "postgres": "-database-url"}[tc.store]
				args = append(args, flag, u)
			}
			url := started(t, args...)
			walk(t, url)
			// What walk did, as the store's metrics count it: two charges ran, one replayed,
			// one 409, one 422.
			m := metrics(t, url)
			for series, want := range map[string]float64{
				`idem_claims_total{outcome="claimed"}`:             2,
				`idem_claims_total{outcome="replay"}`:              1,
				`idem_claims_total{outcome="in_progress"}`:         1,
				`idem_claims_total{outcome="mismatch"}`:            1,
				`idem_claims_total{outcome="taken_over"}`:          0,
				`idem_store_errors_total{op="claim"}`:              0,
				`idem_store_duration_seconds_count{op="claim"}`:    5,
				`idem_store_duration_seconds_count{op="complete"}`: 2,
			} {
				if got, ok := m[series]; !ok || got != want {
					t.Errorf("GET /metrics: %s = %v (present %v), want %v", series, got, ok, want)
				}
			}
		})
	}
}

// metrics reads GET /metrics into a map from each series, labels and all, to its value.
func metrics(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if strings.HasPrefix(line, "#") || i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("GET /metrics: line %q: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

// TestRunMemoryFull: -memory-max-entries bounds the memory store. Past it a new key is refused
// with 503 and counted as a store error, and the log says which bound to raise.
func TestRunMemoryFull(t *testing.T) {
	t.Parallel()
	var logged syncBuffer
	url := startedLogging(t, &logged, "-memory-max-entries", "1")
	post := func(key string) response {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/charges", strings.NewReader(card))
		req.Header.Set("Authorization", "Bearer acct_full")
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return do(req)
	}
	post("first").is(t, "the first key", 201)
	post("second").problem(t, "a key past -memory-max-entries", 503, "store-unavailable")
	if got := metrics(t, url)[`idem_store_errors_total{op="claim"}`]; got != 1 {
		t.Errorf("idem_store_errors_total{op=\"claim\"} = %v, want 1", got)
	}
	if !strings.Contains(logged.String(), "MemoryOptions.MaxEntries") {
		t.Errorf("the log does not say which bound to raise:\n%s", logged.String())
	}
}

// syncBuffer is a bytes.Buffer that the server's goroutines may write while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMain runs the example's main instead of the tests when PAYMENTS_RUN_MAIN is set, so that
// a test can run the command itself and see its exit status.
func TestMain(m *testing.M) {
	if os.Getenv("PAYMENTS_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestHelp: -h and --help print the usage, flags and all, to stdout and exit 0; a bad flag
// exits 2 with the usage on stderr.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg      string
		exit     int
		usageOut bool // the usage on stdout, else on stderr
	}{
		{"-h", 0, true},
		{"--help", 0, true},
		{"-help", 0, true},
		{"-nope", 2, false},
	} {
		cmd := exec.Command(os.Args[0], tc.arg)
		cmd.Env = append(os.Environ(), "PAYMENTS_RUN_MAIN=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		exit := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		usage, other := stdout.String(), stderr.String()
		if !tc.usageOut {
			usage, other = other, usage
		}
		if exit != tc.exit || !strings.Contains(usage, "-memory-max-entries") || strings.Contains(other, "-memory-max-entries") {
			t.Errorf("payments %s: exit %d, stdout %q, stderr %q; want exit %d with the usage on %s",
				tc.arg, exit, stdout.String(), stderr.String(), tc.exit, map[bool]string{true: "stdout", false: "stderr"}[tc.usageOut])
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-store", "dynamodb"}, `-store "dynamodb": want memory, redis or postgres`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-store", "redis", "-redis-url", "http://x"}, "-redis-url"},
		{[]string{"-memory-max-entries", "0"}, "must be positive"},
		{[]string{"-lease", "-5s"}, "-lease -5s is negative: leave it 0 for the specs' leases"},
		{[]string{"-processor-url", "http://127.0.0.1:1", "-processor-latency", "1s"}, "does not apply with -processor-url"},
	}
	for _, tc := range cases {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
}
