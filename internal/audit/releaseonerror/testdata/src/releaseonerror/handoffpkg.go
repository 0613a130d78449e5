package releaseonerror

import (
	"context"
	"handoffworker"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// acceptInBackground claims the key and hands it to another package's
// goroutine, which leaves it held when the charge fails.
func acceptInBackground(rdb *redis.Client, runner *handoffworker.Runner) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		ok, err := rdb.SetNX(r.Context(), key, "processing", time.Hour).Result()
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		go runner.Process(context.WithoutCancel(r.Context()), key, r.URL.Query().Get("p")) // want `the goroutine started here returns on a failure at worker.go:\d+ and so leaves the key claimed by SetNX at handoffpkg.go:\d+ held`
		w.WriteHeader(http.StatusAccepted)
	}
}

// acceptReleasing hands the key to a goroutine that gives it back on a
// failure.
func acceptReleasing(rdb *redis.Client, runner *handoffworker.Runner) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		ok, err := rdb.SetNX(r.Context(), key, "processing", time.Hour).Result()
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		go runner.ProcessReleasing(context.WithoutCancel(r.Context()), key, r.URL.Query().Get("p"))
		w.WriteHeader(http.StatusAccepted)
	}
}
