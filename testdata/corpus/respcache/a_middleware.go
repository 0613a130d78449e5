// Package respcache holds Idempotency-Key middlewares that keep each
// answer in a response cache behind an interface: a lookup, the handler,
// then a store under the same key.
package respcache

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Answer is what a cache keeps for a key.
type Answer struct {
	Code    int
	Headers http.Header
	Body    []byte
	Expires time.Time
}

// AnswerCache is the store a deployment plugs in (Redis, memory).
type AnswerCache interface {
	Get(key string) (*Answer, error)
	Set(key string, a *Answer) error
}

// tee copies what the handler writes, and the status it answers with.
type tee struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (t *tee) WriteHeader(code int) {
	t.code = code
	t.ResponseWriter.WriteHeader(code)
}

func (t *tee) Write(p []byte) (int, error) {
	t.buf.Write(p)
	return t.ResponseWriter.Write(p)
}

// Locks serialises the requests that carry one key.
type Locks interface {
	Lock(ctx context.Context, key string) (unlock func(), err error)
}

// Replayer answers a repeated key with the answer kept for it; the
// lookup and the store run under the key's lock.
type Replayer struct {
	Cache AnswerCache
	Locks Locks
	TTL   time.Duration
	Log   *slog.Logger
}

// Wrap keeps whatever the handler answered, a 502 from a dependency
// that was down included: every retry of the key gets the 502 back until
// it expires.
//
// corpus: bug cacheresponse
// modelled on: go-mizu/mizu middlewares/idempotency/idempotency.go (Store.Get, next, then Store.Set of the captured status and body)
func (p *Replayer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		scoped := r.Method + " " + r.URL.Path + " " + key
		unlock, err := p.Locks.Lock(r.Context(), scoped)
		if err != nil {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		defer unlock()
		if a, err := p.Cache.Get(scoped); err == nil && a != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(a.Code)
			_, _ = w.Write(a.Body)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		kept := &Answer{Code: t.code, Headers: w.Header().Clone(), Body: t.buf.Bytes(), Expires: time.Now().Add(p.TTL)}
		if err := p.Cache.Set(scoped, kept); err != nil {
			p.Log.WarnContext(r.Context(), "keep answer", "key", key, "err", err)
		}
	})
}

// WrapSettled keeps an answer only when it is one a retry should get
// again: a 5xx is left out, and the next retry runs the handler.
//
// corpus: ok cacheresponse
// modelled on: go-mizu/mizu middlewares/idempotency/idempotency.go (the same middleware, keeping 2xx and 4xx only)
func (p *Replayer) WrapSettled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		scoped := r.Method + " " + r.URL.Path + " " + key
		unlock, err := p.Locks.Lock(r.Context(), scoped)
		if err != nil {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		defer unlock()
		if a, err := p.Cache.Get(scoped); err == nil && a != nil {
			w.WriteHeader(a.Code)
			_, _ = w.Write(a.Body)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		if t.code >= http.StatusInternalServerError {
			return
		}
		kept := &Answer{Code: t.code, Headers: w.Header().Clone(), Body: t.buf.Bytes(), Expires: time.Now().Add(p.TTL)}
		if err := p.Cache.Set(scoped, kept); err != nil {
			p.Log.WarnContext(r.Context(), "keep answer", "key", key, "err", err)
		}
	})
}

// WrapStatus keeps the status of a settled answer and not its body: a
// retry of a created order gets a bare 201 with nothing to read.
//
// corpus: bug cacheresponse
// modelled on: go-mizu/mizu middlewares/idempotency/idempotency.go (a Response kept under the key, here without its Body)
func (p *Replayer) WrapStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		unlock, err := p.Locks.Lock(r.Context(), key)
		if err != nil {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		defer unlock()
		if a, err := p.Cache.Get(key); err == nil && a != nil {
			w.WriteHeader(a.Code)
			_, _ = w.Write(a.Body)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		if t.code < http.StatusInternalServerError {
			_ = p.Cache.Set(key, &Answer{Code: t.code, Expires: time.Now().Add(p.TTL)})
		}
	})
}

// PageCache keeps the pages GET requests read, for a minute: a retry of a
// read may run it again, and no idempotency key is involved.
type PageCache struct {
	Cache AnswerCache
}

// Wrap caches reads only; every other method goes straight through.
//
// corpus: ok cacheresponse
// modelled on: gofiber/fiber middleware/cache/cache.go (caches the methods in cfg.Methods, GET and HEAD by default)
func (p *PageCache) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := r.URL.RequestURI()
		if a, err := p.Cache.Get(key); err == nil && a != nil && time.Now().Before(a.Expires) {
			w.WriteHeader(a.Code)
			_, _ = w.Write(a.Body)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		_ = p.Cache.Set(key, &Answer{Code: t.code, Body: t.buf.Bytes(), Expires: time.Now().Add(time.Minute)})
	})
}

// Kept is a response stored with the key it answers.
type Kept struct {
	IdempotencyKey string
	ResponseStatus int
	ResponseBody   []byte
	RequestHash    string
}

// Keeps is the service a middleware keeps its answers through.
type Keeps interface {
	GetCachedResponse(ctx context.Context, key string) (Kept, error)
	CacheResponse(ctx context.Context, k Kept) error
}

// Idempotent keeps the handler's answer in a record that carries its own
// key, whatever the status.
//
// corpus: bug cacheresponse
// modelled on: jpgsaraceni/suricate-bank app/gateways/api/http/middlewares/idempotency.go (CacheResponse of a schema.CachedResponse holding the key, status and body)
func Idempotent(keeps Keeps, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		k, err := keeps.GetCachedResponse(r.Context(), key)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if k.IdempotencyKey != "" {
			w.WriteHeader(k.ResponseStatus)
			_, _ = w.Write(k.ResponseBody)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		_ = keeps.CacheResponse(context.WithoutCancel(r.Context()), Kept{IdempotencyKey: key, ResponseStatus: t.code, ResponseBody: t.buf.Bytes()})
	})
}

// IdempotentSettled keeps the record only for an answer below 500.
//
// corpus: ok cacheresponse
// modelled on: jpgsaraceni/suricate-bank app/gateways/api/http/middlewares/idempotency.go (the same middleware, leaving server errors out)
func IdempotentSettled(keeps Keeps, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		k, err := keeps.GetCachedResponse(r.Context(), key)
		if err != nil {
			http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
			return
		}
		if k.IdempotencyKey != "" {
			w.WriteHeader(k.ResponseStatus)
			_, _ = w.Write(k.ResponseBody)
			return
		}
		t := &tee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		if t.code < http.StatusInternalServerError {
			_ = keeps.CacheResponse(context.WithoutCancel(r.Context()), Kept{IdempotencyKey: key, ResponseStatus: t.code, ResponseBody: t.buf.Bytes()})
		}
	})
}
