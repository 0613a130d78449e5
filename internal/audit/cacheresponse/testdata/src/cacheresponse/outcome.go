package cacheresponse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Kept is a response kept under a key by a store known only by its
// methods' shapes.
type Kept struct {
	StatusCode int
	Body       []byte
	Err        string
}

type KeptStore interface {
	SetNX(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Set(ctx context.Context, key string, k *Kept, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
}

type LockingStore interface {
	Lock(key string) (unlock func(), err error)
	Set(key string, k *Kept, ttl time.Duration) error
}

type recorder struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (r *recorder) WriteHeader(code int)        { r.code = code; r.ResponseWriter.WriteHeader(code) }
func (r *recorder) Write(p []byte) (int, error) { r.buf.Write(p); return r.ResponseWriter.Write(p) }

func keepsAnyStatus(s KeptStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ok, err := s.SetNX(r.Context(), key, time.Minute)
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		kept := &Kept{StatusCode: rec.code, Body: rec.buf.Bytes()}
		_ = s.Set(context.WithoutCancel(r.Context()), key, kept, time.Hour) // want `Set stores the status rec.code for the key claimed by SetNX at outcome.go:\d+ without a check for 5xx`
	})
}

func keepsBelow500(s KeptStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ok, err := s.SetNX(r.Context(), key, time.Minute)
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.code >= http.StatusInternalServerError {
			_ = s.Delete(context.WithoutCancel(r.Context()), key)
			return
		}
		_ = s.Set(context.WithoutCancel(r.Context()), key, &Kept{StatusCode: rec.code, Body: rec.buf.Bytes()}, time.Hour)
	})
}

func keepsCreated(s KeptStore, w http.ResponseWriter, r *http.Request, body []byte) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.SetNX(r.Context(), key, time.Minute)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	_ = s.Set(r.Context(), key, &Kept{StatusCode: http.StatusCreated, Body: body}, time.Hour)
	w.WriteHeader(http.StatusCreated)
	w.Write(body)
}

// lockedAnyStatus takes a lock whose unlock it defers, and keeps the
// answer under the key it locked: a variable set twice, its last value a
// literal.
func lockedAnyStatus(s LockingStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		unlock, err := s.Lock(key)
		if err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer unlock()
		kept := lookup(key)
		if kept != nil {
			w.WriteHeader(kept.StatusCode)
			return
		}
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		kept = &Kept{StatusCode: rec.code, Body: rec.buf.Bytes()}
		_ = s.Set(key, kept, time.Hour) // want `Set stores the status rec.code for the key claimed by Lock`
	})
}

func lockedBelow500(s LockingStore, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		unlock, err := s.Lock(key)
		if err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer unlock()
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		switch {
		case rec.code < 500:
			_ = s.Set(key, &Kept{StatusCode: rec.code, Body: rec.buf.Bytes()}, time.Hour)
		}
	})
}

func lookup(string) *Kept { return nil }

type call func(ctx context.Context, req any) (any, error)

var errRefused = errors.New("refused")

func keepsAnyError(s KeptStore, key string, next call) call {
	return func(ctx context.Context, req any) (any, error) {
		ok, err := s.SetNX(ctx, key, time.Minute)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("in progress")
		}
		resp, err := next(ctx, req)
		kept := &Kept{}
		if err != nil {
			kept.Err = err.Error()
		} else {
			kept.Body, _ = json.Marshal(resp)
		}
		_ = s.Set(ctx, key, kept, time.Hour) // want `Set stores the error of the call at outcome.go:\d+ as the result of the key claimed by SetNX at outcome.go:\d+, whatever the error was`
		return resp, err
	}
}

func keepsRefusals(s KeptStore, key string, next call) call {
	return func(ctx context.Context, req any) (any, error) {
		ok, err := s.SetNX(ctx, key, time.Minute)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("in progress")
		}
		resp, err := next(ctx, req)
		if err != nil && !errors.Is(err, errRefused) {
			_ = s.Delete(context.WithoutCancel(ctx), key)
			return nil, err
		}
		kept := &Kept{}
		if err != nil {
			kept.Err = err.Error()
		} else {
			kept.Body, _ = json.Marshal(resp)
		}
		_ = s.Set(ctx, key, kept, time.Hour)
		return resp, err
	}
}

// marksFailed records a failure in the branch that handles it; the store
// tells a failure from a result.
func marksFailed(s KeptStore, key string, next call) call {
	return func(ctx context.Context, req any) (any, error) {
		ok, err := s.SetNX(ctx, key, time.Minute)
		if err != nil || !ok {
			return nil, errors.New("in progress")
		}
		resp, err := next(ctx, req)
		if err != nil {
			_ = s.Set(ctx, key, &Kept{Err: err.Error()}, time.Minute)
			return nil, err
		}
		body, _ := json.Marshal(resp)
		_ = s.Set(ctx, key, &Kept{StatusCode: http.StatusOK, Body: body}, time.Hour)
		return resp, nil
	}
}

// keeps502 answers through its error alone, but what it keeps under the
// key is what a retry reads back.
func keeps502(ctx context.Context, s KeptStore, key string, charge func() error) error {
	ok, err := s.SetNX(ctx, key, time.Minute)
	if err != nil || !ok {
		return err
	}
	if err := charge(); err != nil {
		_ = s.Set(ctx, key, &Kept{StatusCode: http.StatusBadGateway, Err: err.Error()}, time.Hour) // want `Set stores a 502 response as the result of the key claimed by SetNX`
		return err
	}
	return s.Set(ctx, key, &Kept{StatusCode: http.StatusOK}, time.Hour)
}

func keeps422(ctx context.Context, s KeptStore, key string, validate, charge func() error) error {
	ok, err := s.SetNX(ctx, key, time.Minute)
	if err != nil || !ok {
		return err
	}
	if err := validate(); err != nil {
		_ = s.Set(ctx, key, &Kept{StatusCode: http.StatusUnprocessableEntity, Err: err.Error()}, time.Hour)
		return err
	}
	if err := charge(); err != nil {
		_ = s.Delete(context.WithoutCancel(ctx), key)
		return err
	}
	return s.Set(ctx, key, &Kept{StatusCode: http.StatusOK}, time.Hour)
}
