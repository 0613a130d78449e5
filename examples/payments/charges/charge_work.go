// Written by idemkit devel from examples/payments/knowledge/projects/idempotency-charge.md, at the
// first generation. This file is yours: idemkit never writes it again. The code that makes charge
// idempotent is in charge_idem.go and is regenerated; it never refers to this file, so shape it as
// you like.

package charges

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/idemkit/idemkit/examples/payments/account"
	"github.com/idemkit/idemkit/examples/payments/processor"
)

// ChargeService is the charge endpoint's own code: it validates the request and charges the card
// through the processor, under the derived key keys.Charge.
type ChargeService struct {
	Processor Processor
}

// Processor is the card processor as Work uses it: the in-process fake (processor.New), or one
// shared by several instances of the service over HTTP (processor.NewClient).
type Processor interface {
	Charge(ctx context.Context, key string, amount int64, currency, card string) (processor.Charge, error)
}

// Tenant returns the account the request's token named (see account.Required), so that two
// accounts sending the same Idempotency-Key never meet.
func (s *ChargeService) Tenant(r *http.Request) (string, error) {
	if id := account.From(r.Context()); id != "" {
		return id, nil
	}
	return "", errors.New("no authenticated account")
}

// chargeRequest is the body of POST /v1/charges. sent_at, when a client sends it, is left out of
// the fingerprint (the spec excludes it), so a retry that refreshes it is still a retry.
type chargeRequest struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Card     string `json:"card"`
}

// Work charges the card once per Idempotency-Key. Its answers follow the runtime's rules: 201 and
// the charge, or 400 for a bad request and 402 for a declined card — all stored and replayed to
// retries — or 503 when the processor is unavailable, which releases the key so the retry charges.
// The processor deduplicates on keys.Charge, so even a retry that runs this again after a crash
// charges the card once. The request's X-Request-Id goes along, so the processor's record of each
// call names the request that made it.
func (s *ChargeService) Work(w http.ResponseWriter, r *http.Request, keys ChargeKeys) {
	var req chargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_json", "detail": err.Error()})
		return
	}
	if req.Amount <= 0 || len(req.Currency) != 3 || req.Card == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "detail": "amount > 0, a three-letter currency and a card are required"})
		return
	}
	ctx := processor.WithRequestID(r.Context(), r.Header.Get("X-Request-Id"))
	ch, err := s.Processor.Charge(ctx, keys.Charge, req.Amount, req.Currency, req.Card)
	switch {
	case errors.Is(err, processor.ErrDeclined):
		writeJSON(w, http.StatusPaymentRequired, map[string]string{"error": "card_declined"})
	case errors.Is(err, processor.ErrUnavailable):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "processor_unavailable"})
	case err != nil:
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "processor_error", "detail": err.Error()})
	default:
		writeJSON(w, http.StatusCreated, ch)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
