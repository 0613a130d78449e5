package promos

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"
)

// API serves the checkout's promotion calls.
type API struct {
	svc *Service
	db  *sqlx.DB
}

// NewAPI returns an API.
func NewAPI(svc *Service, db *sqlx.DB) *API { return &API{svc: svc, db: db} }

type redeemBody struct {
	PromoID    string `json:"promo_id"`
	CustomerID string `json:"customer_id"`
	OrderID    string `json:"order_id"`
	Cents      int64  `json:"cents"`
}

type redeemReply struct {
	PromoID      string `json:"promo_id"`
	OrderID      string `json:"order_id"`
	CreditedCent int64  `json:"credited_cents"`
}

type redeemRequestRow struct {
	Key      string         `db:"request_key"`
	Finished bool           `db:"finished"`
	Reply    sql.NullString `db:"reply"`
}

func (a *API) startRedeemRequest(ctx context.Context, key string) (bool, redeemRequestRow, error) {
	res, err := a.db.ExecContext(ctx,
		`INSERT INTO redeem_requests (request_key, finished) VALUES ($1, false)
		 ON CONFLICT (request_key) DO NOTHING`, key)
	if err != nil {
		return false, redeemRequestRow{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, redeemRequestRow{}, nil
	}
	var row redeemRequestRow
	err = a.db.GetContext(ctx, &row,
		`SELECT request_key, finished, reply FROM redeem_requests WHERE request_key = $1`, key)
	return false, row, err
}

func (a *API) forgetRedeemRequest(ctx context.Context, key string) {
	_, _ = a.db.ExecContext(ctx, `DELETE FROM redeem_requests WHERE request_key = $1 AND NOT finished`, key)
}

// ServeRedeem is POST /promos/redeem. The checkout sends an
// Idempotency-Key and retries on timeouts.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Idempotency-Key middleware over a store)
func (a *API) ServeRedeem(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	var b redeemBody
	if key == "" || json.NewDecoder(r.Body).Decode(&b) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, row, err := a.startRedeemRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if row.Finished {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{}`))
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	if err := a.svc.RedeemPromoOnce(ctx, b.PromoID, b.CustomerID, b.OrderID, b.Cents); err != nil {
		a.forgetRedeemRequest(context.WithoutCancel(ctx), key)
		if errors.Is(err, ErrCouponUsed) {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		http.Error(w, "redeem failed", http.StatusInternalServerError)
		return
	}
	_, _ = a.db.ExecContext(ctx, `UPDATE redeem_requests SET finished = true WHERE request_key = $1`, key)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(redeemReply{PromoID: b.PromoID, OrderID: b.OrderID, CreditedCent: b.Cents})
}

// ServeRedeemReplaying is POST /v2/promos/redeem. The checkout sends an
// Idempotency-Key and retries on timeouts.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Idempotency-Key middleware over a store)
func (a *API) ServeRedeemReplaying(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	var b redeemBody
	if key == "" || json.NewDecoder(r.Body).Decode(&b) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, row, err := a.startRedeemRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if row.Finished {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(row.Reply.String))
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	if err := a.svc.RedeemPromoOnce(ctx, b.PromoID, b.CustomerID, b.OrderID, b.Cents); err != nil {
		a.forgetRedeemRequest(context.WithoutCancel(ctx), key)
		if errors.Is(err, ErrCouponUsed) {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		http.Error(w, "redeem failed", http.StatusInternalServerError)
		return
	}
	reply, _ := json.Marshal(redeemReply{PromoID: b.PromoID, OrderID: b.OrderID, CreditedCent: b.Cents})
	_, _ = a.db.ExecContext(ctx,
		`UPDATE redeem_requests SET finished = true, reply = $2 WHERE request_key = $1`, key, string(reply))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(reply)
}
