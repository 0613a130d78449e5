package idemhttp_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
)

// lossy sends each attempt for real but loses the answers of the first n: the server did the
// work, the client never heard.
type lossy struct {
	n    atomic.Int32
	mu   sync.Mutex
	keys []string
}

func (l *lossy) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.keys = append(l.keys, r.Header.Get(idemhttp.HeaderKey))
	l.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && l.n.Add(-1) >= 0 {
		resp.Body.Close()
		return nil, errors.New("connection reset")
	}
	return resp, err
}

func idempotentServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	mw, err := idemhttp.New(idemhttp.Options{
		Keeper:   &idem.Keeper{Store: idem.NewMemoryStore(idem.MemoryOptions{})},
		Unscoped: true,
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		h(w, r)
	})))
	t.Cleanup(srv.Close)
	return srv, &runs
}

// TestTransportLostResponses: the answers of the first two attempts are lost; the third attempt
// carries the same key and gets the first run's answer replayed.
func TestTransportLostResponses(t *testing.T) {
	t.Parallel()
	srv, runs := idempotentServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte("charged once"))
	})
	base := &lossy{}
	base.n.Store(2)
	client := &http.Client{Transport: &idemhttp.Transport{Base: base, Backoff: time.Millisecond}}
	resp, err := client.Post(srv.URL+"/charges", "application/json", strings.NewReader(`{"amount":5}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || string(body) != "charged once" || resp.Header.Get(idemhttp.HeaderReplayed) != "true" {
		t.Errorf("answer %d %q replayed=%q, want the first run's answer replayed", resp.StatusCode, body, resp.Header.Get(idemhttp.HeaderReplayed))
	}
	if runs.Load() != 1 || len(base.keys) != 3 || base.keys[0] == "" || base.keys[0] != base.keys[1] || base.keys[1] != base.keys[2] {
		t.Errorf("%d runs over attempts with keys %q; want one run and one key on all three", runs.Load(), base.keys)
	}
	// A second logical operation gets a key of its own.
	resp, err = client.Post(srv.URL+"/charges", "application/json", strings.NewReader(`{"amount":5}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if runs.Load() != 2 || base.keys[3] == base.keys[0] {
		t.Errorf("second operation: %d runs, key %q (first %q); want a new key and a new run", runs.Load(), base.keys[3], base.keys[0])
	}
}

// TestTransportHonoursConflict: a 409 with Retry-After is waited out, then retried with the same
// key, which the caller chose.
func TestTransportHonoursConflict(t *testing.T) {
	t.Parallel()
	var attempts atomic.Int32
	var keys sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys.Store(r.Header.Get(idemhttp.HeaderKey), true)
		if attempts.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &idemhttp.Transport{Backoff: time.Hour}} // only Retry-After can make it retry in time
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	req.Header.Set(idemhttp.HeaderKey, `"mine"`)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	n := 0
	keys.Range(func(k, _ any) bool { n++; return k == `"mine"` })
	if resp.StatusCode != http.StatusCreated || attempts.Load() != 2 || n != 1 {
		t.Errorf("answer %d after %d attempts with %d distinct keys; want 201 after 2 with the caller's key", resp.StatusCode, attempts.Load(), n)
	}
	if req.Header.Get(idemhttp.HeaderKey) != `"mine"` {
		t.Error("RoundTrip changed the caller's request")
	}
}

func TestTransportSendsOnce(t *testing.T) {
	t.Parallel()
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		if r.Method == http.MethodPost && r.Header.Get(idemhttp.HeaderKey) == "" {
			t.Error("POST without a key")
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &idemhttp.Transport{Backoff: time.Millisecond, Attempts: 3}}
	for _, tc := range []struct {
		name string
		req  func() *http.Request
		want int32
	}{
		{"GET is not retried", func() *http.Request { r, _ := http.NewRequest(http.MethodGet, srv.URL, nil); return r }, 1},
		{"a body that cannot be replayed", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("{}")))
			return r
		}, 1},
		{"attempts bound", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
			return r
		}, 3},
	} {
		attempts.Store(0)
		resp, err := client.Do(tc.req())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if attempts.Load() != tc.want {
			t.Errorf("%s: %d attempts, want %d", tc.name, attempts.Load(), tc.want)
		}
	}
}
