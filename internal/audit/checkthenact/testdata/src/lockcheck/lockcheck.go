// Package lockcheck holds a check of a record and a lock: taken after
// the check with no second look under it (a race), or followed by a
// second check (double-checked locking, one step).
package lockcheck

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"

	"lockcheck/rw"
	"lockcheck/store"
)

// Replayer answers a repeated request from the store.
type Replayer struct {
	store store.Store
}

// LockedLate reads the cache, then locks, then runs the handler: a retry
// whose Get ran before the Set and whose Lock comes after the Unlock runs
// the handler again. The writer is built in another package.
func (o *Replayer) LockedLate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ctx := r.Context()
		saved, err := o.store.Get(ctx, key)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if saved != nil {
			w.WriteHeader(saved.Status)
			_, _ = w.Write(saved.Body)
			return
		}
		if err := o.store.Lock(ctx, key, time.Minute); err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := rw.New(w)
		h.ServeHTTP(rec, r)
		_ = o.store.Set(ctx, key, &store.Response{Status: rec.Status(), Body: rec.Body()}, time.Hour) // want `Set of o.store after the Get at lockcheck.go:\d+ races with a concurrent retry: the Lock at lockcheck.go:\d+ is taken after the check and the record is not checked again under it, so a retry that checked before this write and locks after its release runs h.ServeHTTP again`
		_ = o.store.Unlock(ctx, key)
	})
}

type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

// LockedLateLocal is LockedLate with a writer of its own: the same race,
// the same finding.
func (o *Replayer) LockedLateLocal(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ctx := r.Context()
		if saved, _ := o.store.Get(ctx, key); saved != nil {
			w.WriteHeader(saved.Status)
			return
		}
		if err := o.store.Lock(ctx, key, time.Minute); err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer o.store.Unlock(ctx, key)
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		_ = o.store.Set(ctx, key, &store.Response{Status: rec.status, Body: rec.body}, time.Hour) // want `Set of o.store after the Get at lockcheck.go:\d+ races with a concurrent retry: the Lock at lockcheck.go:\d+ is taken after the check`
	})
}

// CheckedUnderLock reads the cache, locks, and reads it again before the
// handler runs: double-checked locking, one step.
func (o *Replayer) CheckedUnderLock(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ctx := r.Context()
		if saved, _ := o.store.Get(ctx, key); saved != nil {
			w.WriteHeader(saved.Status)
			return
		}
		if err := o.store.Lock(ctx, key, time.Minute); err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer o.store.Unlock(ctx, key)
		if saved, _ := o.store.Get(ctx, key); saved != nil {
			w.WriteHeader(saved.Status)
			return
		}
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		_ = o.store.Set(ctx, key, &store.Response{Status: rec.status, Body: rec.body}, time.Hour)
	})
}

// Counted takes a mutex after the check only to count the miss, and gives
// it back before the handler: no lock is held at the Set, and what the
// check guards is judged as if there were none.
func (o *Replayer) Counted(h http.Handler, mu *sync.Mutex, misses *int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ctx := r.Context()
		if saved, _ := o.store.Get(ctx, key); saved != nil {
			w.WriteHeader(saved.Status)
			return
		}
		mu.Lock()
		*misses++
		mu.Unlock()
		rec := rw.New(w)
		h.ServeHTTP(rec, r)
		_ = o.store.Set(ctx, key, &store.Response{Status: rec.Status(), Body: rec.Body()}, time.Hour)
	})
}

// LockedFirst locks before it reads: the lock is held across both.
func (o *Replayer) LockedFirst(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ctx := r.Context()
		if err := o.store.Lock(ctx, key, time.Minute); err != nil {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer o.store.Unlock(ctx, key)
		if saved, _ := o.store.Get(ctx, key); saved != nil {
			w.WriteHeader(saved.Status)
			return
		}
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		_ = o.store.Set(ctx, key, &store.Response{Status: rec.status, Body: rec.body}, time.Hour)
	})
}

