package cacheresponse

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"time"
)

// Saved is what a response cache keeps under a key.
type Saved struct {
	Status int
	Header http.Header
	Body   []byte
}

// SavedStore is a response cache known only by its methods' shapes: no
// claim, a lookup and a store under the same key.
type SavedStore interface {
	Get(ctx context.Context, key string) (*Saved, bool, error)
	Set(ctx context.Context, key string, s *Saved, ttl time.Duration) error
}

// SplitStore keeps the status apart from the body.
type SplitStore interface {
	Check(key string) (*Saved, bool)
	Put(key string, status int, header http.Header, body []byte)
}

func savesAnyStatus(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok, err := store.Get(r.Context(), key); err == nil && ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		_ = store.Set(r.Context(), key, &Saved{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, time.Hour) // want `Set stores the status rec.Code for the key looked up by Get at responsecache.go:\d+ without a check for 5xx`
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func savesStatusOnly(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok, err := store.Get(r.Context(), key); err == nil && ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code < 500 {
			_ = store.Set(r.Context(), key, &Saved{Status: rec.Code}, time.Hour) // want `Set stores a status and no response: it marks the key looked up by Get at responsecache.go:\d+ completed`
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func savesBelow500(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok, err := store.Get(r.Context(), key); err == nil && ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code < 500 {
			_ = store.Set(r.Context(), key, &Saved{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, time.Hour)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func putsAnyStatus(store SplitStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok := store.Check(key); ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		store.Put(key, rec.Code, rec.Header(), rec.Body.Bytes()) // want `Put stores the status rec.Code for the key looked up by Check`
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func putsBelow500(store SplitStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok := store.Check(key); ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			w.WriteHeader(rec.Code)
			return
		}
		store.Put(key, rec.Code, rec.Header(), rec.Body.Bytes())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// cachesReads keeps GET responses, which a retry may fetch again: no
// idempotency key is involved.
func cachesReads(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := r.URL.String()
		if s, ok, err := store.Get(r.Context(), key); err == nil && ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		_ = store.Set(r.Context(), key, &Saved{Status: rec.Code, Body: rec.Body.Bytes()}, time.Minute)
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// skipsReads keeps every other method's response: GET passes through.
func skipsReads(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		if s, ok, err := store.Get(r.Context(), key); err == nil && ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		_ = store.Set(r.Context(), key, &Saved{Status: rec.Code, Body: rec.Body.Bytes()}, time.Hour) // want `Set stores the status rec.Code for the key looked up by Get`
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// savesOtherKey looks up one key and keeps a response under another.
func savesOtherKey(store SavedStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s, ok, err := store.Get(r.Context(), r.URL.Path); err == nil && ok {
			w.Header().Set("X-Last-Status", http.StatusText(s.Status))
		}
		key := r.Header.Get("Idempotency-Key")
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		_ = store.Set(r.Context(), key, &Saved{Status: rec.Code, Body: rec.Body.Bytes()}, time.Hour)
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// tokens is a read-through cache of a string: no response to check.
type tokens interface {
	Get(ctx context.Context, key string) (string, bool)
	Set(ctx context.Context, key, token string, ttl time.Duration)
}

func cachedToken(ctx context.Context, c tokens, scope string, fetch func() (string, error)) (string, error) {
	if t, ok := c.Get(ctx, scope); ok {
		return t, nil
	}
	t, err := fetch()
	if err != nil {
		return "", err
	}
	c.Set(ctx, scope, t, time.Hour)
	return t, nil
}

// putsFromDefer keeps the answer from a deferred function that checks the
// status first.
func putsFromDefer(store SplitStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if s, ok := store.Check(key); ok {
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		defer func() {
			if rec.Code < 500 {
				store.Put(key, rec.Code, rec.Header(), rec.Body.Bytes())
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}()
		next.ServeHTTP(rec, r)
	})
}

// frameCtx is a web framework's context: the writer is one of its
// methods, not a parameter of the handler.
type frameCtx struct {
	w http.ResponseWriter
	r *http.Request
}

func (c *frameCtx) Writer() http.ResponseWriter     { return c.w }
func (c *frameCtx) SetWriter(w http.ResponseWriter) { c.w = w }
func (c *frameCtx) Request() *http.Request          { return c.r }

type frameHandler func(*frameCtx) error

type frameCapture struct {
	http.ResponseWriter
	buf    bytes.Buffer
	status int
}

func (w *frameCapture) WriteHeader(code int)        { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *frameCapture) Write(b []byte) (int, error) { w.buf.Write(b); return w.ResponseWriter.Write(b) }

func frameworkSaves(store SavedStore, next frameHandler) frameHandler {
	return func(c *frameCtx) error {
		key := c.Request().Header.Get("Idempotency-Key")
		if s, ok, err := store.Get(c.Request().Context(), key); err == nil && ok {
			c.Writer().WriteHeader(s.Status)
			_, _ = c.Writer().Write(s.Body)
			return nil
		}
		rw := &frameCapture{ResponseWriter: c.Writer(), status: http.StatusOK}
		c.SetWriter(rw)
		err := next(c)
		saved := &Saved{Status: rw.status, Header: rw.Header().Clone(), Body: rw.buf.Bytes()}
		_ = store.Set(c.Request().Context(), key, saved, time.Hour) // want `Set stores the status rw.status for the key looked up by Get`
		return err
	}
}

// Held is a response kept with the key it answers.
type Held struct {
	Key            string
	ResponseStatus int
	ResponseBody   []byte
}

// HeldService keeps records that carry their own key.
type HeldService interface {
	GetCachedResponse(ctx context.Context, key string) (Held, error)
	CacheResponse(ctx context.Context, h Held) error
}

func cachesHeld(s HeldService, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		held, err := s.GetCachedResponse(r.Context(), key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if held.Key != "" {
			w.WriteHeader(held.ResponseStatus)
			_, _ = w.Write(held.ResponseBody)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		_ = s.CacheResponse(r.Context(), Held{Key: key, ResponseStatus: rec.Code, ResponseBody: rec.Body.Bytes()}) // want `CacheResponse stores the status rec.Code for the key looked up by GetCachedResponse`
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func cachesHeldBelow500(s HeldService, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		held, err := s.GetCachedResponse(r.Context(), key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if held.Key != "" {
			w.WriteHeader(held.ResponseStatus)
			_, _ = w.Write(held.ResponseBody)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code < 500 {
			_ = s.CacheResponse(r.Context(), Held{Key: key, ResponseStatus: rec.Code, ResponseBody: rec.Body.Bytes()})
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}
