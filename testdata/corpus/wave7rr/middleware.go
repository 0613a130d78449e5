package payments

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// Idempotency is an HTTP middleware keyed by the Idempotency-Key header.
type Idempotency struct{ rdb *redis.Client }

type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Wrap answers a repeat from a GET, writing the stored body out on that
// branch, and lets one request through with SET NX before the handler
// runs: the claim decides, not the read. What it stores is the body
// alone, so a replay answers 200 where the first request answered 201.
//
// corpus: ok checkthenact
// corpus: bug cacheresponse
// modelled on: MuhibNayem/Travio server/services/order/internal/middleware/idempotency.go (GET fast path, SetNX "PROCESSING", body stored on 2xx)
func (m *Idempotency) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		redisKey := fmt.Sprintf("idempotency:%s", key)
		val, err := m.rdb.Get(ctx, redisKey).Result()
		if err == nil {
			if val == "PROCESSING" {
				http.Error(w, "request in progress", http.StatusConflict)
				return
			}
			w.Header().Set("X-Idempotency-Hit", "true")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(val))
			return
		} else if err != redis.Nil {
			http.Error(w, "idempotency check failed", http.StatusInternalServerError)
			return
		}
		ok, err := m.rdb.SetNX(ctx, redisKey, "PROCESSING", time.Minute).Result()
		if err != nil {
			http.Error(w, "idempotency claim failed", http.StatusInternalServerError)
			return
		}
		if !ok {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status >= 200 && rec.status < 300 {
			m.rdb.Set(ctx, redisKey, rec.body.String(), 24*time.Hour)
		} else {
			m.rdb.Del(ctx, redisKey)
		}
	})
}
