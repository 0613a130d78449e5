package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jmoiron/sqlx"
)

// Transfer moves stock of a SKU between warehouses while holding the SKU's
// advisory lock.
//
// corpus: bug releaseonerror
// modelled on: allisson/go-pglock README.md (session advisory locks that stay held until unlocked or the session ends)
func (s *Store) Transfer(ctx context.Context, sku, from, to string, qty int) error {
	conn, unlock, err := s.lockSKU(ctx, sku)
	if err != nil {
		return fmt.Errorf("lock sku: %w", err)
	}
	var onHand int
	if err := conn.QueryRowContext(ctx,
		`SELECT on_hand FROM stock_levels WHERE sku = $1 AND warehouse = $2`, sku, from).Scan(&onHand); err != nil {
		return fmt.Errorf("select stock: %w", err)
	}
	defer unlock()
	if onHand < qty {
		return ErrOutOfStock
	}
	if _, err := conn.ExecContext(ctx,
		`UPDATE stock_levels SET on_hand = on_hand - $1 WHERE sku = $2 AND warehouse = $3`, qty, sku, from); err != nil {
		return fmt.Errorf("debit warehouse: %w", err)
	}
	_, err = conn.ExecContext(ctx,
		`UPDATE stock_levels SET on_hand = on_hand + $1 WHERE sku = $2 AND warehouse = $3`, qty, sku, to)
	return err
}

// TransferLocked moves stock of a SKU between warehouses while holding the
// SKU's advisory lock, given back on every path.
//
// corpus: ok releaseonerror
// modelled on: allisson/go-pglock README.md (session advisory locks that stay held until unlocked or the session ends)
func (s *Store) TransferLocked(ctx context.Context, sku, from, to string, qty int) error {
	conn, unlock, err := s.lockSKU(ctx, sku)
	if err != nil {
		return fmt.Errorf("lock sku: %w", err)
	}
	defer unlock()
	var onHand int
	if err := conn.QueryRowContext(ctx,
		`SELECT on_hand FROM stock_levels WHERE sku = $1 AND warehouse = $2`, sku, from).Scan(&onHand); err != nil {
		return fmt.Errorf("select stock: %w", err)
	}
	if onHand < qty {
		return ErrOutOfStock
	}
	if _, err := conn.ExecContext(ctx,
		`UPDATE stock_levels SET on_hand = on_hand - $1 WHERE sku = $2 AND warehouse = $3`, qty, sku, from); err != nil {
		return fmt.Errorf("debit warehouse: %w", err)
	}
	_, err = conn.ExecContext(ctx,
		`UPDATE stock_levels SET on_hand = on_hand + $1 WHERE sku = $2 AND warehouse = $3`, qty, sku, to)
	return err
}

// reserveRequest is the body of the reservation endpoint.
type reserveRequest struct {
	OrderID  string `json:"order_id"`
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// claimRequest records the key as in progress in inventory_requests and
// reports whether this call recorded it.
func claimRequest(ctx context.Context, db sqlx.ExtContext, key string) (bool, error) {
	res, err := db.ExecContext(ctx,
		`INSERT INTO inventory_requests (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func dropRequest(ctx context.Context, db sqlx.ExtContext, key string) {
	if _, err := db.ExecContext(context.WithoutCancel(ctx),
		`DELETE FROM inventory_requests WHERE key = $1 AND status = 'in_progress'`, key); err != nil {
		slog.ErrorContext(ctx, "drop request key", "key", key, "err", err)
	}
}

// replayRequest answers with the response stored for key, or 409 while
// the first request is still running.
func replayRequest(ctx context.Context, w http.ResponseWriter, db sqlx.QueryerContext, key string) {
	var code int
	var body []byte
	err := db.QueryRowxContext(ctx,
		`SELECT response_code, response_body FROM inventory_requests WHERE key = $1 AND status = 'completed'`, key).
		Scan(&code, &body)
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"title": "request in progress"})
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// saveResponse stores the answer for key.
func saveResponse(ctx context.Context, db sqlx.ExtContext, key string, code int, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	_, err = db.ExecContext(ctx,
		`UPDATE inventory_requests SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, code, body)
	return body, err
}

// HandleReserve reserves stock under the client's Idempotency-Key.
//
// corpus: bug cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys: status, request hash and cached response)
func (s *Store) HandleReserve(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req reserveRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"title": "bad request"})
		return
	}
	ctx := r.Context()
	claimed, err := claimRequest(ctx, s.dbx, key)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		replayRequest(ctx, w, s.dbx, key)
		return
	}
	ok, err := s.ReserveOnce(ctx, req.OrderID, req.SKU, req.Quantity)
	if err != nil {
		dropRequest(ctx, s.dbx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "reservation failed"})
		return
	}
	if _, err := s.dbx.ExecContext(ctx, `UPDATE inventory_requests SET status = 'completed' WHERE key = $1`, key); err != nil {
		slog.ErrorContext(ctx, "complete request key", "key", key, "err", err)
	}
	writeJSON(w, http.StatusCreated, map[string]any{"order_id": req.OrderID, "sku": req.SKU, "reserved": ok})
}

// HandleReserveAtomic reserves stock under the client's Idempotency-Key;
// the claim, the reservation and the stored answer commit together, so a
// failure leaves nothing behind.
//
// corpus: ok cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys: status, request hash and cached response)
func (s *Store) HandleReserveAtomic(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req reserveRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"title": "bad request"})
		return
	}
	ctx := r.Context()
	tx, err := s.dbx.BeginTxx(ctx, nil)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	defer tx.Rollback()
	claimed, err := claimRequest(ctx, tx, key)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		replayRequest(ctx, w, s.dbx, key)
		return
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO reservations (order_id, sku, quantity, status) VALUES ($1, $2, $3, 'held')
		 ON CONFLICT (order_id, sku) DO NOTHING`, req.OrderID, req.SKU, req.Quantity); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "reservation failed"})
		return
	}
	out := map[string]any{"order_id": req.OrderID, "sku": req.SKU, "reserved": true}
	body, err := saveResponse(ctx, tx, key, http.StatusCreated, out)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "reservation failed"})
		return
	}
	if err := tx.Commit(); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "reservation failed"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}
