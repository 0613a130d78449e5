package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"example.com/corpus/db"
)

// pullFunds asks the payments partner to pull amount from the user's
// bank account, under key.
func (s *Server) pullFunds(ctx context.Context, uid string, amount int64, key string) (string, error) {
	body, _ := json.Marshal(map[string]any{"user": uid, "amount": amount, "currency": "eur"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.paymentsURL+"/v1/debits", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := s.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return "", fmt.Errorf("payments partner: status %d", resp.StatusCode)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// topUpRequest is the body of the top-up endpoints.
type topUpRequest struct {
	AmountCents int64 `json:"amount_cents"`
}

// claimKey inserts key in progress into idempotency_keys and reports
// whether this call inserted it.
func (s *Server) claimKey(ctx context.Context, key string) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// saveAnswer stores the answer of key and sets it completed.
func (s *Server) saveAnswer(ctx context.Context, key string, code int, body []byte) {
	if _, err := s.pool.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, code, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
}

// TopUpWallet pulls money from the user's bank into their wallet once
// per Idempotency-Key. When the partner fails, the handler answers 502
// and the key stays in progress.
//
// corpus: bug releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Server) TopUpWallet(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req topUpRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	claimed, err := s.claimKey(ctx, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	debitID, err := s.pullFunds(ctx, userID(r), req.AmountCents, "topup:"+key)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner failed")
		return
	}
	body, _ := json.Marshal(map[string]any{"debit_id": debitID, "amount_cents": req.AmountCents})
	s.saveAnswer(ctx, key, http.StatusCreated, body)
	writeRaw(w, http.StatusCreated, body)
}

// TopUpWalletGuarded pulls money from the user's bank into their wallet
// once per Idempotency-Key; the release is deferred right after the
// claim and disarmed once the answer is stored.
//
// corpus: ok releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Server) TopUpWalletGuarded(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req topUpRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	claimed, err := s.claimKey(ctx, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	completed := false
	defer func() {
		if !completed {
			s.dropKey(ctx, key)
		}
	}()
	debitID, err := s.pullFunds(ctx, userID(r), req.AmountCents, "topup:"+key)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner failed")
		return
	}
	body, _ := json.Marshal(map[string]any{"debit_id": debitID, "amount_cents": req.AmountCents})
	s.saveAnswer(ctx, key, http.StatusCreated, body)
	completed = true
	writeRaw(w, http.StatusCreated, body)
}

// account is the part of an account the statement endpoints use.
type account struct {
	ID      string
	OwnerID string
	Balance int64
}

// loadAccount reads the user's account id.
func (s *Server) loadAccount(ctx context.Context, id, owner string) (account, error) {
	var a account
	err := s.pool.QueryRow(ctx,
		`SELECT id, owner_id, balance FROM accounts WHERE id = $1 AND owner_id = $2`, id, owner).
		Scan(&a.ID, &a.OwnerID, &a.Balance)
	return a, err
}

