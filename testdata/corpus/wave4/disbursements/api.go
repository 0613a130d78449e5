package disbursements

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type payoutRequest struct {
	PayoutID    string `json:"payout_id"`
	SellerID    string `json:"seller_id"`
	BankAccount string `json:"bank_account"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

type payoutResponse struct {
	PayoutID       string `json:"payout_id"`
	StripePayoutID string `json:"stripe_payout_id"`
	Status         string `json:"status"`
	ArrivalDate    int64  `json:"arrival_date"`
}

// beginAPIRequest records key as started; it reports false, with the
// stored state and response, when the key was seen before.
func (s *Service) beginAPIRequest(ctx context.Context, key string) (first bool, state string, resp []byte, err error) {
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO api_requests (idem_key, state, created_at) VALUES ($1, 'started', now())
		 ON CONFLICT (idem_key) DO NOTHING`, key)
	if err != nil {
		return false, "", nil, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, "", nil, nil
	}
	var body sql.NullString
	err = s.db.QueryRowContext(ctx,
		`SELECT state, response_body FROM api_requests WHERE idem_key = $1`, key).Scan(&state, &body)
	return false, state, []byte(body.String), err
}

func (s *Service) dropAPIRequest(ctx context.Context, key string) {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM api_requests WHERE idem_key = $1 AND state = 'started'`, key); err != nil {
		s.log.ErrorContext(ctx, "drop api request", "key", key, "err", err)
	}
}

// ServeCreatePayout is POST /payouts; sellers' dashboards send an
// Idempotency-Key header and resend on timeouts.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (middleware keyed by the Idempotency-Key header over a store)
func (s *Service) ServeCreatePayout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	var req payoutRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, state, _, err := s.beginAPIRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if state == "finished" {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"status":"already processed"}`))
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	po, err := s.PayOutKeyed(ctx, Payout{ID: req.PayoutID, SellerID: req.SellerID, BankAccount: req.BankAccount, AmountCents: req.AmountCents, Currency: req.Currency})
	if err != nil {
		s.dropAPIRequest(context.WithoutCancel(ctx), key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	if _, err := s.db.ExecContext(ctx,
		`UPDATE api_requests SET state = 'finished', finished_at = now() WHERE idem_key = $1`, key); err != nil {
		s.log.ErrorContext(ctx, "finish api request", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(payoutResponse{PayoutID: req.PayoutID, StripePayoutID: po.ID, Status: string(po.Status), ArrivalDate: po.ArrivalDate})
}

// ServeCreatePayoutStored is POST /v2/payouts; sellers' dashboards send an
// Idempotency-Key header and resend on timeouts.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (middleware keyed by the Idempotency-Key header over a store)
func (s *Service) ServeCreatePayoutStored(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	var req payoutRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, state, stored, err := s.beginAPIRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if state == "finished" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(stored)
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	po, err := s.PayOutKeyed(ctx, Payout{ID: req.PayoutID, SellerID: req.SellerID, BankAccount: req.BankAccount, AmountCents: req.AmountCents, Currency: req.Currency})
	if err != nil {
		s.dropAPIRequest(context.WithoutCancel(ctx), key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(payoutResponse{PayoutID: req.PayoutID, StripePayoutID: po.ID, Status: string(po.Status), ArrivalDate: po.ArrivalDate})
	if _, err := s.db.ExecContext(ctx,
		`UPDATE api_requests SET state = 'finished', response_body = $2, finished_at = now() WHERE idem_key = $1`,
		key, string(body)); err != nil {
		s.log.ErrorContext(ctx, "finish api request", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

type refundResponse struct {
	RefundID string `json:"refund_id"`
	Status   string `json:"status"`
	Amount   int64  `json:"amount"`
}

// ServeRefund is POST /refunds, called by the support console, which
// resends with the same X-Request-ID when the first call times out.
//
// corpus: bug cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (Lifetime-bound keys in a storage, replayed on a repeat)
func (s *Service) ServeRefund(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	reqID := r.Header.Get("X-Request-ID")
	var req RefundRequest
	if reqID == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	doneKey := "refund-req:" + reqID
	if v, err := s.rdb.Get(ctx, doneKey).Result(); err == nil && v == "done" {
		w.WriteHeader(http.StatusOK)
		return
	} else if err != nil && !errors.Is(err, redis.Nil) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	req.RequestID = reqID
	ref, err := s.RefundBuyerKeyed(ctx, req)
	if err != nil {
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	s.rdb.Set(ctx, doneKey, "done", 72*time.Hour)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(refundResponse{RefundID: ref.ID, Status: string(ref.Status), Amount: ref.Amount})
}

// ServeRefundStored is POST /v2/refunds, called by the support console,
// which resends with the same X-Request-ID when the first call times out.
//
// corpus: ok cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (Lifetime-bound keys in a storage, replayed on a repeat)
func (s *Service) ServeRefundStored(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	reqID := r.Header.Get("X-Request-ID")
	var req RefundRequest
	if reqID == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	doneKey := "refund-resp:" + reqID
	if prev, err := s.rdb.Get(ctx, doneKey).Bytes(); err == nil {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(prev)
		return
	} else if !errors.Is(err, redis.Nil) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	req.RequestID = reqID
	ref, err := s.RefundBuyerKeyed(ctx, req)
	if err != nil {
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(refundResponse{RefundID: ref.ID, Status: string(ref.Status), Amount: ref.Amount})
	s.rdb.Set(ctx, doneKey, body, 72*time.Hour)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
