package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	gofrsuuid "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/segmentio/ksuid"
	"github.com/stripe/stripe-go/v82"
)

// checkoutRequest is the body of the checkout endpoints.
type checkoutRequest struct {
	OrderID       string `json:"order_id"`
	PaymentMethod string `json:"payment_method"`
	AmountCents   int64  `json:"amount_cents"`
	Currency      string `json:"currency"`
}

// paymentIntent builds the PaymentIntent of a checkout.
func paymentIntent(req checkoutRequest, customer string) *stripe.PaymentIntentCreateParams {
	p := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(req.AmountCents),
		Currency:      stripe.String(req.Currency),
		Customer:      stripe.String(customer),
		PaymentMethod: stripe.String(req.PaymentMethod),
		Confirm:       stripe.Bool(true),
	}
	p.AddMetadata("order_id", req.OrderID)
	return p
}

// Checkout charges the user's order. The idempotency key is made here,
// once per request, so the client's retry of the same checkout is a new
// charge to Stripe.
//
// corpus: bug attemptkey
// modelled on: metinatakli/movie-reservation-system internal/app/payment.go (the checkout handler that calls the payment provider)
func (s *Server) Checkout(w http.ResponseWriter, r *http.Request) {
	var req checkoutRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	params := paymentIntent(req, userID(r))
	params.IdempotencyKey = stripe.String(uuid.NewString())
	pi, err := s.stripe.V1PaymentIntents.Create(r.Context(), params)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payment failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"payment_intent": pi.ID, "status": string(pi.Status)})
}

// CheckoutKeyed charges the user's order under the Idempotency-Key the
// client sent, so that its retries are the same charge.
//
// corpus: ok attemptkey
// modelled on: metinatakli/movie-reservation-system internal/app/payment.go (the checkout handler that calls the payment provider)
func (s *Server) CheckoutKeyed(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req checkoutRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	params := paymentIntent(req, userID(r))
	params.IdempotencyKey = stripe.String("checkout:" + userID(r) + ":" + key)
	pi, err := s.stripe.V1PaymentIntents.Create(r.Context(), params)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payment failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"payment_intent": pi.ID, "status": string(pi.Status)})
}

// RefundOrderNow refunds an order from the support console; the key
// carries the order and the time of the request.
//
// corpus: bug attemptkey
// modelled on: churchkhelass/acapella src/lib/utils/idempotency.ts (generateIdempotencyKey: a key from the current time and a random suffix)
func (s *Server) RefundOrderNow(w http.ResponseWriter, r *http.Request) {
	orderID := r.PathValue("order")
	var req struct {
		PaymentIntent string `json:"payment_intent"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(req.PaymentIntent)}
	params.SetIdempotencyKey(fmt.Sprintf("refund-%s-%d", orderID, time.Now().UnixNano()))
	ref, err := s.stripe.V1Refunds.Create(r.Context(), params)
	if err != nil {
		writeError(w, http.StatusBadGateway, "refund failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"refund": ref.ID})
}

// PayDeposit charges the deposit of a reservation; the key is the
// reservation's, so every retry is the same deposit.
//
// corpus: ok attemptkey
// modelled on: metinatakli/movie-reservation-system internal/app/payment.go (the checkout handler that calls the payment provider)
func (s *Server) PayDeposit(w http.ResponseWriter, r *http.Request) {
	reservationID := r.PathValue("id")
	var req checkoutRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	params := paymentIntent(req, userID(r))
	params.SetIdempotencyKey(fmt.Sprintf("deposit-%s", reservationID))
	pi, err := s.stripe.V1PaymentIntents.Create(r.Context(), params)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payment failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"payment_intent": pi.ID})
}

// giftRequest is the body of the gift endpoints.
type giftRequest struct {
	RecipientIBAN string `json:"recipient_iban"`
	AmountCents   int64  `json:"amount_cents"`
}

// SendGift sends money to a friend's bank account through the payments
// partner, under a key made for this request.
//
// corpus: bug attemptkey
// modelled on: appleboy/go-httpretry README.md (a POST to a partner API with its headers set per request)
func (s *Server) SendGift(w http.ResponseWriter, r *http.Request) {
	var req giftRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	body, _ := json.Marshal(map[string]any{"from": userID(r), "iban": req.RecipientIBAN, "amount": req.AmountCents})
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.paymentsURL+"/v1/credit-transfers", bytes.NewReader(body))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("Idempotency-Key", ksuid.New().String())
	resp, err := s.http.Do(out)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner unreachable")
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
}

// SendGiftKeyed sends money to a friend's bank account through the
// payments partner, under the client's Idempotency-Key.
//
// corpus: ok attemptkey
// modelled on: appleboy/go-httpretry README.md (a POST to a partner API with its headers set per request)
func (s *Server) SendGiftKeyed(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	var req giftRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	body, _ := json.Marshal(map[string]any{"from": userID(r), "iban": req.RecipientIBAN, "amount": req.AmountCents})
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.paymentsURL+"/v1/credit-transfers", bytes.NewReader(body))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("Idempotency-Key", "gift:"+userID(r)+":"+key)
	resp, err := s.http.Do(out)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner unreachable")
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
}

// CashIn pulls money from the user's bank for a wallet top-up the app
// started; the key for the partner is minted per request.
//
// corpus: bug attemptkey
// modelled on: stepanleas/event-driven-go exercise.md (the Idempotency-Key generated on our side when the request has none)
func (s *Server) CashIn(w http.ResponseWriter, r *http.Request) {
	var req topUpRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	key := gofrsuuid.Must(gofrsuuid.NewV4()).String()
	debitID, err := s.pullFunds(r.Context(), userID(r), req.AmountCents, key)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"debit_id": debitID})
}

// CashInForTopUp pulls money from the user's bank for a top-up the app
// created first; the key is the top-up's ID from the path, the same on
// every retry.
//
// corpus: ok attemptkey
// modelled on: stepanleas/event-driven-go exercise.md (the Idempotency-Key propagated from the request to the side effect)
func (s *Server) CashInForTopUp(w http.ResponseWriter, r *http.Request) {
	var req topUpRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	topUpID := r.PathValue("topup")
	debitID, err := s.pullFunds(r.Context(), userID(r), req.AmountCents, "topup-"+topUpID)
	if err != nil {
		writeError(w, http.StatusBadGateway, "payments partner failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"debit_id": debitID})
}
