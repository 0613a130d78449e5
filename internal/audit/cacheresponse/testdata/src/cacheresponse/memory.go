package cacheresponse

import (
	"context"
	"net/http"
	"sync"
	"time"
)

type reply struct {
	running bool
	status  int
	body    []byte
	at      time.Time
}

type desk struct {
	mu      sync.Mutex
	replies map[string]*reply
	done    sync.Map
}

func forwardMove(ctx context.Context) (int, []byte, error) { return 200, nil, nil }

// move claims the key under the lock and completes it with an entry that
// has a body field and sets none.
func (d *desk) move(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	d.mu.Lock()
	if _, ok := d.replies[key]; ok {
		d.mu.Unlock()
		http.Error(w, "duplicate", http.StatusConflict)
		return
	}
	d.replies[key] = &reply{running: true}
	d.mu.Unlock()
	status, resp, err := forwardMove(r.Context())
	if err != nil {
		d.mu.Lock()
		delete(d.replies, key)
		d.mu.Unlock()
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	d.mu.Lock()
	d.replies[key] = &reply{at: time.Now()} // want `map store of d.replies under key stores a status-only reply: it marks the key put there by the map store at memory.go:\d+ completed without the response`
	d.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// moveKept completes the key with the status and the body.
func (d *desk) moveKept(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	d.mu.Lock()
	if prev, ok := d.replies[key]; ok {
		d.mu.Unlock()
		w.WriteHeader(prev.status)
		_, _ = w.Write(prev.body)
		return
	}
	d.replies[key] = &reply{running: true}
	d.mu.Unlock()
	status, resp, err := forwardMove(r.Context())
	if err != nil {
		d.mu.Lock()
		delete(d.replies, key)
		d.mu.Unlock()
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	done := &reply{status: status, body: resp}
	d.mu.Lock()
	d.replies[key] = done
	d.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// park claims with LoadOrStore and completes with a Store of an entry
// that keeps the status alone.
func (d *desk) park(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if _, loaded := d.done.LoadOrStore(key, &reply{running: true}); loaded {
		http.Error(w, "duplicate", http.StatusConflict)
		return
	}
	status, resp, err := forwardMove(r.Context())
	if err != nil {
		d.done.Delete(key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	d.done.Store(key, &reply{status: status}) // want `Store of d.done under key stores a status-only reply: it marks the key put there by the LoadOrStore at memory.go:\d+`
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// renew stores a second in-progress entry: a lease renewed, not a
// completion.
func (d *desk) renew(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	d.done.Store(key, &reply{running: true})
	status, resp, _ := forwardMove(r.Context())
	d.done.Store(key, &reply{running: true, at: time.Now()})
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// local builds a map of its own: no record another request sees.
func (d *desk) local(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	seen := map[string]*reply{}
	seen[key] = &reply{running: true}
	status, resp, _ := forwardMove(r.Context())
	seen[key] = &reply{status: status}
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// forget is a consumer of the same map that answers nothing a replay
// must reproduce.
func (d *desk) forget(ctx context.Context, key string) error {
	d.done.Store(key, &reply{running: true})
	if _, _, err := forwardMove(ctx); err != nil {
		return err
	}
	d.done.Store(key, &reply{at: time.Now()})
	return nil
}
