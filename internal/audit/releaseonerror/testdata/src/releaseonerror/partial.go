package releaseonerror

import (
	"context"
	"net/http"

	"keyhelpers"
)

// A 5xx answer gives back the lock and leaves the pending record Lock
// wrote beside it: every retry is refused until the record's TTL.
func partialUnlock(w http.ResponseWriter, r *http.Request, k *keyhelpers.Keeper, next http.Handler) {
	key := r.Header.Get("Idempotency-Key")
	if err := k.Lock(r.Context(), key); err != nil {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rec := &recorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	if rec.status >= 500 {
		_ = k.Unlock(r.Context(), key) // want `this Unlock gives back only part of what Lock at partial.go:\d+ wrote under the key: the record its Set wrote \(Records\) stays`
		return
	}
	_ = k.Store(r.Context(), key, rec.body)
}

// Abandon deletes the pending record as well as the lock.
func partialAbandon(w http.ResponseWriter, r *http.Request, k *keyhelpers.Keeper, next http.Handler) {
	key := r.Header.Get("Idempotency-Key")
	if err := k.Lock(r.Context(), key); err != nil {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rec := &recorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	if rec.status >= 500 {
		_ = k.Abandon(r.Context(), key)
		return
	}
	_ = k.Store(r.Context(), key, rec.body)
}

// The Redis helper's lock is deleted on the failure, its pending record
// is not.
func partialRedis(ctx context.Context, d *keyhelpers.Pending, id string) error {
	ok, err := d.Begin(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		d.Unlock(ctx, id) // want `this Unlock gives back only part of what Begin at partial.go:\d+ wrote under the key: the record its SET wrote \(redis req:\{\}\) stays`
		return err
	}
	return nil
}

// Drop deletes both.
func partialRedisDrop(ctx context.Context, d *keyhelpers.Pending, id string) error {
	ok, err := d.Begin(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		d.Drop(ctx, id)
		return err
	}
	return nil
}

type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}
