package checkthenact

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type idemMW struct{ rdb *redis.Client }

type capture struct {
	http.ResponseWriter
	body bytes.Buffer
}

// handler answers a repeat from the GET, writing the stored body out on
// that branch, and lets one caller through with SET NX: the calls on the
// branch that returns run before no claim.
func (m *idemMW) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := fmt.Sprintf("idempotency:%s", r.Header.Get("Idempotency-Key"))
		val, err := m.rdb.Get(r.Context(), key).Result()
		if err == nil {
			w.Header().Set("X-Idempotency-Hit", "true")
			w.Write([]byte(val))
			return
		} else if err != redis.Nil {
			http.Error(w, "idempotency check failed", http.StatusInternalServerError)
			return
		}
		ok, err := m.rdb.SetNX(r.Context(), key, "PROCESSING", time.Minute).Result()
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		m.rdb.Set(r.Context(), key, rec.body.String(), 24*time.Hour)
	})
}

// handlerLate runs the work before it claims: the claim decides nothing.
func (m *idemMW) handlerLate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := fmt.Sprintf("idempotency:%s", r.Header.Get("Idempotency-Key"))
		val, err := m.rdb.Get(r.Context(), key).Result()
		if err == nil {
			w.Write([]byte(val))
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if ok, _ := m.rdb.SetNX(r.Context(), key, "PROCESSING", time.Minute).Result(); !ok {
			return
		}
		m.rdb.Set(r.Context(), key, rec.body.String(), 24*time.Hour) // want `SET of key after the GET`
	})
}
