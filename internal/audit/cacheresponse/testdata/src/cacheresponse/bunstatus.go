package cacheresponse

import (
	"context"
	"net/http"
)

// The bun row is set to completed, the answer goes to the client only.
func (s *bunServer) splitStatus(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	s.db.NewUpdate().Model((*apiRequest)(nil)).Set("status = ?", "completed").Where("key = ?", key).Exec(r.Context()) // want `UPDATE of apiRequest sets only status: it marks the key claimed by claimRequest at bunstatus.go:11 completed without the response`
	w.Write([]byte(`{"split":"s_3"}`))
}

// The same, from a deferred function on the way out.
func (s *bunServer) splitDeferred(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	defer func() {
		s.db.NewUpdate().Model((*apiRequest)(nil)).Set("status = 'completed'").Where("key = ?", key).Exec(context.WithoutCancel(r.Context())) // want `UPDATE of apiRequest sets only status`
	}()
	w.Write([]byte(`{"split":"s_4"}`))
}

// An sqlx-style UPDATE of the claimed table, reached through a claim
// helper, sets the status alone.
func (s *bunServer) splitSQL(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	s.db.ExecContext(r.Context(), `UPDATE api_requests SET status = 'completed' WHERE key = $1`, key) // want `UPDATE of api_requests sets only status: it marks the key claimed by claimRequest`
	w.Write([]byte(`{"split":"s_5"}`))
}

// A goroutine finishing the work on the handler's behalf marks the key
// with its status alone.
func (s *bunServer) splitAsync(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	go func() {
		ctx := context.WithoutCancel(r.Context())
		s.db.NewUpdate().Model((*apiRequest)(nil)).Set("status = 'completed'").Where("key = ?", key).Exec(ctx) // want `UPDATE of apiRequest sets only status`
	}()
	w.Write([]byte(`{"split":"s_6"}`))
}

// Negative: a literal handed to a helper is called there, a Func of its
// own, and this one stores the response.
func (s *bunServer) splitRetried(w http.ResponseWriter, r *http.Request, retry func(func() error) error) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	body := []byte(`{"split":"s_7"}`)
	retry(func() error {
		_, err := s.db.NewUpdate().Model((*apiRequest)(nil)).Set("status = 'completed', response = ?", body).Where("key = ?", key).Exec(r.Context())
		return err
	})
	w.Write(body)
}

// A handler built inside another answers for itself: its deferred update
// is reported once, in it.
func (s *bunServer) mount(w http.ResponseWriter, r *http.Request) {
	inner := func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		res, err := s.db.ExecContext(r.Context(), `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
		if err != nil {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		if n, _ := res.RowsAffected(); n == 0 {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		defer func() {
			s.db.ExecContext(context.WithoutCancel(r.Context()), `UPDATE idempotency_keys SET status = 'completed' WHERE key = $1`, key) // want `UPDATE of idempotency_keys sets only status`
		}()
		w.Write([]byte(`{"split":"s_8"}`))
	}
	inner(w, r)
	w.Write([]byte(`{"mounted":true}`))
}
