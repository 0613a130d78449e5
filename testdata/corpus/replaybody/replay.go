// Package replaybody is an Idempotency-Key middleware over Redis that
// records what the wrapped handler answered.
package replaybody

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/redis/go-redis/v9"
)

// Middleware replays a key's recorded answer.
type Middleware struct {
	rdb *redis.Client
	ttl time.Duration
}

// Body claims the key, runs the handler into a recorder, and records the
// body it wrote; a retry is answered 200 with that body, so a 201 Created
// comes back as 200 and a 422 as a success.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (a recorder's status and body stored under the key), with the status left out
func (m *Middleware) Body(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		key := "idem:body:" + r.Header.Get("Idempotency-Key")
		won, err := m.rdb.SetNX(ctx, key, "", m.ttl).Result()
		if err != nil {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		if !won {
			saved, err := m.rdb.Get(ctx, key).Bytes()
			if err != nil || len(saved) == 0 {
				http.Error(w, "a request with this key is in progress", http.StatusConflict)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(saved)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= http.StatusInternalServerError {
			m.rdb.Del(ctx, key)
		} else {
			m.rdb.Set(ctx, key, rec.Body.Bytes(), m.ttl)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// saved is a recorded answer.
type saved struct {
	Status int    `json:"status"`
	Body   []byte `json:"body"`
}

// Answer records the status with the body, and replays both.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (a recorder's status and body stored under the key)
func (m *Middleware) Answer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		key := "idem:answer:" + r.Header.Get("Idempotency-Key")
		won, err := m.rdb.SetNX(ctx, key, "", m.ttl).Result()
		if err != nil {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		if !won {
			var s saved
			raw, err := m.rdb.Get(ctx, key).Bytes()
			if err != nil || len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
				http.Error(w, "a request with this key is in progress", http.StatusConflict)
				return
			}
			w.WriteHeader(s.Status)
			_, _ = w.Write(s.Body)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= http.StatusInternalServerError {
			m.rdb.Del(ctx, key)
		} else {
			raw, _ := json.Marshal(saved{Status: rec.Code, Body: rec.Body.Bytes()})
			m.rdb.Set(ctx, key, raw, m.ttl)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}
