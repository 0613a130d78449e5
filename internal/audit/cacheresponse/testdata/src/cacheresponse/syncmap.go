package cacheresponse

import (
	"context"
	"net/http"
	"sync"
)

type entry struct {
	done      chan struct{}
	completed bool
	status    int
	body      []byte
}

var entries sync.Map

func forwardWalkIn(ctx context.Context) (int, []byte, error) { return 201, nil, nil }

// walkInFlag marks its entry completed and keeps nothing of the answer:
// a duplicate that waited on it can only say "done".
func walkInFlag(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	e := &entry{done: make(chan struct{})}
	if _, loaded := entries.LoadOrStore(key, e); loaded {
		w.WriteHeader(http.StatusOK)
		return
	}
	defer close(e.done)
	status, resp, err := forwardWalkIn(r.Context())
	if err != nil {
		entries.Delete(key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	e.completed = true
	w.WriteHeader(status)
	_, _ = w.Write(resp)
} // want `the end of the function answers without recording the response under the key claimed by LoadOrStore at syncmap.go:25`

// walkInStored fills the entry with the answer: duplicates replay it.
func walkInStored(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	e := &entry{done: make(chan struct{})}
	if v, loaded := entries.LoadOrStore(key, e); loaded {
		prev := v.(*entry)
		<-prev.done
		w.WriteHeader(prev.status)
		_, _ = w.Write(prev.body)
		return
	}
	defer close(e.done)
	status, resp, err := forwardWalkIn(r.Context())
	if err != nil {
		entries.Delete(key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	e.status, e.body, e.completed = status, resp, true
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

var topicLocks sync.Map

// subscribe uses LoadOrStore to get or create a topic's mutex: it takes
// no key, so it owes no response.
func subscribe(w http.ResponseWriter, r *http.Request) {
	mu, _ := topicLocks.LoadOrStore(r.PathValue("topic"), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	_, _ = w.Write([]byte("subscribed"))
}
