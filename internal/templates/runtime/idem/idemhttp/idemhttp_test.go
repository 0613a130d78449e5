package idemhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// fixture is a handler behind the middleware, over a memory store, counting its runs.
type fixture struct {
	store   *idem.MemoryStore
	handler http.Handler
	runs    atomic.Int32
}

// tenantHeader is how the tests say who a request acts for.
func tenantHeader(r *http.Request) (string, error) {
	if t := r.Header.Get("X-Tenant"); t != "" {
		return t, nil
	}
	return "", errors.New("no X-Tenant")
}

func newFixture(t *testing.T, opts idemhttp.Options, h http.HandlerFunc) *fixture {
	t.Helper()
	f := &fixture{store: idem.NewMemoryStore(idem.MemoryOptions{})}
	if opts.Keeper == nil {
		opts.Keeper = &idem.Keeper{Store: f.store}
	}
	if opts.Tenant == nil && !opts.Unscoped {
		opts.Tenant = tenantHeader
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	mw, err := idemhttp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.handler = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.runs.Add(1)
		h(w, r)
	}))
	return f
}

// created answers 201 with the request body echoed, and headers that must and must not be stored.
func created(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Order", "o-1")
	w.Header().Set("Connection", "X-Private")
	w.Header().Set("X-Private", "connection-scoped")
	w.Header().Set("Keep-Alive", "timeout=5")
	w.WriteHeader(http.StatusCreated)
	w.Write([]byte(`{"echo":` + string(body) + `}`))
}

type request struct {
	method, path, key, tenant, body, contentType string
}

func (f *fixture) do(req request) *httptest.ResponseRecorder {
	if req.method == "" {
		req.method = http.MethodPost
	}
	if req.path == "" {
		req.path = "/charges"
	}
	if req.tenant == "" {
		req.tenant = "acme"
	}
	if req.contentType == "" {
		req.contentType = "application/json"
	}
	if req.body == "" {
		req.body = `{"amount":5}`
	}
	r := httptest.NewRequest(req.method, req.path, strings.NewReader(req.body))
	r.Header.Set("Content-Type", req.contentType)
	r.Header.Set("X-Tenant", req.tenant)
	if req.key != "" {
		r.Header.Set(idemhttp.HeaderKey, req.key)
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	return w
}

// problem decodes a problem+json answer and checks its status and type.
func problem(t *testing.T, w *httptest.ResponseRecorder, status int, typ string) idemhttp.Problem {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d (%s), want %d", w.Code, w.Body, status)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var p idemhttp.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %q: %v", w.Body, err)
	}
	if p.Type != idemhttp.ProblemType+typ || p.Status != status || p.Title == "" {
		t.Errorf("problem %+v, want type %s%s and status %d", p, idemhttp.ProblemType, typ, status)
	}
	return p
}

func TestReplay(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, created)
	first := f.do(request{key: `"k1"`})
	if first.Code != http.StatusCreated || first.Header().Get(idemhttp.HeaderReplayed) != "" {
		t.Fatalf("first answer %d replayed=%q", first.Code, first.Header().Get(idemhttp.HeaderReplayed))
	}
	for _, req := range []request{
		{key: `"k1"`},
		{key: "k1"}, // bare and quoted are one key
		{key: `"k1"`, body: ` { "amount" : 5 } `}, // the same JSON, spelled differently
	} {
		again := f.do(req)
		if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() {
			t.Errorf("replay of %+v = %d %q, want %d %q", req, again.Code, again.Body, first.Code, first.Body)
		}
		if again.Header().Get(idemhttp.HeaderReplayed) != "true" || again.Header().Get("X-Order") != "o-1" {
			t.Errorf("replay headers %v: want Idempotent-Replayed and the handler's headers", again.Header())
		}
		for _, hop := range []string{"Connection", "Keep-Alive", "X-Private"} {
			if v := again.Header().Get(hop); v != "" {
				t.Errorf("replay carries hop-by-hop header %s: %q", hop, v)
			}
		}
	}
	if n := f.runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}

