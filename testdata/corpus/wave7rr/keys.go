package payments

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// KeyService is an idempotency-key service: callers POST a key before
// their work and go on only when it answers 201.
type KeyService struct{ rdb *redis.Client }

func (k *KeyService) exists(ctx context.Context, key string) bool {
	n, err := k.rdb.Exists(ctx, "idem:"+key).Result()
	if err != nil || n == 0 {
		return false
	}
	return true
}

func (k *KeyService) store(ctx context.Context, key string, ttl time.Duration) error {
	return k.rdb.Set(ctx, "idem:"+key, `{"status":"pending"}`, ttl).Err()
}

// Create grants a key: an EXISTS, then a SET without NX. Two concurrent
// POSTs of one key both find it absent and both get 201, and both
// callers do their work.
//
// corpus: bug checkthenact
// modelled on: erebos12/idemax endpoints/idempotency/handler.go (EXISTS through a helper folding the error and the count, then SET, then 201)
func (k *KeyService) Create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Key string `json:"key"`
		TTL int64  `json:"ttl_seconds"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Key == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if k.exists(r.Context(), req.Key) {
		http.Error(w, "key exists", http.StatusConflict)
		return
	}
	if err := k.store(r.Context(), req.Key, time.Duration(req.TTL)*time.Second); err != nil {
		http.Error(w, "store failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// CreateNX grants a key with SET NX: the SET is the check.
//
// corpus: ok checkthenact
// modelled on: erebos12/idemax endpoints/idempotency/handler.go (the same endpoint, claiming with SET NX)
func (k *KeyService) CreateNX(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Key string `json:"key"`
		TTL int64  `json:"ttl_seconds"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Key == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ok, err := k.rdb.SetNX(r.Context(), "idem:"+req.Key, `{"status":"pending"}`, time.Duration(req.TTL)*time.Second).Result()
	if err != nil {
		http.Error(w, "store failed", http.StatusInternalServerError)
		return
	}
	if !ok {
		http.Error(w, "key exists", http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusCreated)
}
