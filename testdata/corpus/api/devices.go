package api

import (
	"encoding/json"
	"net/http"
)

// deviceRequest is the body of the device endpoints.
type deviceRequest struct {
	PushToken string `json:"push_token"`
	Platform  string `json:"platform"`
}

// RegisterDevice registers the user's device for push notifications once
// per Idempotency-Key. The key is claimed inside the transaction that
// does the work, so every error return rolls the claim back with it.
//
// corpus: ok releaseonerror
// modelled on: DaniellaMagalhaesSiqueira/golang_coder sql/transacao/transacao.go (a pgx transaction with rollback on error)
func (s *Server) RegisterDevice(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req deviceRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "database unavailable")
		return
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx,
		`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if tag.RowsAffected() == 0 {
		_ = tx.Rollback(ctx)
		s.replay(w, r, key)
		return
	}
	var deviceID string
	if err := tx.QueryRow(ctx,
		`INSERT INTO devices (user_id, push_token, platform) VALUES ($1, $2, $3) RETURNING id`,
		userID(r), req.PushToken, req.Platform).Scan(&deviceID); err != nil {
		writeError(w, http.StatusInternalServerError, "register failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"device_id": deviceID})
	if _, err := tx.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusCreated, body); err != nil {
		writeError(w, http.StatusInternalServerError, "register failed")
		return
	}
	if err := tx.Commit(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "register failed")
		return
	}
	writeRaw(w, http.StatusCreated, body)
}

// PairDevice pairs a wearable with the user's phone once per
// Idempotency-Key. The key is claimed on the pool, outside the
// transaction of the work, whose rollback does not undo it.
//
// corpus: bug releaseonerror
// modelled on: DaniellaMagalhaesSiqueira/golang_coder sql/transacao/transacao.go (a pgx transaction with rollback on error)
func (s *Server) PairDevice(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req deviceRequest
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
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		s.dropKey(ctx, key)
		writeError(w, http.StatusServiceUnavailable, "database unavailable")
		return
	}
	defer tx.Rollback(ctx)
	var pairingID string
	if err := tx.QueryRow(ctx,
		`INSERT INTO pairings (user_id, push_token, platform) VALUES ($1, $2, $3) RETURNING id`,
		userID(r), req.PushToken, req.Platform).Scan(&pairingID); err != nil {
		writeError(w, http.StatusInternalServerError, "pairing failed")
		return
	}
	body, _ := json.Marshal(map[string]string{"pairing_id": pairingID})
	if _, err := tx.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'completed', response_code = $2, response_body = $3 WHERE key = $1`,
		key, http.StatusCreated, body); err != nil {
		writeError(w, http.StatusInternalServerError, "pairing failed")
		return
	}
	if err := tx.Commit(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "pairing failed")
		return
	}
	writeRaw(w, http.StatusCreated, body)
}
