package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"example.com/corpus/db"
)

// transferRequest is the body of the transfer endpoints.
type transferRequest struct {
	FromAccount string `json:"from_account"`
	ToAccount   string `json:"to_account"`
	AmountCents int64  `json:"amount_cents"`
}

// transfer is what the transfer endpoints answer.
type transfer struct {
	ID          string `json:"id"`
	FromAccount string `json:"from_account"`
	ToAccount   string `json:"to_account"`
	AmountCents int64  `json:"amount_cents"`
	Status      string `json:"status"`
}

// idemKey is the client's Idempotency-Key, scoped to the user.
func idemKey(r *http.Request) (string, bool) {
	k := r.Header.Get("Idempotency-Key")
	if k == "" || len(k) > 255 {
		return "", false
	}
	return userID(r) + ":" + k, true
}

// bookTransfer writes the transfer and moves the money between the two
// accounts in one transaction.
func (s *Server) bookTransfer(ctx context.Context, req transferRequest) (transfer, error) {
	t := transfer{FromAccount: req.FromAccount, ToAccount: req.ToAccount, AmountCents: req.AmountCents, Status: "booked"}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx,
			`INSERT INTO transfers (from_account, to_account, amount_cents) VALUES ($1, $2, $3) RETURNING id`,
			req.FromAccount, req.ToAccount, req.AmountCents).Scan(&t.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, req.FromAccount, req.AmountCents); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, req.ToAccount, req.AmountCents)
		return err
	})
	return t, err
}

// dropKey deletes a claimed key so that the client's retry runs again.
func (s *Server) dropKey(ctx context.Context, key string) {
	if _, err := s.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM idempotency_keys WHERE key = $1`, key); err != nil {
		slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", err)
	}
}

// CreateTransfer moves money between two of the user's accounts once per
// Idempotency-Key. The key is claimed by inserting it in progress and set
// to completed when the transfer is booked; a replay finds it completed
// and has nothing to send back but that.
//
// corpus: bug cacheresponse
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Server) CreateTransfer(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req transferRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if tag.RowsAffected() == 0 {
		var status string
		if err := s.pool.QueryRow(ctx, `SELECT status FROM idempotency_keys WHERE key = $1`, key).Scan(&status); err != nil {
			writeError(w, http.StatusInternalServerError, "lookup failed")
			return
		}
		if status != "completed" {
			writeError(w, http.StatusConflict, "request in progress")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "completed"})
		return
	}
	t, err := s.bookTransfer(ctx, req)
	if err != nil {
		s.dropKey(ctx, key)
		writeError(w, http.StatusInternalServerError, "transfer failed")
		return
	}
	if _, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET status = 'completed' WHERE key = $1`, key); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeJSON(w, http.StatusCreated, t)
}

// CreateTransferReplayable moves money between two of the user's accounts
// once per Idempotency-Key, and keeps the answer with the key for replays.
//
// corpus: ok cacheresponse
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Server) CreateTransferReplayable(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req transferRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if tag.RowsAffected() == 0 {
		var status string
		var code int
		var body []byte
		if err := s.pool.QueryRow(ctx,
			`SELECT status, coalesce(response_code, 0), response_body FROM idempotency_keys WHERE key = $1`, key).
			Scan(&status, &code, &body); err != nil {
			writeError(w, http.StatusInternalServerError, "lookup failed")
			return
		}
		if status != "completed" {
			writeError(w, http.StatusConflict, "request in progress")
			return
		}
		w.Header().Set("Idempotent-Replayed", "true")
		writeRaw(w, code, body)
		return
	}
	t, err := s.bookTransfer(ctx, req)
	if err != nil {
		s.dropKey(ctx, key)
		writeError(w, http.StatusInternalServerError, "transfer failed")
		return
	}
	body, _ := json.Marshal(t)
	if _, err := s.pool.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusCreated, body); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeRaw(w, http.StatusCreated, body)
}

