// Package payments takes card payments over HTTP. A client that times out
// retries with the same Idempotency-Key, and must get the payment it was
// charged for, not a second charge.
package payments

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// Payment is what the payment provider answers.
type Payment struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
	Status string `json:"status"`
}

// Provider charges cards; it deduplicates by the key it is given.
type Provider interface {
	Charge(ctx context.Context, customerID string, amount int64, idempotencyKey string) (*Payment, error)
}

// Handler serves POST /payments.
type Handler struct {
	Redis    *redis.Client
	Provider Provider
}

const (
	ttl        = 24 * time.Hour
	inProgress = "in_progress"
)

// stored is the answer kept under a completed key and replayed to retries.
type stored struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key is required", http.StatusBadRequest)
		return
	}
	var req struct {
		CustomerID string `json:"customer_id"`
		Amount     int64  `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "malformed payment", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	ok, err := h.Redis.SetNX(ctx, "idem:payments:"+key, inProgress, ttl).Result()
	if err != nil {
		http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		h.replay(ctx, w, key)
		return
	}
	p, err := h.Provider.Charge(ctx, req.CustomerID, req.Amount, "payments:"+key)
	if err != nil {
		h.Redis.Del(context.WithoutCancel(ctx), "idem:payments:"+key)
		http.Error(w, "the card could not be charged", http.StatusBadGateway)
		return
	}
	body, err := json.Marshal(p)
	if err != nil {
		h.Redis.Del(context.WithoutCancel(ctx), "idem:payments:"+key)
		http.Error(w, "could not encode the payment", http.StatusInternalServerError)
		return
	}
	record, err := json.Marshal(stored{Status: http.StatusCreated, Body: body})
	if err != nil {
		h.Redis.Del(context.WithoutCancel(ctx), "idem:payments:"+key)
		http.Error(w, "could not encode the payment", http.StatusInternalServerError)
		return
	}
	h.Redis.Set(ctx, "idem:payments:"+key, record, ttl)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write(body)
}

// replay answers a retry of a key another request holds: with the stored
// answer once it completed, with 409 while it runs.
func (h *Handler) replay(ctx context.Context, w http.ResponseWriter, key string) {
	raw, err := h.Redis.Get(ctx, "idem:payments:"+key).Bytes()
	if err != nil {
		http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
		return
	}
	var s stored
	if string(raw) == inProgress || json.Unmarshal(raw, &s) != nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "a payment with this key is in progress", http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(s.Status)
	w.Write(s.Body)
}