// TestHopByHopNotStored: whichever hop-by-hop header a response has, alone or with others, and
// whichever headers its Connection header names, the replay carries none of them and the rest.
func TestHopByHopNotStored(t *testing.T) {
	t.Parallel()
	for _, hop := range []http.Header{
		{"Connection": {"X-Private"}, "X-Private": {"connection-scoped"}},
		{"Connection": {"close"}},
		{"Keep-Alive": {"timeout=5"}},
		{"Te": {"trailers"}},
		{"Transfer-Encoding": {"chunked"}},
		{"Upgrade": {"h2c"}, "Connection": {"upgrade, x-private"}, "X-Private": {"connection-scoped"}},
		{},
	} {
		f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
			for k, v := range hop {
				w.Header()[k] = v
			}
			w.Header().Set("X-Order", "o-1")
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("ok"))
		})
		f.do(request{key: "k"})
		replay := f.do(request{key: "k"})
		want := http.Header{"X-Order": {"o-1"}, "Content-Type": {"text/plain"}, idemhttp.HeaderReplayed: {"true"}}
		if got := replay.Header(); !reflect.DeepEqual(got, want) {
			t.Errorf("handler headers %v and X-Order: replay headers %v, want %v", hop, got, want)
		}
	}
}

func TestRefusedBeforeTheStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		header []string
		tenant string
		typ    string
	}{
		{"no key", nil, "acme", "key-missing"},
		{"list", []string{`"a", "b"`}, "acme", "key-malformed"},
		{"repeated", []string{`"a"`, `"b"`}, "acme", "key-malformed"},
		{"control character", []string{"a\x01"}, "acme", "key-malformed"},
		{"over 255 bytes", []string{strings.Repeat("k", 256)}, "acme", "key-malformed"},
		{"no tenant", []string{`"a"`}, "", "tenant-unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, idemhttp.Options{}, created)
			r := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader("{}"))
			for _, v := range tc.header {
				r.Header.Add(idemhttp.HeaderKey, v)
			}
			if tc.tenant != "" {
				r.Header.Set("X-Tenant", tc.tenant)
			}
			w := httptest.NewRecorder()
			f.handler.ServeHTTP(w, r)
			problem(t, w, http.StatusBadRequest, tc.typ)
			if f.runs.Load() != 0 || f.store.Len() != 0 {
				t.Errorf("handler ran %d times, store holds %d records; want neither", f.runs.Load(), f.store.Len())
			}
		})
	}
}

func TestPassThrough(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, created)
	if w := f.do(request{method: http.MethodGet}); w.Code != http.StatusCreated {
		t.Errorf("GET without a key = %d, want the handler's answer", w.Code)
	}
	opt := newFixture(t, idemhttp.Options{Optional: true}, created)
	if w := opt.do(request{}); w.Code != http.StatusCreated || opt.store.Len() != 0 {
		t.Errorf("Optional POST without a key = %d with %d records, want the handler's answer and none", w.Code, opt.store.Len())
	}
}

func TestMismatch(t *testing.T) {
	t.Parallel()
	var hooked atomic.Int32
	f := newFixture(t, idemhttp.Options{Hooks: idemhttp.Hooks{Mismatch: func(*http.Request, string, *idem.MismatchError) { hooked.Add(1) }}}, created)
	f.do(request{key: "k"})
	for _, req := range []request{
		{key: "k", body: `{"amount":6}`},
		{key: "k", body: `{"amount":5}`, contentType: "text/plain"},
	} {
		problem(t, f.do(req), http.StatusUnprocessableEntity, "key-reused")
	}
	if f.runs.Load() != 1 || hooked.Load() != 2 {
		t.Errorf("handler ran %d times, Mismatch hook %d; want 1 and 2", f.runs.Load(), hooked.Load())
	}
}

func TestExcludedFieldsDoNotMismatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{Exclude: []string{"sent_at"}}, created)
	f.do(request{key: "k", body: `{"amount":5,"sent_at":"10:00"}`})
	if w := f.do(request{key: "k", body: `{"sent_at":"10:01","amount":5}`}); w.Header().Get(idemhttp.HeaderReplayed) != "true" {
		t.Errorf("retry with a new sent_at = %d, want a replay", w.Code)
	}
}

func TestInProgress(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	var conflicts atomic.Int32
	f := newFixture(t, idemhttp.Options{
		Hooks: idemhttp.Hooks{Conflict: func(*http.Request, string, time.Duration) { conflicts.Add(1) }},
	}, func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		w.WriteHeader(http.StatusNoContent)
	})
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- f.do(request{key: "k"}) }()
	<-entered
	w := f.do(request{key: "k"})
	problem(t, w, http.StatusConflict, "in-progress")
	if ra := w.Header().Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After %q, want whole seconds of at least 1", ra)
	}
	close(release)
	if first := <-done; first.Code != http.StatusNoContent {
		t.Errorf("first request = %d", first.Code)
	}
	if conflicts.Load() != 1 {
		t.Errorf("Conflict hook called %d times", conflicts.Load())
	}
}

func TestWhatIsStored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		status   int
		wantRuns int32
	}{
		{"2xx stored", http.StatusOK, 1},
		{"4xx stored", http.StatusNotFound, 1},
		{"5xx released", http.StatusBadGateway, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(tc.status) })
			for range 2 {
				if w := f.do(request{key: "k"}); w.Code != tc.status {
					t.Fatalf("status %d, want %d", w.Code, tc.status)
				}
			}
			if n := f.runs.Load(); n != tc.wantRuns {
				t.Errorf("handler ran %d times over two requests, want %d", n, tc.wantRuns)
			}
		})
	}
}

func TestPanicReleasesKey(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			panic("handler bug")
		}
		w.WriteHeader(http.StatusCreated)
	})
	func() {
		defer func() {
			if p := recover(); p != "handler bug" {
				t.Errorf("recovered %v, want the handler's panic", p)
			}
		}()
		f.do(request{key: "k"})
	}()
	if f.store.Len() != 0 {
		t.Fatal("the panicking request left its key claimed")
	}
	fail.Store(false)
	if w := f.do(request{key: "k"}); w.Code != http.StatusCreated {
		t.Errorf("retry after a panic = %d, want the handler to run", w.Code)
	}
}

// TestTenantScoping: two tenants using the same key each get their own run and their own
// replay; neither can see the other's response.
func TestTenantScoping(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("for " + r.Header.Get("X-Tenant")))
	})
	for range 2 {
		for _, tenant := range []string{"acme", "globex"} {
			if w := f.do(request{key: "shared", tenant: tenant}); w.Body.String() != "for "+tenant {
				t.Errorf("tenant %s got %q", tenant, w.Body)
			}
		}
	}
	if f.runs.Load() != 2 {
		t.Errorf("handler ran %d times, want once per tenant", f.runs.Load())
	}
}

func TestRouteScoping(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, created)
	f.do(request{key: "k", path: "/charges"})
	if w := f.do(request{key: "k", path: "/refunds"}); w.Header().Get(idemhttp.HeaderReplayed) != "" {
		t.Error("a key on another route replayed the first route's response")
	}
	if f.runs.Load() != 2 {
		t.Errorf("handler ran %d times, want once per route", f.runs.Load())
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{MaxBodyBytes: 16}, created)
	problem(t, f.do(request{key: "k", body: `{"amount":5,"pad":"xxxxxxxx"}`}), http.StatusRequestEntityTooLarge, "request-too-large")
	if f.runs.Load() != 0 || f.store.Len() != 0 {
		t.Error("an oversized body ran the handler or claimed the key")
	}
	if w := f.do(request{key: "k", body: `{"amount":5}`}); w.Code != http.StatusCreated {
		t.Errorf("body within the limit = %d; the handler must see it whole", w.Code)
	}
}