// replay answers a request whose key was claimed before.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, key string) {
	rec, err := s.idem.Lookup(r.Context(), key)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if rec.Status != "completed" {
		writeError(w, http.StatusConflict, "request in progress")
		return
	}
	if rec.ResponseCode == 0 {
		writeJSON(w, http.StatusOK, map[string]string{"status": rec.Status})
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	writeRaw(w, rec.ResponseCode, rec.ResponseBody)
}

// release gives a claimed key back through the repository.
func (s *Server) release(ctx context.Context, key string) {
	if err := s.idem.Release(context.WithoutCancel(ctx), key); err != nil {
		slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", err)
	}
}

// placeOrder writes an order for the user's cart.
func (s *Server) placeOrder(ctx context.Context, uid string) (map[string]any, error) {
	var id string
	var total int64
	err := s.pool.QueryRow(ctx,
		`INSERT INTO orders (user_id, total_cents)
		 SELECT user_id, sum(price_cents) FROM cart_items WHERE user_id = $1 GROUP BY user_id
		 RETURNING id, total_cents`, uid).Scan(&id, &total)
	if err != nil {
		return nil, fmt.Errorf("place order: %w", err)
	}
	return map[string]any{"order_id": id, "total_cents": total}, nil
}

// PlaceOrder places the user's order once per Idempotency-Key through the
// idempotency repository, and marks the key completed.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) PlaceOrder(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /orders")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	out, err := s.placeOrder(ctx, userID(r))
	if err != nil {
		s.release(ctx, key)
		writeError(w, http.StatusInternalServerError, "order failed")
		return
	}
	if err := s.idem.MarkCompleted(ctx, key); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeJSON(w, http.StatusCreated, out)
}

// PlaceOrderReplayable places the user's order once per Idempotency-Key
// and saves the answer with the key.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) PlaceOrderReplayable(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /orders")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	out, err := s.placeOrder(ctx, userID(r))
	if err != nil {
		s.release(ctx, key)
		writeError(w, http.StatusInternalServerError, "order failed")
		return
	}
	body, _ := json.Marshal(out)
	if err := s.idem.SaveResponse(ctx, key, http.StatusCreated, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	writeRaw(w, http.StatusCreated, body)
}

// bookShipment asks the carrier for a label; it answers the carrier's
// status code and body.
func (s *Server) bookShipment(ctx context.Context, orderID string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.paymentsURL+"/carrier/labels?order="+orderID, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, out, nil
}

// CreateShipment books a shipping label once per Idempotency-Key. When
// the carrier is down, the 502 is saved as the key's answer too.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) CreateShipment(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /shipments")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	code, body, err := s.bookShipment(ctx, r.PathValue("order"))
	if err != nil || code >= 500 {
		body, _ = json.Marshal(map[string]any{"status": http.StatusBadGateway, "detail": "carrier unavailable"})
		code = http.StatusBadGateway
	}
	if err := s.idem.SaveResponse(ctx, key, code, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	writeRaw(w, code, body)
}

// CreateShipmentReleasing books a shipping label once per Idempotency-
// Key; when the carrier is down it gives the key back instead of saving
// the 502, so that the client's retry books the label.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) CreateShipmentReleasing(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /shipments")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	code, body, err := s.bookShipment(ctx, r.PathValue("order"))
	if err != nil || code >= 500 {
		s.release(ctx, key)
		writeError(w, http.StatusBadGateway, "carrier unavailable")
		return
	}
	if err := s.idem.SaveResponse(ctx, key, code, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	writeRaw(w, code, body)
}

// invoiceRequest is the body of the invoice endpoints.
type invoiceRequest struct {
	CustomerID  string `json:"customer_id"`
	AmountCents int64  `json:"amount_cents"`
}