// Fill reads through the cache and locks the fill against a stampede; the
// loader is given the key, and what it loads is the same whoever loads
// it.
func (o *Replayer) Fill(ctx context.Context, key string, load func(context.Context, string) (*store.Response, error)) (*store.Response, error) {
	if saved, err := o.store.Get(ctx, key); err == nil && saved != nil {
		return saved, nil
	}
	if err := o.store.Lock(ctx, key, time.Minute); err != nil {
		return nil, err
	}
	defer o.store.Unlock(ctx, key)
	fresh, err := load(ctx, key)
	if err != nil {
		return nil, err
	}
	_ = o.store.Set(ctx, key, fresh, time.Hour)
	return fresh, nil
}

// Runs keeps the results of jobs in Redis, locked per key with redsync.
type Runs struct {
	rdb *redis.Client
	rs  *redsync.Redsync
}

// Do returns the kept result, or locks and runs fn: a retry that found
// nothing before the first run's Set takes the mutex after its Unlock and
// runs fn again.
func (j *Runs) Do(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	if raw, err := j.rdb.Get(ctx, "result:"+key).Bytes(); err == nil {
		var kept any
		return kept, json.Unmarshal(raw, &kept)
	} else if !errors.Is(err, redis.Nil) {
		return nil, err
	}
	mu := j.rs.NewMutex("lock:" + key)
	if err := mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer mu.UnlockContext(ctx)
	out, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(out)
	j.rdb.Set(ctx, "result:"+key, raw, 24*time.Hour) // want `SET of "result:" \+ key after the GET at lockcheck.go:\d+ races with a concurrent retry: the LockContext at lockcheck.go:\d+ is taken after the check and the record is not checked again under it, so a retry that checked before this write and locks after its release runs fn again`
	return out, nil
}

// DoChecked looks again once it holds the mutex.
func (j *Runs) DoChecked(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	if raw, err := j.rdb.Get(ctx, "result:"+key).Bytes(); err == nil {
		var kept any
		return kept, json.Unmarshal(raw, &kept)
	}
	mu := j.rs.NewMutex("lock:" + key)
	if err := mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer mu.UnlockContext(ctx)
	if raw, err := j.rdb.Get(ctx, "result:"+key).Bytes(); err == nil {
		var kept any
		return kept, json.Unmarshal(raw, &kept)
	}
	out, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(out)
	j.rdb.Set(ctx, "result:"+key, raw, 24*time.Hour)
	return out, nil
}

// Handle consumes an order event under a SET NX lock of its own key,
// taken after the check: a redelivery that checked before the Set and
// claims after the Del handles it again.
func (j *Runs) Handle(ctx context.Context, id string, handle func(context.Context, string) error) error {
	n, err := j.rdb.Exists(ctx, "order:"+id).Result()
	if err != nil || n > 0 {
		return err
	}
	ok, err := j.rdb.SetNX(ctx, "order-lock:"+id, 1, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	defer j.rdb.Del(ctx, "order-lock:"+id)
	if err := handle(ctx, "order:"+id); err != nil {
		return err
	}
	return j.rdb.Set(ctx, "order:"+id, time.Now().Unix(), 0).Err() // want `SET of "order:" \+ id after the EXISTS at lockcheck.go:\d+ races with a concurrent retry: the SetNX at lockcheck.go:\d+ is taken after the check and the record is not checked again under it, so a retry that checked before this write and locks after its release runs handle again`
}

// HandleChecked checks again under the SET NX lock.
func (j *Runs) HandleChecked(ctx context.Context, id string, handle func(context.Context, string) error) error {
	if n, err := j.rdb.Exists(ctx, "order:"+id).Result(); err != nil || n > 0 {
		return err
	}
	ok, err := j.rdb.SetNX(ctx, "order-lock:"+id, 1, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	defer j.rdb.Del(ctx, "order-lock:"+id)
	if n, err := j.rdb.Exists(ctx, "order:"+id).Result(); err != nil || n > 0 {
		return err
	}
	if err := handle(ctx, "order:"+id); err != nil {
		return err
	}
	return j.rdb.Set(ctx, "order:"+id, time.Now().Unix(), 0).Err()
}
