package cacheresponse

import (
	"net/http"
	"time"

	gocache "github.com/patrickmn/go-cache"
)

type cachedDesk struct {
	replies *gocache.Cache
}

// moveCached claims the key with go-cache's Add and completes it with an
// entry that has a body field and sets none.
func (d *cachedDesk) moveCached(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if err := d.replies.Add(key, &reply{running: true}, time.Hour); err != nil {
		http.Error(w, "duplicate", http.StatusConflict)
		return
	}
	status, resp, err := forwardMove(r.Context())
	if err != nil {
		d.replies.Delete(key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	d.replies.Set(key, &reply{at: time.Now()}, time.Hour) // want `Set of d.replies under key stores a status-only reply: it marks the key put there by the Add at memcache.go:\d+ completed without the response`
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// moveCachedKept completes the key with the status and the body.
func (d *cachedDesk) moveCachedKept(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if v, found := d.replies.Get(key); found {
		prev := v.(*reply)
		w.WriteHeader(prev.status)
		_, _ = w.Write(prev.body)
		return
	}
	if err := d.replies.Add(key, &reply{running: true}, time.Hour); err != nil {
		http.Error(w, "duplicate", http.StatusConflict)
		return
	}
	status, resp, err := forwardMove(r.Context())
	if err != nil {
		d.replies.Delete(key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	d.replies.Set(key, &reply{status: status, body: resp}, time.Hour)
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}