// issueInvoice writes an invoice.
func (s *Server) issueInvoice(ctx context.Context, req invoiceRequest) (map[string]any, error) {
	var id string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO invoices (customer_id, amount_cents, status) VALUES ($1, $2, 'open') RETURNING id`,
		req.CustomerID, req.AmountCents).Scan(&id); err != nil {
		return nil, err
	}
	return map[string]any{"invoice_id": id, "amount_cents": req.AmountCents}, nil
}

// replayKey answers from the idempotency_keys row of key, read through
// the sqlc queries.
func (s *Server) replayKey(w http.ResponseWriter, r *http.Request, key string) {
	prev, err := s.q.GetIdempotencyKey(r.Context(), key)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if prev.Status != "completed" {
		writeError(w, http.StatusConflict, "request in progress")
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	writeRaw(w, int(prev.ResponseCode.Int32), prev.ResponseBody)
}

// IssueInvoice issues an invoice once per Idempotency-Key through the
// sqlc queries, and marks the key done.
//
// corpus: bug cacheresponse
// modelled on: tkoleo84119/nail-salon-backend internal/repository/sqlc/customer_coupon.sql (sqlc queries the handlers call)
func (s *Server) IssueInvoice(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req invoiceRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: req.CustomerID}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			writeError(w, http.StatusConflict, "duplicate request")
			return
		}
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	out, err := s.issueInvoice(ctx, req)
	if err != nil {
		_ = s.q.DeleteIdempotencyKey(context.WithoutCancel(ctx), key)
		writeError(w, http.StatusInternalServerError, "invoice failed")
		return
	}
	if err := s.q.MarkIdempotencyKeyDone(ctx, key); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeJSON(w, http.StatusCreated, out)
}

// IssueInvoiceReplayable issues an invoice once per Idempotency-Key
// through the sqlc queries, and keeps the answer with the key.
//
// corpus: ok cacheresponse
// modelled on: tkoleo84119/nail-salon-backend internal/repository/sqlc/customer_coupon.sql (sqlc queries the handlers call)
func (s *Server) IssueInvoiceReplayable(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req invoiceRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: req.CustomerID}); err != nil {
		if !errors.Is(err, pgx.ErrNoRows) {
			writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
			return
		}
		s.replayKey(w, r, key)
		return
	}
	out, err := s.issueInvoice(ctx, req)
	if err != nil {
		_ = s.q.DeleteIdempotencyKey(context.WithoutCancel(ctx), key)
		writeError(w, http.StatusInternalServerError, "invoice failed")
		return
	}
	body, _ := json.Marshal(out)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{
		Key: key, ResponseCode: http.StatusCreated, ResponseBody: body,
	}); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeRaw(w, http.StatusCreated, body)
}

// idempotentRequest is a row of idempotent_requests, kept with GORM.
type idempotentRequest struct {
	Key          string `gorm:"primaryKey"`
	Route        string
	Status       string
	ResponseCode int
	ResponseBody []byte
	CreatedAt    time.Time
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// replayRow answers from the idempotent_requests row of key.
func (s *Server) replayRow(w http.ResponseWriter, r *http.Request, key string) {
	var prev idempotentRequest
	if err := s.gdb.WithContext(r.Context()).First(&prev, "key = ?", key).Error; err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if prev.Status != "completed" {
		writeError(w, http.StatusConflict, "request in progress")
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	writeRaw(w, prev.ResponseCode, prev.ResponseBody)
}

// OpenAccount opens a sub-account once per Idempotency-Key; the request
// row is created in progress and, once the account exists, set to
// completed.
//
// corpus: bug cacheresponse
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (DB.Model(o).Where(...).Update)
func (s *Server) OpenAccount(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	rec := idempotentRequest{Key: key, Route: "POST /accounts", Status: "in_progress", CreatedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&rec).Error; err != nil {
		if isUniqueViolation(err) {
			writeError(w, http.StatusConflict, "duplicate request")
			return
		}
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	var accountID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO accounts (owner_id, balance) VALUES ($1, 0) RETURNING id`, userID(r)).Scan(&accountID); err != nil {
		s.gdb.WithContext(context.WithoutCancel(ctx)).Delete(&idempotentRequest{}, "key = ?", key)
		writeError(w, http.StatusInternalServerError, "open failed")
		return
	}
	s.gdb.WithContext(ctx).Model(&rec).Update("status", "completed")
	writeJSON(w, http.StatusCreated, map[string]string{"account_id": accountID})
}

