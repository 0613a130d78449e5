package idemhttp_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
)

// TestHandlerHeadersSent: the client of the request whose handler ran gets every header the
// handler set, with all their values, hop-by-hop ones included; the pooled recorder carries none
// of them into the next request's response.
func TestHandlerHeadersSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{}, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(idemhttp.HeaderKey) == "k1" {
			w.Header()["X-Many"] = []string{"a", "b", "c"}
			w.Header().Set("X-One", "1")
			w.Header().Set("Connection", "close")
			w.Header()["X-Nil"] = nil
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusCreated)
	})
	w := f.do(request{key: "k1"})
	want := http.Header{"X-Many": {"a", "b", "c"}, "X-One": {"1"}, "Connection": {"close"}, "X-Nil": nil, "Content-Type": {"text/plain"}}
	if !equalHeaders(w.Header(), want) {
		t.Errorf("headers sent %v, want %v", w.Header(), want)
	}
	for _, key := range []string{"k2", "k3", "k4"} { // the recorder goes back to the pool and serves again
		w = f.do(request{key: key})
		if want := (http.Header{"Content-Type": {"text/plain"}}); !equalHeaders(w.Header(), want) {
			t.Errorf("next response's headers %v, want %v", w.Header(), want)
		}
	}
	w = f.do(request{key: "k1"})
	want = http.Header{"X-Many": {"a", "b", "c"}, "X-One": {"1"}, "X-Nil": nil, "Content-Type": {"text/plain"}, idemhttp.HeaderReplayed: {"true"}}
	if !equalHeaders(w.Header(), want) {
		t.Errorf("replayed headers %v, want %v", w.Header(), want)
	}
}

// TestBeforeStoreHeaderSent: a header BeforeStore adds to the response it is given goes to the
// client with the rest, as it goes to the store.
func TestBeforeStoreHeaderSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idemhttp.Options{BeforeStore: func(r *http.Request, k idemhttp.RequestKey, resp idem.Response) error {
		resp.Header.Set("X-Audit", "row-1")
		return nil
	}}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Order", "o1")
		w.WriteHeader(http.StatusCreated)
	})
	for _, replayed := range []string{"", "true"} {
		w := f.do(request{key: "k1"})
		if w.Header().Get(idemhttp.HeaderReplayed) != replayed || w.Header().Get("X-Audit") != "row-1" || w.Header().Get("X-Order") != "o1" {
			t.Errorf("replayed %q: headers %v, want X-Audit and X-Order", replayed, w.Header())
		}
	}
}

// equalHeaders compares two headers, telling a nil value slice from an empty one.
func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || (v == nil) != (w == nil) || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// TestScopedKeyFormat: the scoped key is the namespace, the tenant's length and the tenant, the
// method, the route's length and the route, and the client's key — byte for byte the same with
// or without a tenant, so that keys stored before an upgrade are found after it.
func TestScopedKeyFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts idemhttp.Options
		want string
	}{
		{idemhttp.Options{}, "idem:4:acme:POST:8:/charges:"},
		{idemhttp.Options{Namespace: "pay"}, "pay:4:acme:POST:8:/charges:"},
		{idemhttp.Options{Unscoped: true}, "idem:0::POST:8:/charges:"},
		{idemhttp.Options{Unscoped: true, Namespace: "pay"}, "pay:0::POST:8:/charges:"},
	} {
		var got string
		f := newFixture(t, tc.opts, func(w http.ResponseWriter, r *http.Request) {
			k, _ := idemhttp.KeyFromContext(r.Context())
			got = k.Scoped
		})
		for _, key := range []string{"a-longer-key-first", "k1", "k2"} { // the pooled buffer the key is made in serves again
			got = ""
			f.do(request{key: key})
			if want := tc.want + key; got != want {
				t.Errorf("namespace %q, unscoped %v: scoped key %q, want %q", tc.opts.Namespace, tc.opts.Unscoped, got, want)
			}
			if _, err := f.store.Get(t.Context(), tc.want+key); err != nil {
				t.Errorf("the store has no record under %q: %v", tc.want+key, err)
			}
		}
	}
}
