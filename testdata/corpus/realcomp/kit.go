// Package realcomp holds idempotency claims and completions shaped like
// the toolkits and middlewares services take off the shelf: a key store
// behind a small interface, a recorder around the handler, an endpoint
// wrapper around a function that returns its result and error.
package realcomp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Saved is a response kept under a key for replay.
type Saved struct {
	StatusCode int               `json:"status_code"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       []byte            `json:"body,omitempty"`
	Err        string            `json:"err,omitempty"`
	At         time.Time         `json:"at"`
}

// KeyStore keeps responses under idempotency keys, with a short lock
// taken while the first request runs.
type KeyStore interface {
	Get(ctx context.Context, key string) (*Saved, error)
	Set(ctx context.Context, key string, s *Saved, ttl time.Duration) error
	SetNX(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Delete(ctx context.Context, key string) error
}

// capture records the status and body the wrapped handler writes.
type capture struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	c.code = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(p []byte) (int, error) {
	c.buf.Write(p)
	return c.ResponseWriter.Write(p)
}

// replay writes a saved response.
func replay(w http.ResponseWriter, s *Saved) {
	for k, v := range s.Headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(s.StatusCode)
	_, _ = w.Write(s.Body)
}

// Toolkit is the idempotency middleware of a service toolkit.
type Toolkit struct {
	Store   KeyStore
	TTL     time.Duration
	LockTTL time.Duration
	Log     *slog.Logger
}

// HTTP wraps next: the first POST with a key runs it, and whatever it
// answered is kept for the retries.
//
// corpus: bug cacheresponse
// modelled on: Tsukikage7/microservice-kit middleware/idempotency/http.go (recorder's status saved with the body, no 5xx check)
func (t *Toolkit) HTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if r.Method != http.MethodPost || key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		ok, err := t.Store.SetNX(ctx, key, t.LockTTL)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			if saved, err := t.Store.Get(ctx, key); err == nil && saved != nil {
				replay(w, saved)
				return
			}
			w.Header().Set("Retry-After", "1")
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		saved := &Saved{StatusCode: rec.code, Headers: map[string]string{}, Body: rec.buf.Bytes(), At: time.Now()}
		for k, v := range rec.Header() {
			saved.Headers[k] = v[0]
		}
		if err := t.Store.Set(context.WithoutCancel(ctx), key, saved, t.TTL); err != nil {
			t.Log.Warn("idempotency: save response", "key", key, "err", err)
		}
	})
}

// HTTPKeepingSuccess wraps next like HTTP, but a 5xx gives the key back
// so that a retry runs again.
//
// corpus: ok cacheresponse
// modelled on: Tsukikage7/microservice-kit middleware/idempotency/http.go (the same middleware, releasing on 5xx)
func (t *Toolkit) HTTPKeepingSuccess(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if r.Method != http.MethodPost || key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		ok, err := t.Store.SetNX(ctx, key, t.LockTTL)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			if saved, err := t.Store.Get(ctx, key); err == nil && saved != nil {
				replay(w, saved)
				return
			}
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.code >= http.StatusInternalServerError {
			_ = t.Store.Delete(context.WithoutCancel(ctx), key)
			return
		}
		saved := &Saved{StatusCode: rec.code, Body: rec.buf.Bytes(), At: time.Now()}
		if err := t.Store.Set(context.WithoutCancel(ctx), key, saved, t.TTL); err != nil {
			t.Log.Warn("idempotency: save response", "key", key, "err", err)
		}
	})
}

// Cached is what a lock-based store keeps.
type Cached struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// LockStore locks a key for the length of one request and keeps the
// response it produced.
type LockStore interface {
	Lock(key string) (unlock func(), err error)
	Get(key string) (*Cached, error)
	Set(key string, c *Cached, ttl time.Duration) error
}

// errBusy says another request holds the key's lock.
var errBusy = errors.New("request in progress")

// Once wraps next so that a repeated request with the same key gets the
// response of the first.
//
// corpus: bug cacheresponse
// modelled on: AnandSundar/go-idempotency idempotency.go (lock, look up, run, keep the recorder's answer whatever it was)
func Once(store LockStore, ttl time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		unlock, err := store.Lock(key)
		if errors.Is(err, errBusy) {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		defer unlock()
		cached, err := store.Get(key)
		if err == nil && cached != nil {
			w.WriteHeader(cached.StatusCode)
			_, _ = w.Write(cached.Body)
			return
		}
		rec := &capture{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		cached = &Cached{StatusCode: rec.code, Header: rec.Header().Clone(), Body: rec.buf.Bytes()}
		_ = store.Set(key, cached, ttl)
	})
}

// OnceSuccessful is Once keeping only answers below 500.
//
// corpus: ok cacheresponse
// modelled on: AnandSundar/go-idempotency idempotency.go (the same middleware, keeping only what a retry may get back)
func OnceSuccessful(store LockStore, ttl time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		unlock, err := store.Lock(key)
		if errors.Is(err, errBusy) {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		defer unlock()
		cached, err := store.Get(key)
		if err == nil && cached != nil {
			w.WriteHeader(cached.StatusCode)
			_, _ = w.Write(cached.Body)
			return
		}
		rec := &capture{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		switch {
		case rec.code < 500:
			cached = &Cached{StatusCode: rec.code, Header: rec.Header().Clone(), Body: rec.buf.Bytes()}
			_ = store.Set(key, cached, ttl)
		}
	})
}

// Endpoint is a transport-neutral call: decoded request in, result out.
type Endpoint func(ctx context.Context, req any) (any, error)

// Keyed is a request that carries its own idempotency key.
type Keyed interface{ IdempotencyKey() string }

// errInProgress says another call with the key is running.
var errInProgress = errors.New("idempotency: in progress")

// savedError is an error replayed from the store.
type savedError struct{ msg string }

func (e *savedError) Error() string { return e.msg }

// Wrap makes next idempotent per request key: the first call runs, and
// its result, or its error, is kept for the retries.
//
// corpus: bug cacheresponse
// modelled on: Tsukikage7/microservice-kit middleware/idempotency/endpoint.go (the endpoint's error saved as the key's result)
func (t *Toolkit) Wrap(next Endpoint) Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		kr, ok := req.(Keyed)
		if !ok || kr.IdempotencyKey() == "" {
			return next(ctx, req)
		}
		key := kr.IdempotencyKey()
		locked, err := t.Store.SetNX(ctx, key, t.LockTTL)
		if err != nil {
			return nil, err
		}
		if !locked {
			if saved, err := t.Store.Get(ctx, key); err == nil && saved != nil {
				if saved.Err != "" {
					return nil, &savedError{msg: saved.Err}
				}
				return saved.Body, nil
			}
			return nil, errInProgress
		}
		resp, err := next(ctx, req)
		result := &Saved{At: time.Now()}
		if err != nil {
			result.Err = err.Error()
		} else {
			result.Body, _ = json.Marshal(resp)
		}
		if serr := t.Store.Set(ctx, key, result, t.TTL); serr != nil {
			t.Log.Warn("idempotency: save result", "key", key, "err", serr)
		}
		return resp, err
	}
}

// errRejected marks a request the endpoint refused on its merits: the
// same request would be refused again.
var errRejected = errors.New("rejected")

// WrapFinal is Wrap keeping an error only when it is final: a transient
// one gives the key back.
//
// corpus: ok cacheresponse
// modelled on: Tsukikage7/microservice-kit middleware/idempotency/endpoint.go (the same wrapper, keeping rejections and releasing on the rest)
func (t *Toolkit) WrapFinal(next Endpoint) Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		kr, ok := req.(Keyed)
		if !ok || kr.IdempotencyKey() == "" {
			return next(ctx, req)
		}
		key := kr.IdempotencyKey()
		locked, err := t.Store.SetNX(ctx, key, t.LockTTL)
		if err != nil {
			return nil, err
		}
		if !locked {
			if saved, err := t.Store.Get(ctx, key); err == nil && saved != nil {
				if saved.Err != "" {
					return nil, &savedError{msg: saved.Err}
				}
				return saved.Body, nil
			}
			return nil, errInProgress
		}
		resp, err := next(ctx, req)
		if err != nil && !errors.Is(err, errRejected) {
			_ = t.Store.Delete(context.WithoutCancel(ctx), key)
			return nil, err
		}
		result := &Saved{At: time.Now()}
		if err != nil {
			result.Err = err.Error()
		} else {
			result.Body, _ = json.Marshal(resp)
		}
		if serr := t.Store.Set(ctx, key, result, t.TTL); serr != nil {
			t.Log.Warn("idempotency: save result", "key", key, "err", serr)
		}
		return resp, err
	}
}
