// Package gateway is the public HTTP edge of the table-reservations
// product: it authenticates partners, applies Idempotency-Key handling to
// unsafe methods, and forwards to the reservations backend.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyTTL is how long a key and its answer are kept.
const keyTTL = 24 * time.Hour

// recorder captures what the wrapped handler writes.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// savedResponse is an answer kept for replay.
type savedResponse struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"`
}

// Edge wraps backend handlers.
type Edge struct {
	rdb *redis.Client
	log *slog.Logger
}

// NewEdge returns an Edge.
func NewEdge(rdb *redis.Client, log *slog.Logger) *Edge { return &Edge{rdb: rdb, log: log} }

// Idempotent wraps next so that a POST repeated with the same
// Idempotency-Key header does not run twice.
//
// corpus: bug cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (key lock, handler run, key kept for Lifetime)
func (e *Edge) Idempotent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if r.Method != http.MethodPost || key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		rk := "idem:" + r.URL.Path + ":" + key
		err := e.rdb.SetArgs(ctx, rk, "in_progress", redis.SetArgs{Mode: "NX", TTL: time.Minute}).Err()
		if errors.Is(err, redis.Nil) {
			state, _ := e.rdb.Get(ctx, rk).Result()
			if state == "completed" {
				w.WriteHeader(http.StatusOK)
				return
			}
			http.Error(w, "request with this key in progress", http.StatusConflict)
			return
		}
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}

		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status >= 200 && rec.status < 300 {
			e.rdb.Set(context.WithoutCancel(ctx), rk, "completed", keyTTL)
			return
		}
		e.rdb.Del(context.WithoutCancel(ctx), rk)
	})
}

// IdempotentReplay wraps next so that a POST repeated with the same
// Idempotency-Key header gets the first answer again.
//
// corpus: ok cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (response status, headers and body kept and replayed)
func (e *Edge) IdempotentReplay(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if r.Method != http.MethodPost || key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		lockKey := "idem-lock:" + key
		respKey := "idem-resp:" + key

		ok, err := e.rdb.SetNX(ctx, lockKey, 1, time.Minute).Result()
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			http.Error(w, "request with this key in progress", http.StatusConflict)
			return
		}
		defer e.rdb.Del(context.WithoutCancel(ctx), lockKey)

		if raw, err := e.rdb.Get(ctx, respKey).Bytes(); err == nil {
			var saved savedResponse
			if json.Unmarshal(raw, &saved) == nil {
				for k, v := range saved.Header {
					w.Header()[k] = v
				}
				w.Header().Set("Idempotent-Replayed", "true")
				w.WriteHeader(saved.Status)
				_, _ = w.Write(saved.Body)
				return
			}
		}

		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status >= 500 {
			return
		}
		raw, _ := json.Marshal(savedResponse{Status: rec.status, Header: rec.Header().Clone(), Body: rec.body.Bytes()})
		e.rdb.Set(context.WithoutCancel(ctx), respKey, raw, keyTTL)
	})
}

// Backend forwards a request to the reservations backend and returns its
// answer.
type Backend interface {
	Forward(ctx context.Context, method, path string, body []byte) (status int, resp []byte, err error)
}

// ForwardOnce forwards a partner's booking to the backend, refusing a
// second booking with the same Idempotency-Key while the first runs; the
// answer is kept for replays.
//
// corpus: bug releaseonerror
// modelled on: pay-theory/lift pkg/middleware/idempotency.go (SetProcessing marks the key, Set stores the record, Delete removes it)
func (e *Edge) ForwardOnce(b Backend) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
			return
		}
		rk := "fwd:" + key
		if raw, err := e.rdb.Get(ctx, rk).Bytes(); err == nil && len(raw) > 0 && raw[0] == '{' {
			var saved savedResponse
			_ = json.Unmarshal(raw, &saved)
			w.WriteHeader(saved.Status)
			_, _ = w.Write(saved.Body)
			return
		}
		if err := e.rdb.SetArgs(ctx, rk, "processing", redis.SetArgs{Mode: "NX", TTL: keyTTL}).Err(); err != nil {
			http.Error(w, "request with this key in progress", http.StatusConflict)
			return
		}
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		status, resp, err := b.Forward(ctx, r.Method, r.URL.Path, buf.Bytes())
		if err != nil {
			http.Error(w, "backend unavailable", http.StatusBadGateway)
			return
		}
		raw, _ := json.Marshal(savedResponse{Status: status, Body: resp})
		e.rdb.Set(context.WithoutCancel(ctx), rk, raw, keyTTL)
		w.WriteHeader(status)
		_, _ = w.Write(resp)
	}
}