// OpenAccountReplayable opens a sub-account once per Idempotency-Key and
// stores the answer on the request row.
//
// corpus: ok cacheresponse
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (DB.Model(o).Where(...).Update)
func (s *Server) OpenAccountReplayable(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	rec := idempotentRequest{Key: key, Route: "POST /accounts", Status: "in_progress", CreatedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&rec).Error; err != nil {
		if !isUniqueViolation(err) {
			writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
			return
		}
		s.replayRow(w, r, key)
		return
	}
	var accountID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO accounts (owner_id, balance) VALUES ($1, 0) RETURNING id`, userID(r)).Scan(&accountID); err != nil {
		s.gdb.WithContext(context.WithoutCancel(ctx)).Delete(&idempotentRequest{}, "key = ?", key)
		writeError(w, http.StatusInternalServerError, "open failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"account_id": accountID})
	s.gdb.WithContext(ctx).Model(&rec).Updates(map[string]any{
		"status": "completed", "response_code": http.StatusCreated, "response_body": body,
	})
	writeRaw(w, http.StatusCreated, body)
}

// requestRow is a row of api_requests, kept with bun.
type requestRow struct {
	bun.BaseModel `bun:"table:api_requests"`
	Key           string `bun:"key,pk"`
	Status        string `bun:"status"`
	ResponseCode  int    `bun:"response_code"`
	ResponseBody  []byte `bun:"response_body"`
}

// claimRequest inserts key in progress into api_requests and reports
// whether this call inserted it.
func (s *Server) claimRequest(ctx context.Context, key string) (bool, error) {
	res, err := s.bdb.NewInsert().Model(&requestRow{Key: key, Status: "in_progress"}).
		On("CONFLICT (key) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// replayRequest answers from the api_requests row of key.
func (s *Server) replayRequest(w http.ResponseWriter, r *http.Request, key string) {
	var prev requestRow
	if err := s.bdb.NewSelect().Model(&prev).Where("key = ?", key).Scan(r.Context()); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if prev.Status != "completed" {
		writeError(w, http.StatusConflict, "request in progress")
		return
	}
	writeRaw(w, prev.ResponseCode, prev.ResponseBody)
}

// SplitBill splits a bill among friends once per Idempotency-Key; the
// request is claimed in api_requests, and the answer goes to the client
// only.
//
// corpus: bug cacheresponse
// modelled on: tyrm/mcp-dbmem internal/db/bun/common.go (create: NewInsert().Model(...).Exec)
func (s *Server) SplitBill(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.claimRequest(ctx, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replayRequest(w, r, key)
		return
	}
	var splitID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO bill_splits (bill_id, created_by) VALUES ($1, $2) RETURNING id`,
		r.PathValue("bill"), userID(r)).Scan(&splitID); err != nil {
		_, _ = s.bdb.NewDelete().Model((*requestRow)(nil)).Where("key = ?", key).Exec(context.WithoutCancel(ctx))
		writeError(w, http.StatusInternalServerError, "split failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"split_id": splitID})
}

// SplitBillReplayable splits a bill among friends once per Idempotency-
// Key and stores the answer in api_requests.
//
// corpus: ok cacheresponse
// modelled on: tyrm/mcp-dbmem internal/db/bun/common.go (create: NewInsert().Model(...).Exec)
func (s *Server) SplitBillReplayable(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.claimRequest(ctx, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replayRequest(w, r, key)
		return
	}
	var splitID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO bill_splits (bill_id, created_by) VALUES ($1, $2) RETURNING id`,
		r.PathValue("bill"), userID(r)).Scan(&splitID); err != nil {
		_, _ = s.bdb.NewDelete().Model((*requestRow)(nil)).Where("key = ?", key).Exec(context.WithoutCancel(ctx))
		writeError(w, http.StatusInternalServerError, "split failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"split_id": splitID})
	if _, err := s.bdb.NewUpdate().Model((*requestRow)(nil)).
		Set("status = ?", "completed").
		Set("response_code = ?", http.StatusCreated).
		Set("response_body = ?", body).
		Where("key = ?", key).
		Exec(ctx); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	writeRaw(w, http.StatusCreated, body)
}