// TestResponseLimit: the first client gets the whole oversized response; retries get a problem
// saying it ran once, and the handler never runs again.
func TestResponseLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 100)
	f := newFixture(t, idemhttp.Options{MaxResponseBytes: 64}, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(big))
	})
	if w := f.do(request{key: "k"}); w.Code != http.StatusCreated || w.Body.String() != big {
		t.Fatalf("first answer %d with %d bytes, want the whole response", w.Code, w.Body.Len())
	}
	for range 2 {
		w := f.do(request{key: "k"})
		problem(t, w, http.StatusCreated, "response-too-large")
		if w.Header().Get(idemhttp.HeaderReplayed) != "true" {
			t.Error("the stand-in is not marked replayed")
		}
	}
	if f.runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", f.runs.Load())
	}
}

func TestCancelledRequestReleasesKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{Unscoped: true}, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // the client hangs up while the handler works
		w.WriteHeader(http.StatusCreated)
	})
	r := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader("{}"))
	r.Header.Set(idemhttp.HeaderKey, "k")
	ctx, cancel := context.WithCancel(r.Context())
	go cancel()
	f.handler.ServeHTTP(httptest.NewRecorder(), r.WithContext(ctx))
	if f.runs.Load() != 1 || f.store.Len() != 0 {
		t.Errorf("handler ran %d times and %d records remain; want one run and the key released", f.runs.Load(), f.store.Len())
	}
}

func TestStoreUnavailable(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	down := &idem.Keeper{Store: redisstore.New(rdb, redisstore.Options{})}

	var storeErrors, bypasses atomic.Int32
	hooks := idemhttp.Hooks{
		StoreError: func(*http.Request, string, error) { storeErrors.Add(1) },
		Bypass:     func(*http.Request, string, error) { bypasses.Add(1) },
	}
	closed := newFixture(t, idemhttp.Options{Keeper: down, Hooks: hooks}, created)
	w := closed.do(request{key: "k"})
	problem(t, w, http.StatusServiceUnavailable, "store-unavailable")
	if w.Header().Get("Retry-After") == "" || closed.runs.Load() != 0 || storeErrors.Load() != 1 {
		t.Errorf("fail closed: Retry-After %q, %d runs, %d StoreError hooks; want a Retry-After, no run, one hook",
			w.Header().Get("Retry-After"), closed.runs.Load(), storeErrors.Load())
	}

	open := newFixture(t, idemhttp.Options{Keeper: down, FailOpen: true, Hooks: hooks}, created)
	if w := open.do(request{key: "k"}); w.Code != http.StatusCreated || open.runs.Load() != 1 || bypasses.Load() != 1 {
		t.Errorf("fail open: %d, %d runs, %d Bypass hooks; want the handler's answer and one bypass", w.Code, open.runs.Load(), bypasses.Load())
	}
}

