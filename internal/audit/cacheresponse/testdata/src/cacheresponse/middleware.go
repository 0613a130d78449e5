package cacheresponse

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

// idempotentFlag runs next once per key and remembers only that it ran:
// a retry gets an empty 200, not next's answer.
func idempotentFlag(rdb *redis.Client, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		rk := "idem:" + r.Header.Get("Idempotency-Key")
		err := rdb.SetArgs(ctx, rk, "in_progress", redis.SetArgs{Mode: "NX", TTL: time.Minute}).Err()
		if errors.Is(err, redis.Nil) {
			w.WriteHeader(http.StatusOK)
			return
		}
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status < 300 {
			rdb.Set(context.WithoutCancel(ctx), rk, "completed", 24*time.Hour) // want `SET of rk to "completed" marks the key claimed by SetArgs at middleware.go:25 completed without the response`
			return
		}
		rdb.Del(context.WithoutCancel(ctx), rk)
	})
}
