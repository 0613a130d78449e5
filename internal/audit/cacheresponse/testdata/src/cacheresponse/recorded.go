package cacheresponse

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
)

type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(code int)        { c.status = code; c.ResponseWriter.WriteHeader(code) }
func (c *capture) Write(p []byte) (int, error) { c.body.Write(p); return c.ResponseWriter.Write(p) }

// Snapshot is a recorded response.
type Snapshot struct {
	Status int
	Body   []byte
}

func (c *capture) snapshot() Snapshot { return Snapshot{Status: c.status, Body: c.body.Bytes()} }

// Keys is a service's own store of idempotency keys.
type Keys interface {
	Claim(ctx context.Context, key string) (bool, error)
	Complete(ctx context.Context, key string, snap Snapshot) error
	Release(ctx context.Context, key string) error
}

// Middleware storing whatever next answered, a 503 included: every retry
// gets the transient failure back.
func keepAll(keys Keys, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ok, err := keys.Claim(r.Context(), key)
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		_ = keys.Complete(context.WithoutCancel(r.Context()), key, rec.snapshot()) // want `Complete stores rec.snapshot\(\) whatever its status, without a check for 5xx`
	})
}

// The same, giving the key back on a 5xx.
func keepGood(keys Keys, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		ok, err := keys.Claim(r.Context(), key)
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status >= 500 {
			_ = keys.Release(context.WithoutCancel(r.Context()), key)
			return
		}
		_ = keys.Complete(context.WithoutCancel(r.Context()), key, rec.snapshot())
	})
}

// An UPDATE completing the claimed row with the captured status, 5xx or not.
func (s *server) adjust(db *sql.DB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		res, err := db.ExecContext(r.Context(), `INSERT INTO http_idempotency (key, state) VALUES ($1, 'processing') ON CONFLICT DO NOTHING`, key)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if n, _ := res.RowsAffected(); n == 0 {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		db.ExecContext(context.WithoutCancel(r.Context()), `UPDATE http_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1`, key, rec.status, rec.body.Bytes()) // want `UPDATE stores the status rec.status without a check for 5xx before it`
	})
}

// The same UPDATE after the 5xx gave the key back.
func (s *server) adjustChecked(db *sql.DB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		res, err := db.ExecContext(r.Context(), `INSERT INTO http_idempotency (key, state) VALUES ($1, 'processing') ON CONFLICT DO NOTHING`, key)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if n, _ := res.RowsAffected(); n == 0 {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status >= http.StatusInternalServerError {
			db.ExecContext(context.WithoutCancel(r.Context()), `DELETE FROM http_idempotency WHERE key = $1`, key)
			return
		}
		db.ExecContext(context.WithoutCancel(r.Context()), `UPDATE http_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1`, key, rec.status, rec.body.Bytes())
	})
}

// A status in a variable, checked for 5xx before the UPDATE stores it.
func (s *server) forward(w http.ResponseWriter, r *http.Request, db *sql.DB, call func() (int, []byte, error)) {
	key := r.Header.Get("Idempotency-Key")
	res, err := db.ExecContext(r.Context(), `INSERT INTO http_idempotency (key, state) VALUES ($1, 'processing') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	status, resp, err := call()
	if err != nil || status >= 500 {
		db.ExecContext(context.WithoutCancel(r.Context()), `DELETE FROM http_idempotency WHERE key = $1`, key)
		http.Error(w, "unavailable", http.StatusBadGateway)
		return
	}
	db.ExecContext(r.Context(), `UPDATE http_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1`, key, status, resp)
	w.WriteHeader(status)
	w.Write(resp)
}