func TestNewRefusesWeakConfig(t *testing.T) {
	t.Parallel()
	k := &idem.Keeper{Store: idem.NewMemoryStore(idem.MemoryOptions{})}
	for name, opts := range map[string]idemhttp.Options{
		"no keeper":           {Unscoped: true},
		"no store":            {Keeper: &idem.Keeper{}, Unscoped: true},
		"no tenant scope":     {Keeper: k},
		"tenant and unscoped": {Keeper: k, Unscoped: true, Tenant: tenantHeader},
		"bad exclude":         {Keeper: k, Unscoped: true, Exclude: []string{"a..b"}},
	} {
		if _, err := idemhttp.New(opts); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

// TestDuplicateStorm: many concurrent duplicates run the handler once; every other answer is a
// 409 or a replay of the same body.
func TestDuplicateStorm(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
		w.Write([]byte("the one result"))
	})
	var wg sync.WaitGroup
	codes := make(chan int, 200)
	for range 200 {
		wg.Go(func() {
			w := f.do(request{key: "storm"})
			if w.Code == http.StatusOK && w.Body.String() != "the one result" {
				t.Errorf("body %q", w.Body)
			}
			codes <- w.Code
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK && c != http.StatusConflict {
			t.Errorf("answer %d, want 200 or 409", c)
		}
	}
	if f.runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", f.runs.Load())
	}
}

// TestRoundTripBudget: through the middleware a new request costs two store operations, a
// replay one, and a refused request none.
func TestRoundTripBudget(t *testing.T) {
	t.Parallel()
	s := &storetest.Counting{Store: idem.NewMemoryStore(idem.MemoryOptions{})}
	f := newFixture(t, idemhttp.Options{Keeper: &idem.Keeper{Store: s}}, created)
	for _, tc := range []struct {
		name string
		req  request
		want int32
	}{
		{"new", request{key: "k"}, 2},
		{"replay", request{key: "k"}, 1},
		{"malformed key", request{key: "a, b"}, 0},
	} {
		s.Ops.Store(0)
		f.do(tc.req)
		if got := s.Ops.Load(); got != tc.want {
			t.Errorf("%s: %d store operations, want %d", tc.name, got, tc.want)
		}
	}
}

// TestHeaderOption: with Options.Header the key comes from that header alone; the standard one
// is ignored, and a request without the named header is told which header to send.
func TestHeaderOption(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{Header: "X-Request-Key"}, created)
	send := func(header, key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(`{"amount":1}`))
		r.Header.Set(header, key)
		r.Header.Set("X-Tenant", "acme")
		w := httptest.NewRecorder()
		f.handler.ServeHTTP(w, r)
		return w
	}
	if w := send("X-Request-Key", `"k1"`); w.Code != http.StatusCreated {
		t.Fatalf("first request = %d, want 201", w.Code)
	}
	if w := send("X-Request-Key", `"k1"`); w.Code != http.StatusCreated || w.Header().Get(idemhttp.HeaderReplayed) != "true" {
		t.Errorf("retry with the named header = %d (replayed %q), want the stored 201", w.Code, w.Header().Get(idemhttp.HeaderReplayed))
	}
	w := send(idemhttp.HeaderKey, `"k1"`)
	p := problem(t, w, http.StatusBadRequest, "key-missing")
	if !strings.Contains(p.Detail, "X-Request-Key") {
		t.Errorf("problem detail %q does not name the header to send", p.Detail)
	}
	if n := f.runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}

// TestKeyFromContext: the handler reads what the middleware claimed — the client's key, the
// tenant, the scoped store key — from its request's context, and nothing for a request the
// middleware let through.
func TestKeyFromContext(t *testing.T) {
	t.Parallel()
	var got []idemhttp.RequestKey
	var oks []bool
	var mu sync.Mutex
	f := newFixture(t, idemhttp.Options{Optional: true}, func(w http.ResponseWriter, r *http.Request) {
		k, ok := idemhttp.KeyFromContext(r.Context())
		mu.Lock()
		got, oks = append(got, k), append(oks, ok)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	})
	f.do(request{key: `"k1"`, tenant: "acme"})
	f.do(request{tenant: "acme"}) // no key, Optional: let through unclaimed
	if len(got) != 2 {
		t.Fatalf("handler ran %d times, want 2", len(got))
	}
	if !oks[0] || got[0].Key != "k1" || got[0].Tenant != "acme" || !strings.HasSuffix(got[0].Scoped, ":k1") || !strings.Contains(got[0].Scoped, ":acme:") {
		t.Errorf("claimed request: KeyFromContext = %+v, %v; want key k1, tenant acme and the scoped key", got[0], oks[0])
	}
	rec, err := f.store.Get(t.Context(), got[0].Scoped)
	if err != nil {
		t.Errorf("the store has no record under the Scoped key %q: %v", got[0].Scoped, err)
	}
	// The key and the fingerprint are cut from one string: neither may take a byte of the other.
	if fp, _ := idem.Fingerprint(http.MethodPost, "/charges", []byte(`{"amount":5}`), "application/json", nil); rec.Fingerprint != fp {
		t.Errorf("stored fingerprint %q, want %q", rec.Fingerprint, fp)
	}
	if oks[1] {
		t.Errorf("unclaimed request: KeyFromContext = %+v, true; want false", got[1])
	}
	if _, ok := idemhttp.KeyFromContext(context.Background()); ok {
		t.Error("KeyFromContext outside the middleware reported a key")
	}
}