// RequestStatement orders a paper statement of an account once per
// Idempotency-Key. The deferred release is registered after the account
// lookup, whose early return it does not cover.
//
// corpus: bug releaseonerror
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) RequestStatement(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /statements")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	acct, err := s.loadAccount(ctx, r.PathValue("account"), userID(r))
	if err != nil {
		writeError(w, http.StatusNotFound, "no such account")
		return
	}
	done := false
	defer func() {
		if !done {
			s.release(ctx, key)
		}
	}()
	var jobID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO statement_jobs (account_id, kind) VALUES ($1, 'paper') RETURNING id`, acct.ID).Scan(&jobID); err != nil {
		writeError(w, http.StatusInternalServerError, "statement failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"job_id": jobID})
	if err := s.idem.SaveResponse(ctx, key, http.StatusAccepted, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	done = true
	writeRaw(w, http.StatusAccepted, body)
}

// CloseAccount closes an account once per Idempotency-Key; every error
// path after the claim gives the key back through a local closure.
//
// corpus: ok releaseonerror
// modelled on: tkoleo84119/nail-salon-backend internal/repository/sqlc/customer_coupon.sql (sqlc queries the handlers call)
func (s *Server) CloseAccount(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: r.PathValue("account")}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			s.replayKey(w, r, key)
			return
		}
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	release := func() {
		if err := s.q.DeleteIdempotencyKey(context.WithoutCancel(ctx), key); err != nil {
			slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", err)
		}
	}
	acct, err := s.loadAccount(ctx, r.PathValue("account"), userID(r))
	if err != nil {
		release()
		writeError(w, http.StatusNotFound, "no such account")
		return
	}
	if acct.Balance != 0 {
		release()
		writeError(w, http.StatusUnprocessableEntity, "account balance is not zero")
		return
	}
	if _, err := s.pool.Exec(ctx, `UPDATE accounts SET closed_at = now() WHERE id = $1`, acct.ID); err != nil {
		release()
		writeError(w, http.StatusInternalServerError, "close failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"account_id": acct.ID, "status": "closed"})
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{Key: key, ResponseCode: http.StatusOK, ResponseBody: body}); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	writeRaw(w, http.StatusOK, body)
}

// OrderCard orders a debit card to the user's address once per
// Idempotency-Key.
//
// corpus: bug releaseonerror
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) OrderCard(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx, uid := r.Context(), userID(r)
	claimed, err := s.idem.Claim(ctx, key, "POST /cards")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	var addressID string
	if err := s.pool.QueryRow(ctx,
		`SELECT id FROM addresses WHERE user_id = $1 AND is_default`, uid).Scan(&addressID); err != nil {
		writeError(w, http.StatusUnprocessableEntity, "no default address")
		return
	}
	var cardID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO card_orders (user_id, address_id) VALUES ($1, $2) RETURNING id`, uid, addressID).Scan(&cardID); err != nil {
		s.release(ctx, key)
		writeError(w, http.StatusInternalServerError, "order failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"card_order_id": cardID})
	if err := s.idem.SaveResponse(ctx, key, http.StatusCreated, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
	writeRaw(w, http.StatusCreated, body)
}

// ScheduleDelivery schedules a delivery once per Idempotency-Key; the
// request row is created in progress with GORM.
//
// corpus: bug releaseonerror
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (DB.Model(o).Where(...).Update)
func (s *Server) ScheduleDelivery(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	rec := idempotentRequest{Key: key, Route: "POST /deliveries", Status: "in_progress", CreatedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&rec).Error; err != nil {
		if isUniqueViolation(err) {
			s.replayRow(w, r, key)
			return
		}
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	var deliveryID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO deliveries (order_id, window_start) VALUES ($1, $2) RETURNING id`,
		r.PathValue("order"), time.Now().Add(24*time.Hour)).Scan(&deliveryID); err != nil {
		writeError(w, http.StatusInternalServerError, "schedule failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"delivery_id": deliveryID})
	s.gdb.WithContext(ctx).Model(&rec).Updates(map[string]any{
		"status": "completed", "response_code": http.StatusCreated, "response_body": body,
	})
	writeRaw(w, http.StatusCreated, body)
}

// ScheduleDeliveryGuarded schedules a delivery once per Idempotency-Key;
// a failure marks the request row failed, and a retry takes a failed row
// over.
//
// corpus: ok releaseonerror
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (DB.Model(o).Where(...).Update)
func (s *Server) ScheduleDeliveryGuarded(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	rec := idempotentRequest{Key: key, Route: "POST /deliveries", Status: "in_progress", CreatedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&rec).Error; err != nil {
		if !isUniqueViolation(err) {
			writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
			return
		}
		res := s.gdb.WithContext(ctx).Model(&idempotentRequest{}).
			Where("key = ? AND status = ?", key, "failed").
			Update("status", "in_progress")
		if res.Error != nil {
			writeError(w, http.StatusInternalServerError, "lookup failed")
			return
		}
		if res.RowsAffected == 0 {
			s.replayRow(w, r, key)
			return
		}
	}
	var deliveryID string
	if err := s.pool.QueryRow(ctx,
		`INSERT INTO deliveries (order_id, window_start) VALUES ($1, $2) RETURNING id`,
		r.PathValue("order"), time.Now().Add(24*time.Hour)).Scan(&deliveryID); err != nil {
		s.gdb.WithContext(context.WithoutCancel(ctx)).Model(&idempotentRequest{}).
			Where("key = ?", key).Update("status", "failed")
		writeError(w, http.StatusInternalServerError, "schedule failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"delivery_id": deliveryID})
	s.gdb.WithContext(ctx).Model(&idempotentRequest{}).Where("key = ?", key).Updates(map[string]any{
		"status": "completed", "response_code": http.StatusCreated, "response_body": body,
	})
	writeRaw(w, http.StatusCreated, body)
}

// AddPayee adds a payee to the user's address book once per
// Idempotency-Key, through sqlx; a failed insert deletes the claim.
//
// corpus: ok releaseonerror
// modelled on: Nivl/go-rest-tools storage/db/sqlx/queryable.go (Get, Select and NamedExec over one sqlx handle)
func (s *Server) AddPayee(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req struct {
		Name string `json:"name" db:"name"`
		IBAN string `json:"iban" db:"iban"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	res, err := s.xdb.ExecContext(ctx,
		`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		s.replay(w, r, key)
		return
	}
	var payeeID string
	if err := s.xdb.GetContext(ctx, &payeeID,
		`INSERT INTO payees (user_id, name, iban) VALUES ($1, $2, $3) RETURNING id`,
		userID(r), req.Name, req.IBAN); err != nil {
		if _, derr := s.xdb.ExecContext(context.WithoutCancel(ctx), `DELETE FROM idempotency_keys WHERE key = $1`, key); derr != nil {
			slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", derr)
		}
		writeError(w, http.StatusInternalServerError, "add payee failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"payee_id": payeeID})
	s.saveAnswer(ctx, key, http.StatusCreated, body)
	writeRaw(w, http.StatusCreated, body)
}
