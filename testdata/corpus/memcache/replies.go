package memcache

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"time"

	gocache "github.com/patrickmn/go-cache"
)

// entry is what the idempotency middleware keeps under a key.
type entry struct {
	Pending bool
	Status  int
	Body    []byte
	At      time.Time
}

// Replies is an Idempotency-Key middleware over a go-cache.
type Replies struct {
	entries *gocache.Cache
}

// Wrap claims the key with Add, runs the handler, and marks the key done
// with the time only: a retry finds it done and has no response to give.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (a middleware that records a key's outcome) over go-cache's Add and Set
func (p *Replies) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if err := p.entries.Add(key, &entry{Pending: true}, gocache.DefaultExpiration); err != nil {
			http.Error(w, "request already seen", http.StatusConflict)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			p.entries.Delete(key)
		} else {
			p.entries.Set(key, &entry{At: time.Now()}, gocache.DefaultExpiration)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// WrapKept keeps the status and the body, and answers a retry with them.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/middleware.go (a middleware that replays a key's recorded response) over go-cache
func (p *Replies) WrapKept(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if v, found := p.entries.Get(key); found {
			if e := v.(*entry); !e.Pending {
				w.WriteHeader(e.Status)
				_, _ = w.Write(e.Body)
				return
			}
		}
		if err := p.entries.Add(key, &entry{Pending: true}, gocache.DefaultExpiration); err != nil {
			http.Error(w, "request in progress", http.StatusConflict)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			p.entries.Delete(key)
		} else {
			p.entries.Set(key, &entry{Status: rec.Code, Body: bytes.Clone(rec.Body.Bytes()), At: time.Now()}, gocache.DefaultExpiration)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}