// TestBeforeStore: BeforeStore sees each response about to be stored with the request's key;
// when it fails the client gets 503 outcome-unrecorded, the key is released, and the retry runs
// the handler again and is stored. A response that is not stored (a 5xx) never reaches it.
func TestBeforeStore(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen []string
		fail = true
	)
	status := http.StatusCreated
	f := newFixture(t, idemhttp.Options{BeforeStore: func(r *http.Request, k idemhttp.RequestKey, resp idem.Response) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %s %d", k.Key, k.Tenant, resp.Status))
		if fail {
			fail = false
			return errors.New("audit table unreachable")
		}
		return nil
	}}, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) })

	w := f.do(request{key: `"k1"`})
	problem(t, w, http.StatusServiceUnavailable, "outcome-unrecorded")
	if strings.Contains(w.Body.String(), "audit table") {
		t.Errorf("the problem leaks BeforeStore's error: %s", w.Body)
	}
	if n := f.store.Len(); n != 0 {
		t.Errorf("after BeforeStore failed the store holds %d records, want the key released", n)
	}
	if w := f.do(request{key: `"k1"`}); w.Code != http.StatusCreated || w.Header().Get(idemhttp.HeaderReplayed) != "" {
		t.Errorf("retry = %d (replayed %q), want the handler's 201, run again", w.Code, w.Header().Get(idemhttp.HeaderReplayed))
	}
	if w := f.do(request{key: `"k1"`}); w.Code != http.StatusCreated || w.Header().Get(idemhttp.HeaderReplayed) != "true" {
		t.Errorf("third request = %d (replayed %q), want the stored 201", w.Code, w.Header().Get(idemhttp.HeaderReplayed))
	}
	status = http.StatusBadGateway
	f.do(request{key: `"k2"`})
	if want := []string{"k1 acme 201", "k1 acme 201"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("BeforeStore saw %q, want %q", seen, want)
	}
	if n := f.runs.Load(); n != 3 {
		t.Errorf("handler ran %d times, want 3 (k1 twice, k2 once)", n)
	}
}

// TestBeforeStoreMayKeep: BeforeStore may keep the response it is given; the header map and body
// it saw are not reused for a later request's response.
func TestBeforeStoreMayKeep(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		kept []idem.Response
	)
	f := newFixture(t, idemhttp.Options{BeforeStore: func(r *http.Request, k idemhttp.RequestKey, resp idem.Response) error {
		mu.Lock()
		defer mu.Unlock()
		kept = append(kept, resp)
		return nil
	}}, func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(idemhttp.HeaderKey)
		w.Header().Set("X-Key", key)
		w.Write([]byte("body of " + key))
	})
	for i := range 10 {
		f.do(request{key: "k" + strconv.Itoa(i)})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kept) != 10 {
		t.Fatalf("BeforeStore saw %d responses, want 10", len(kept))
	}
	for i, resp := range kept {
		key := "k" + strconv.Itoa(i)
		if got := resp.Header.Get("X-Key"); got != key || string(resp.Body) != "body of "+key {
			t.Errorf("response %d kept by BeforeStore is now X-Key %q body %q, want %q and its own body", i, got, resp.Body, key)
		}
	}
}

