package cacheresponse

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type server struct{ rdb *redis.Client }

type receipt struct{ ID string }

func (s *server) charge(r *http.Request) (*receipt, error) { return &receipt{}, nil }

func (s *server) pay(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Result()
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	s.rdb.Set(r.Context(), key, "done", 24*time.Hour) // want `SET of key to "done" marks the key claimed by SetNX at redis.go:20 completed without the response: a retry gets "done" back instead of what this call answered; store the status and the marshalled body \(cacheresponse\)`
	json.NewEncoder(w).Encode(rc)
}

func createOrder(ctx context.Context, rdb redis.Cmdable, idempotencyKey string) (*receipt, error) {
	rc := &receipt{ID: "o_1"}
	if err := rdb.Set(ctx, idempotencyKey, 1, 24*time.Hour).Err(); err != nil { // want `SET of idempotencyKey to 1 marks the idempotency key idempotencyKey completed without the response`
		return nil, err
	}
	return rc, nil
}

func (s *server) payForgetting(ctx context.Context, key string) (*receipt, error) {
	ok, err := s.rdb.SetNX(ctx, "idem:"+key, "in_progress", 24*time.Hour).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errInProgress
	}
	rc := &receipt{ID: "r_1"}
	return rc, nil // want `this return answers without recording the response under the key claimed by SetNX at redis.go:44: a retry finds the key in progress, or runs the work again once it is freed, instead of getting this answer back; complete the key with the status and body before answering \(cacheresponse\)`
}

// A lock on an idempotency key, freed when the function returns: a retry
// after it runs the work again.
func (s *server) payLocked(ctx context.Context, key string) (*receipt, error) {
	if !s.rdb.SetNX(ctx, "idem:"+key, 1, time.Minute).Val() {
		return nil, errInProgress
	}
	defer s.rdb.Del(ctx, "idem:"+key)
	return &receipt{ID: "r_2"}, nil // want `this return answers without recording the response under the key claimed by SetNX at redis.go:58`
}

// Negatives.

func checkoutKey(id string) string { return "checkout:" + id }

// One checkout of a cart at a time: a mutex given back on every path,
// under a key that records nothing. A retry after it is a new checkout.
func (s *server) checkoutGuarded(ctx context.Context, cart string) (*receipt, error) {
	if !s.rdb.SetNX(ctx, checkoutKey(cart), 1, time.Minute).Val() {
		return nil, errInProgress
	}
	defer s.rdb.Del(context.WithoutCancel(ctx), checkoutKey(cart))
	return &receipt{ID: "r_3"}, nil
}

func (s *server) payStoring(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Result()
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	body, err := json.Marshal(rc)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "encode", http.StatusInternalServerError)
		return
	}
	s.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Write(body)
}

// A webhook receiver answers 200 with no body: a flag is all a retry needs.
func (s *server) webhook(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Stripe-Event-Id")
	if !s.rdb.SetNX(r.Context(), "idem:"+id, "processing", 72*time.Hour).Val() {
		w.WriteHeader(http.StatusOK)
		return
	}
	s.rdb.Set(r.Context(), "idem:"+id, "done", 72*time.Hour)
	w.WriteHeader(http.StatusOK)
}

// A queue consumer only succeeds or fails.
func consume(ctx context.Context, rdb *redis.Client, msgID string) error {
	if !rdb.SetNX(ctx, "dedup:"+msgID, "processing", 24*time.Hour).Val() {
		return nil
	}
	return rdb.Set(ctx, "dedup:"+msgID, "done", 24*time.Hour).Err()
}

// A lock named as one excludes concurrent runs; it is no record to replay.
func (s *server) rebuild(ctx context.Context, id string) (*receipt, error) {
	if !s.rdb.SetNX(ctx, "lock:rebuild:"+id, 1, time.Minute).Val() {
		return nil, errInProgress
	}
	defer s.rdb.Del(ctx, "lock:rebuild:"+id)
	return &receipt{ID: id}, nil
}

// The response is not worth keeping: the key is given back.
func (s *server) quote(ctx context.Context, key string) (*receipt, error) {
	if !s.rdb.SetNX(ctx, "idem:"+key, "in_progress", time.Minute).Val() {
		return nil, errInProgress
	}
	s.rdb.Del(ctx, "idem:"+key)
	return &receipt{ID: "q"}, nil
}

// Re-marking a key in progress is no completion.
func (s *server) extend(ctx context.Context, key string) (*receipt, error) {
	s.rdb.Set(ctx, "idem:"+key, "in_progress", time.Minute)
	return &receipt{}, nil
}

func (s *server) payNeverRecorded(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Val() {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	json.NewEncoder(w).Encode(rc)
} // want `the end of the function answers without recording the response under the key claimed by SetNX at redis.go:\d+`
