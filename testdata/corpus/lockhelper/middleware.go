// Package lockhelper is an Idempotency-Key middleware whose store takes a
// per-key lock through a helper that answers whether this caller took it.
package lockhelper

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// cachedResponse is a stored answer.
type cachedResponse struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    []byte              `json:"body"`
}

// redisStore keeps answers and the locks that guard their first run.
type redisStore struct {
	rdb    *redis.Client
	prefix string
}

func (s *redisStore) get(ctx context.Context, key string) (*cachedResponse, bool) {
	b, err := s.rdb.Get(ctx, s.prefix+key).Bytes()
	if err != nil {
		return nil, false
	}
	var c cachedResponse
	if json.Unmarshal(b, &c) != nil {
		return nil, false
	}
	return &c, true
}

func (s *redisStore) set(ctx context.Context, key string, c *cachedResponse, ttl time.Duration) {
	b, _ := json.Marshal(c)
	s.rdb.Set(ctx, s.prefix+key, b, ttl)
}

// AcquireLock answers whether this caller took the key's lock.
func (s *redisStore) AcquireLock(ctx context.Context, key string, ttl time.Duration) bool {
	ok, err := s.rdb.SetNX(ctx, s.prefix+"lock:"+key, "1", ttl).Result()
	if err != nil {
		return false // fail closed
	}
	return ok
}

func (s *redisStore) ReleaseLock(ctx context.Context, key string) {
	s.rdb.Del(ctx, s.prefix+"lock:"+key)
}

// replay writes a stored answer.
func replay(w http.ResponseWriter, c *cachedResponse) {
	for k, vs := range c.Headers {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(c.Status)
	w.Write(c.Body)
}

// recorder keeps what the handler answered.
type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (r *recorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }
func (r *recorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return r.ResponseWriter.Write(b)
}

// Idempotency looks for a stored answer, then takes the key's lock and
// runs the handler, storing a 2xx answer. The 409 is answered where the
// lock was not taken, after a pause and a second look; the lock is
// released by the deferred call on every path after it was taken. But the
// first look is not repeated under the lock: a retry that looked before
// the first run stored its answer, and locks after its release, runs the
// handler again.
//
// corpus: ok releaseonerror
// corpus: bug checkthenact
// modelled on: alex-necsoiu/pandora-exchange internal/middleware/idempotency.go (IdempotencyMiddleware, RedisStore locking)
func Idempotency(store *redisStore, useLock bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		if c, found := store.get(ctx, key); found {
			replay(w, c)
			return
		}
		release := func() {}
		if useLock {
			if !store.AcquireLock(ctx, key, 30*time.Second) {
				time.Sleep(100 * time.Millisecond)
				if c, found := store.get(ctx, key); found {
					replay(w, c)
					return
				}
				http.Error(w, "a request with this key is in progress", http.StatusConflict)
				return
			}
			release = func() { store.ReleaseLock(context.WithoutCancel(ctx), key) }
		}
		defer release()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status >= 200 && rec.status < 300 {
			store.set(ctx, key, &cachedResponse{Status: rec.status, Headers: rec.Header(), Body: rec.body}, 24*time.Hour)
		}
	})
}

var errLocked = errors.New("locked")

// Charge takes the lock through the same helper and returns a failure of
// the charge with the lock still held: every retry is refused until the
// lock's TTL ends.
//
// corpus: bug releaseonerror
// modelled on: alex-necsoiu/pandora-exchange internal/middleware/redis_store.go (AcquireLock)
func Charge(ctx context.Context, store *redisStore, key string, charge func(context.Context) error) error {
	if !store.AcquireLock(ctx, key, time.Minute) {
		return errLocked
	}
	if err := charge(ctx); err != nil {
		return err
	}
	store.ReleaseLock(ctx, key)
	return nil
}