// logRecorder keeps the level and message of every record logged through it.
type logRecorder struct {
	mu      sync.Mutex
	records []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Level.String()+" "+r.Message)
	return nil
}

func (l *logRecorder) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.records
	l.records = nil
	return out
}

// TestLogLevels: replays and 409s are routine under retries and log at DEBUG only; a reused key
// is a client bug and logs at WARN.
func TestLogLevels(t *testing.T) {
	t.Parallel()
	logs := &logRecorder{}
	entered, release := make(chan struct{}), make(chan struct{})
	f := newFixture(t, idemhttp.Options{Logger: slog.New(logs)}, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(idemhttp.HeaderKey) == "slow" {
			close(entered)
			<-release
		}
		created(w, r)
	})
	f.do(request{key: "k"})
	if got := logs.take(); len(got) != 0 {
		t.Errorf("a first run logged %q, want nothing", got)
	}
	f.do(request{key: "k"})
	if got := logs.take(); fmt.Sprint(got) != "[DEBUG idempotency: replayed stored response]" {
		t.Errorf("a replay logged %q, want one DEBUG record", got)
	}
	done := make(chan struct{})
	go func() { f.do(request{key: "slow"}); close(done) }()
	<-entered
	problem(t, f.do(request{key: "slow"}), http.StatusConflict, "in-progress")
	close(release)
	<-done
	if got := logs.take(); fmt.Sprint(got) != "[DEBUG idempotency: request in progress]" {
		t.Errorf("a 409 logged %q, want one DEBUG record", got)
	}
	problem(t, f.do(request{key: "k", body: `{"amount":6}`}), http.StatusUnprocessableEntity, "key-reused")
	if got := logs.take(); fmt.Sprint(got) != "[WARN idempotency: key reused for a different request]" {
		t.Errorf("a mismatch logged %q, want one WARN record", got)
	}
}

// failingRelease is a store whose Release fails, as when the store goes down mid-request.
type failingRelease struct{ idem.Store }

func (failingRelease) Release(context.Context, string, string) error {
	return fmt.Errorf("%w: connection reset", idem.ErrStoreUnavailable)
}

// TestBeforeStoreAndReleaseFail: when BeforeStore fails and the release fails too, the key stays
// claimed, and the log says so rather than that it was released for a retry.
func TestBeforeStoreAndReleaseFail(t *testing.T) {
	t.Parallel()
	logs := &logRecorder{}
	store := idem.NewMemoryStore(idem.MemoryOptions{})
	f := newFixture(t, idemhttp.Options{
		Keeper: &idem.Keeper{Store: failingRelease{store}},
		Logger: slog.New(logs),
		BeforeStore: func(*http.Request, idemhttp.RequestKey, idem.Response) error {
			return errors.New("audit table unreachable")
		},
	}, created)
	w := f.do(request{key: "k"})
	problem(t, w, http.StatusServiceUnavailable, "outcome-unrecorded")
	got := logs.take()
	if len(got) != 1 || !strings.HasPrefix(got[0], "ERROR ") || !strings.Contains(got[0], "could not be released") || strings.Contains(got[0], "released for a retry") {
		t.Errorf("logged %q, want one ERROR saying the key could not be released", got)
	}
	if n := store.Len(); n != 1 {
		t.Errorf("the store holds %d records, want the key still claimed", n)
	}
	problem(t, f.do(request{key: "k"}), http.StatusConflict, "in-progress")
}

// TestBodyNotSharedAfterServe: the middleware reads bodies into pooled buffers; once it returns,
// the request holds its own body again, so a later read of it (by a middleware further out, say)
// cannot see the body of a request being served meanwhile.
func TestBodyNotSharedAfterServe(t *testing.T) {
	t.Parallel()
	first := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(`{"amount":1}`))
	first.Header.Set("X-Tenant", "acme")
	first.Header.Set(idemhttp.HeaderKey, "k1")
	var seen []byte
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(idemhttp.HeaderKey) == "k2" {
			seen, _ = io.ReadAll(first.Body)
		}
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	f.handler.ServeHTTP(httptest.NewRecorder(), first)
	for range 10 { // a pool may hand out another exchange now and then
		f.do(request{key: "k2", body: `{"secret":"of another request"}`})
		if strings.Contains(string(seen), "secret") {
			t.Fatalf("the first request's body reads %q, another request's", seen)
		}
	}
}

