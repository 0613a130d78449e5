package ledger

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
)

// Handler serves the ledger's HTTP endpoints.
type Handler struct {
	svc  *Service
	idem IdempotencyStore
}

// NewHandler returns a Handler over svc and the key store.
func NewHandler(svc *Service, idem IdempotencyStore) *Handler {
	return &Handler{svc: svc, idem: idem}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func respond(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func problem(w http.ResponseWriter, code int, msg string) {
	respond(w, code, mustJSON(map[string]string{"title": msg}))
}

// begin reads the request and claims its key; it answers the request
// itself and reports false when the handler must stop.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, req *TransferRequest) (string, bool) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		problem(w, http.StatusBadRequest, "Idempotency-Key required")
		return "", false
	}
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		problem(w, http.StatusBadRequest, "malformed body")
		return "", false
	}
	return key, true
}

func (h *Handler) replay(w http.ResponseWriter, ctx context.Context, key string) {
	st, err := h.idem.Lookup(ctx, key)
	if err != nil || st.Status != "completed" {
		problem(w, http.StatusConflict, "request in progress")
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	respond(w, st.Code, st.Body)
}

func (h *Handler) release(ctx context.Context, key string) {
	if err := h.idem.Release(context.WithoutCancel(ctx), key); err != nil {
		slog.ErrorContext(ctx, "release key", "key", key, "err", err)
	}
}

// PostTransfer posts a transfer under the client's key.
//
// corpus: bug cacheresponse
// modelled on: web3dev6/token_contract_api db/query/transaction.sql (a transaction row created, then read back by id)
func (h *Handler) PostTransfer(w http.ResponseWriter, r *http.Request) {
	var req TransferRequest
	key, ok := h.begin(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	claimed, err := h.idem.Claim(ctx, key, req.Reference)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	rec, err := h.svc.TransferUnique(ctx, req)
	if err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "transfer failed")
		return
	}
	if err := h.idem.MarkDone(ctx, key); err != nil {
		slog.ErrorContext(ctx, "mark key done", "key", key, "err", err)
	}
	respond(w, http.StatusCreated, mustJSON(rec))
}

// PostTransferReplayable posts a transfer under the client's key and keeps
// the answer it sends.
//
// corpus: ok cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and the cached response)
func (h *Handler) PostTransferReplayable(w http.ResponseWriter, r *http.Request) {
	var req TransferRequest
	key, ok := h.begin(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	claimed, err := h.idem.Claim(ctx, key, req.Reference)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	rec, err := h.svc.TransferUnique(ctx, req)
	if err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "transfer failed")
		return
	}
	body := mustJSON(rec)
	if err := h.idem.Complete(ctx, key, http.StatusCreated, body); err != nil {
		slog.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	respond(w, http.StatusCreated, body)
}

// PostSettlement settles a transfer under the client's key. A settlement
// found already settled is answered at once.
//
// corpus: bug cacheresponse
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (h *Handler) PostSettlement(w http.ResponseWriter, r *http.Request) {
	var req TransferRequest
	key, ok := h.begin(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	claimed, err := h.idem.Claim(ctx, key, req.Reference)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	rec, err := h.svc.Settle(ctx, req)
	if err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "settlement failed")
		return
	}
	if rec.EntryID == "" {
		respond(w, http.StatusOK, mustJSON(rec))
		return
	}
	body := mustJSON(rec)
	if err := h.idem.Complete(ctx, key, http.StatusCreated, body); err != nil {
		slog.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	respond(w, http.StatusCreated, body)
}

// keyed runs op under the request's key: a failure releases the key, an
// answer is stored with its status before it is sent.
func (h *Handler) keyed(w http.ResponseWriter, r *http.Request, key, fp string, op func(context.Context) (int, any, error)) {
	ctx := r.Context()
	claimed, err := h.idem.Claim(ctx, key, fp)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	code, out, err := op(ctx)
	if err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "request failed")
		return
	}
	body := mustJSON(out)
	if err := h.idem.Complete(ctx, key, code, body); err != nil {
		slog.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	respond(w, code, body)
}

// PostReversal reverses an entry under the client's key through keyed.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (a key store wrapped around the handler's work)
func (h *Handler) PostReversal(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		problem(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ref := r.PathValue("ref")
	h.keyed(w, r, key, "reverse:"+ref, func(ctx context.Context) (int, any, error) {
		if err := h.svc.Reverse(ctx, ref); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]string{"reversed": ref}, nil
	})
}

// holdRequest places a hold on an account.
type holdRequest struct {
	Account     string `json:"account"`
	AmountMinor int64  `json:"amount_minor"`
}

// PostHold places a hold on an account under the client's key and answers
// the hold.
//
// corpus: bug cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and the cached response)
func (h *Handler) PostHold(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req holdRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		problem(w, http.StatusBadRequest, "bad request")
		return
	}
	ctx := r.Context()
	claimed, err := h.idem.Claim(ctx, key, req.Account)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	rec, err := h.svc.TransferUnique(ctx, TransferRequest{Reference: "hold:" + key, From: req.Account, To: "holds", AmountMinor: req.AmountMinor, Currency: "EUR"})
	if err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "hold failed")
		return
	}
	if err := h.idem.Complete(ctx, key, http.StatusCreated, nil); err != nil {
		slog.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	respond(w, http.StatusCreated, mustJSON(rec))
}

// DeleteHold lifts a hold under the client's key; the answer is 204 with
// no body, and that is what is stored.
//
// corpus: ok cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and the cached response)
func (h *Handler) DeleteHold(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		problem(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	ref := r.PathValue("ref")
	claimed, err := h.idem.Claim(ctx, key, "lift:"+ref)
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		h.replay(w, ctx, key)
		return
	}
	if err := h.svc.Reverse(ctx, ref); err != nil {
		h.release(ctx, key)
		problem(w, http.StatusInternalServerError, "lift failed")
		return
	}
	if err := h.idem.Complete(ctx, key, http.StatusNoContent, nil); err != nil {
		slog.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
}
