package edge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/jmoiron/sqlx"
)

// AddressAPI serves /customers/{id}/addresses and /customers/{id}/cards,
// with keys in the idempotency_requests table.
type AddressAPI struct {
	db *sqlx.DB
}

type storedRequest struct {
	CompletedAt  sql.NullTime   `db:"completed_at"`
	ResponseCode sql.NullInt64  `db:"response_code"`
	ResponseBody sql.NullString `db:"response_body"`
}

func (a *AddressAPI) claim(ctx context.Context, key string) (bool, error) {
	res, err := a.db.ExecContext(ctx,
		`INSERT INTO idempotency_requests (key, created_at) VALUES ($1, now()) ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (a *AddressAPI) release(ctx context.Context, key string) {
	_, _ = a.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM idempotency_requests WHERE key = $1`, key)
}

func (a *AddressAPI) repeat(w http.ResponseWriter, r *http.Request, key string) {
	var sr storedRequest
	err := a.db.GetContext(r.Context(), &sr,
		`SELECT completed_at, response_code, response_body FROM idempotency_requests WHERE key = $1`, key)
	if err != nil || !sr.CompletedAt.Valid {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	code := http.StatusOK
	if sr.ResponseCode.Valid {
		code = int(sr.ResponseCode.Int64)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if sr.ResponseBody.Valid {
		_, _ = w.Write([]byte(sr.ResponseBody.String))
	}
}

type address struct {
	ID     int64  `json:"id" db:"id"`
	Line1  string `json:"line1" db:"line1"`
	City   string `json:"city" db:"city"`
	Postal string `json:"postal" db:"postal"`
}

// AddAddress adds an address to a customer's book once per
// Idempotency-Key.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (idempotency records in PostgreSQL, completed after the handler)
func (a *AddressAPI) AddAddress(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in address
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	err = a.db.GetContext(ctx, &in.ID,
		`INSERT INTO addresses (customer_id, line1, city, postal) VALUES ($1, $2, $3, $4) RETURNING id`,
		chi.URLParam(r, "id"), in.Line1, in.City, in.Postal)
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not add address", http.StatusInternalServerError)
		return
	}
	_, _ = a.db.ExecContext(ctx, `UPDATE idempotency_requests SET completed_at = now() WHERE key = $1`, key)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(in)
}

// AddAddressRecorded adds an address to a customer's book once per
// Idempotency-Key; the answer is stored with the key.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (idempotency records in PostgreSQL, completed with the response after the handler)
func (a *AddressAPI) AddAddressRecorded(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in address
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	err = a.db.GetContext(ctx, &in.ID,
		`INSERT INTO addresses (customer_id, line1, city, postal) VALUES ($1, $2, $3, $4) RETURNING id`,
		chi.URLParam(r, "id"), in.Line1, in.City, in.Postal)
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not add address", http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(in)
	_, _ = a.db.ExecContext(ctx,
		`UPDATE idempotency_requests SET completed_at = now(), response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusCreated, string(body))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// SetDefaultAddress makes an address the customer's default once per
// Idempotency-Key.
//
// corpus: bug cacheresponse
// modelled on: pay-theory/lift pkg/middleware/idempotency.go (record marked processing, then completed with the status)
func (a *AddressAPI) SetDefaultAddress(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	var prev address
	err = a.db.GetContext(ctx, &prev,
		`UPDATE customers c SET default_address = $2 FROM addresses a
		 WHERE c.id = $1 AND a.id = $2 RETURNING a.id, a.line1, a.city, a.postal`,
		chi.URLParam(r, "id"), chi.URLParam(r, "addr"))
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not set default", http.StatusInternalServerError)
		return
	}
	_, _ = a.db.ExecContext(ctx,
		`UPDATE idempotency_requests SET completed_at = now(), response_code = $2 WHERE key = $1`, key, http.StatusOK)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(prev)
}

// SetDefaultAddressRecorded makes an address the customer's default once
// per Idempotency-Key; status and body are stored with the key.
//
// corpus: ok cacheresponse
// modelled on: pay-theory/lift pkg/middleware/idempotency.go (record marked processing, then completed with the response)
func (a *AddressAPI) SetDefaultAddressRecorded(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	var prev address
	err = a.db.GetContext(ctx, &prev,
		`UPDATE customers c SET default_address = $2 FROM addresses a
		 WHERE c.id = $1 AND a.id = $2 RETURNING a.id, a.line1, a.city, a.postal`,
		chi.URLParam(r, "id"), chi.URLParam(r, "addr"))
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not set default", http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(prev)
	_, _ = a.db.ExecContext(ctx,
		`UPDATE idempotency_requests SET completed_at = now(), response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusOK, string(body))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

type card struct {
	Fingerprint string `json:"fingerprint" db:"fingerprint"`
	Last4       string `json:"last4" db:"last4"`
	ID          int64  `json:"id" db:"id"`
}

// AttachCard attaches a tokenised card to a customer once per
// Idempotency-Key; a card already on file is answered with that card.
//
// corpus: bug cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (stored response per key, replayed on a repeat)
func (a *AddressAPI) AttachCard(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in card
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	customer := chi.URLParam(r, "id")
	var onFile card
	err = a.db.GetContext(ctx, &onFile,
		`SELECT id, fingerprint, last4 FROM cards WHERE customer_id = $1 AND fingerprint = $2`, customer, in.Fingerprint)
	if err == nil {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(onFile)
		return
	}
	if !errors.Is(err, sql.ErrNoRows) {
		a.release(ctx, key)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	err = a.db.GetContext(ctx, &in.ID,
		`INSERT INTO cards (customer_id, fingerprint, last4) VALUES ($1, $2, $3)
		 ON CONFLICT (customer_id, fingerprint) DO UPDATE SET last4 = EXCLUDED.last4 RETURNING id`,
		customer, in.Fingerprint, in.Last4)
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not attach card", http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(in)
	_, _ = a.db.ExecContext(ctx,
		`UPDATE idempotency_requests SET completed_at = now(), response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusCreated, string(body))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// AttachCardRecorded attaches a tokenised card to a customer once per
// Idempotency-Key; a card already on file is answered with that card,
// and either answer is stored with the key.
//
// corpus: ok cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (stored response per key, replayed on a repeat)
func (a *AddressAPI) AttachCardRecorded(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in card
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claim(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.repeat(w, r, key)
		return
	}
	answer := func(code int, v card) {
		body, _ := json.Marshal(v)
		_, _ = a.db.ExecContext(ctx,
			`UPDATE idempotency_requests SET completed_at = now(), response_code = $2, response_body = $3 WHERE key = $1`,
			key, code, string(body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(body)
	}
	customer := chi.URLParam(r, "id")
	var onFile card
	err = a.db.GetContext(ctx, &onFile,
		`SELECT id, fingerprint, last4 FROM cards WHERE customer_id = $1 AND fingerprint = $2`, customer, in.Fingerprint)
	if err == nil {
		answer(http.StatusOK, onFile)
		return
	}
	if !errors.Is(err, sql.ErrNoRows) {
		a.release(ctx, key)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	err = a.db.GetContext(ctx, &in.ID,
		`INSERT INTO cards (customer_id, fingerprint, last4) VALUES ($1, $2, $3)
		 ON CONFLICT (customer_id, fingerprint) DO UPDATE SET last4 = EXCLUDED.last4 RETURNING id`,
		customer, in.Fingerprint, in.Last4)
	if err != nil {
		a.release(ctx, key)
		http.Error(w, "could not attach card", http.StatusInternalServerError)
		return
	}
	answer(http.StatusCreated, in)
}
