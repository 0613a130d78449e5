package cacheresponse

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// A done marker with no claim: looked up to answer a repeat, set once the
// work is done. Whatever the key is called, a repeat gets "done" and an
// empty 200 instead of the refund.
func (s *server) refundMarked(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	marker := "refund-req:" + r.Header.Get("X-Request-ID")
	if v, err := s.rdb.Get(ctx, marker).Result(); err == nil && v == "done" {
		w.WriteHeader(http.StatusOK)
		return
	} else if err != nil && !errors.Is(err, redis.Nil) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	s.rdb.Set(ctx, marker, "done", 72*time.Hour) // want `SET of marker to "done" marks the idempotency key marker completed without the response`
	json.NewEncoder(w).Encode(rc)
}

// The same lookup, storing the body it answered with: a repeat gets it back.
func (s *server) refundMarkedStored(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	marker := "refund-resp:" + r.Header.Get("X-Request-ID")
	if prev, err := s.rdb.Get(ctx, marker).Bytes(); err == nil {
		w.Write(prev)
		return
	} else if !errors.Is(err, redis.Nil) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(rc)
	s.rdb.Set(ctx, marker, body, 72*time.Hour)
	w.Write(body)
}

// A constant written after a read of another key is no done marker of the
// request: the read was the region's warm-up flag.
func (s *server) warm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	region := r.URL.Query().Get("region")
	if s.rdb.Exists(ctx, "warm:"+region).Val() == 1 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.rdb.Set(ctx, "warmed-at:"+region, "1", time.Hour)
	w.WriteHeader(http.StatusNoContent)
}

// A get-or-create: the claim writes the value itself, and a repeat reads
// it back.
func getOrCreate(ctx context.Context, rdb *redis.Client, key string, value []byte) ([]byte, error) {
	created, err := rdb.SetNX(ctx, key, value, 0).Result()
	if err != nil {
		return nil, err
	}
	if created {
		return value, nil
	}
	return rdb.Get(ctx, key).Bytes()
}

// The same claim of a marker, answering with something else: the key
// holds "pending" for good.
func createOnce(ctx context.Context, rdb *redis.Client, key string, value []byte) ([]byte, error) {
	created, err := rdb.SetNX(ctx, key, "pending", 0).Result()
	if err != nil {
		return nil, err
	}
	if created {
		return value, nil // want `this return answers without recording the response under the key claimed by SetNX`
	}
	return rdb.Get(ctx, key).Bytes()
}

// A get-or-create in a handler: the new account's ID is the value SET NX
// writes and the answer; a repeat reads it back and answers with it.
func (s *server) signup(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := "signup:" + r.FormValue("email")
	accountID := r.FormValue("proposed_id")
	created, err := s.rdb.SetNX(ctx, key, accountID, 0).Result()
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !created {
		existing, _ := s.rdb.Get(ctx, key).Result()
		json.NewEncoder(w).Encode(map[string]string{"account_id": existing})
		return
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]string{"account_id": accountID})
}

// The same claim answering with something the claim did not write.
func (s *server) signupReceipt(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := "signup:" + r.FormValue("email")
	accountID := r.FormValue("proposed_id")
	created, err := s.rdb.SetNX(ctx, key, accountID, 0).Result()
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !created {
		http.Error(w, "exists", http.StatusConflict)
		return
	}
	rc, _ := s.charge(r)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(rc)
} // want `the end of the function answers without recording the response under the key claimed by SetNX`