// TestRequestKeptAfterServe: a handler may keep its request, and its context, after it returns
// (for work it hands to a goroutine); what it kept goes on naming its own key and headers, however
// many requests are served after it.
func TestRequestKeptAfterServe(t *testing.T) {
	t.Parallel()
	var kept []*http.Request
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		kept = append(kept, r)
		w.WriteHeader(http.StatusNoContent)
	})
	for i := range 20 {
		f.do(request{key: "k" + strconv.Itoa(i)})
	}
	for i, r := range kept {
		want := "k" + strconv.Itoa(i)
		if k, ok := idemhttp.KeyFromContext(r.Context()); !ok || k.Key != want || r.Header.Get(idemhttp.HeaderKey) != want {
			t.Errorf("request %d kept: key %+v (%v) in its context, header %q; want %s in both", i, k, ok, r.Header.Get(idemhttp.HeaderKey), want)
		}
	}
}

// TestResponsesNotSharedAcrossRequests: the recorder's header map and body buffer serve request
// after request, and neither a response sent, nor one stored, nor a replay shows another's
// headers or body.
func TestResponsesNotSharedAcrossRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(idemhttp.HeaderKey)
		if key == "k0" {
			w.Header().Set("X-First", "only")
		}
		w.Header().Add("X-Key", key)
		w.Write([]byte("body of " + key))
	})
	check := func(w *httptest.ResponseRecorder, key string) {
		t.Helper()
		want := http.Header{"X-Key": {key}}
		if key == "k0" {
			want["X-First"] = []string{"only"}
		}
		got := w.Result().Header.Clone()
		got.Del(idemhttp.HeaderReplayed)
		if !reflect.DeepEqual(got, want) || w.Body.String() != "body of "+key {
			t.Errorf("%s: header %v body %q, want %v and its own body", key, got, w.Body, want)
		}
	}
	var sent []*httptest.ResponseRecorder
	for i := range 20 {
		sent = append(sent, f.do(request{key: "k" + strconv.Itoa(i)}))
	}
	for i, w := range sent {
		check(w, "k"+strconv.Itoa(i))
		check(f.do(request{key: "k" + strconv.Itoa(i)}), "k"+strconv.Itoa(i))
	}
}

// TestReplayedHeaderAdd: a handler around the middleware that adds to a replay's
// Idempotent-Replayed header, whose value all replays share, changes no other replay's.
func TestReplayedHeaderAdd(t *testing.T) {
	t.Parallel()
	mw, err := idemhttp.New(idemhttp.Options{Keeper: &idem.Keeper{Store: idem.NewMemoryStore(idem.MemoryOptions{})}, Unscoped: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	for i := range 4 {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("{}"))
		r.Header.Set(idemhttp.HeaderKey, "k")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		sent := w.Result().Header[idemhttp.HeaderReplayed] // as written
		w.Header().Add(idemhttp.HeaderReplayed, "added")
		after := w.Header()[idemhttp.HeaderReplayed]
		switch {
		case i == 0 && (sent != nil || !slices.Equal(after, []string{"added"})):
			t.Errorf("first answer: %s %q, then %q", idemhttp.HeaderReplayed, sent, after)
		case i > 0 && (!slices.Equal(sent, []string{"true"}) || !slices.Equal(after, []string{"true", "added"})):
			t.Errorf("replay %d: %s %q, then %q; want [true], then [true added]", i, idemhttp.HeaderReplayed, sent, after)
		}
	}
}
