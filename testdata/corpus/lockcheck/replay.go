// Package lockcheck holds a check of a stored answer or result and a lock
// taken per key: after the check with no second look under it, or
// followed by a second check before the work.
package lockcheck

import (
	"net/http"
	"time"

	"example.com/corpus/lockcheck/capture"
	"example.com/corpus/lockcheck/respstore"
)

// Replay answers a POST repeated with the same Idempotency-Key from a
// pluggable store.
type Replay struct {
	store     respstore.Store
	header    string
	lockTTL   time.Duration
	answerTTL time.Duration
}

func replayAnswer(w http.ResponseWriter, a *respstore.Answer) {
	for k, vs := range a.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write([]byte(a.Body))
}

// Wrap looks the key up, locks it, runs the handler and keeps its answer.
// The lookup runs before the lock and is not repeated under it: a retry
// that looked before the first request's Set and locks after its Unlock
// runs the handler a second time.
//
// corpus: bug checkthenact
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (Check: store Get, Lock with 409, handler through a response writer of another package, Set, Unlock)
func (m *Replay) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(m.header)
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		kept, err := m.store.Get(ctx, key)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if kept != nil {
			replayAnswer(w, kept)
			return
		}
		if err := m.store.Lock(ctx, key, m.lockTTL); err != nil {
			http.Error(w, "a request with this key is in progress", http.StatusConflict)
			return
		}
		cw := capture.Wrap(w)
		next.ServeHTTP(cw, r)
		if cw.Status() < http.StatusInternalServerError {
			_ = m.store.Set(ctx, key, &respstore.Answer{Status: cw.Status(), Header: cw.Header().Clone(), Body: cw.Body()}, m.answerTTL)
		}
		_ = m.store.Unlock(ctx, key)
	})
}

// WrapRechecked looks the key up once more after it takes the lock and
// before it runs the handler: the second look and the Set are one step to
// every request that takes the same lock.
//
// corpus: ok checkthenact
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (Check's store Get, Lock, handler and Set, here with the Get repeated under the Lock)
func (m *Replay) WrapRechecked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(m.header)
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		if kept, err := m.store.Get(ctx, key); err == nil && kept != nil {
			replayAnswer(w, kept)
			return
		}
		if err := m.store.Lock(ctx, key, m.lockTTL); err != nil {
			http.Error(w, "a request with this key is in progress", http.StatusConflict)
			return
		}
		defer func() { _ = m.store.Unlock(ctx, key) }()
		kept, err := m.store.Get(ctx, key)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if kept != nil {
			replayAnswer(w, kept)
			return
		}
		rec := &answerRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status < http.StatusInternalServerError {
			_ = m.store.Set(ctx, key, &respstore.Answer{Status: rec.status, Header: w.Header().Clone(), Body: string(rec.body)}, m.answerTTL)
		}
	})
}

// answerRecorder keeps the status and body the handler wrote.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (a *answerRecorder) WriteHeader(status int) {
	a.status = status
	a.ResponseWriter.WriteHeader(status)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	a.body = append(a.body, b...)
	return a.ResponseWriter.Write(b)
}
