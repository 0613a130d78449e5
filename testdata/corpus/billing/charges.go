package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v82"

	"example.com/corpus/db"
)

// ChargeRequest asks for an order to be charged.
type ChargeRequest struct {
	OrderID       string
	CustomerID    string
	PaymentMethod string
	AmountCents   int64
	Currency      string
}

// fingerprint is what a replay of the request must match.
func (r ChargeRequest) fingerprint() string {
	return fmt.Sprintf("%s|%s|%d|%s", r.OrderID, r.CustomerID, r.AmountCents, r.Currency)
}

// ChargeResult is what a charge answers, and what a replay must answer.
type ChargeResult struct {
	PaymentIntentID string `json:"payment_intent_id"`
	Status          string `json:"status"`
	AmountCents     int64  `json:"amount_cents"`
}

var (
	// ErrDuplicateRequest means the idempotency key was used before.
	ErrDuplicateRequest = errors.New("billing: duplicate request")
	// ErrInProgress means a request with the key is still running.
	ErrInProgress = errors.New("billing: request in progress")
)

// storedResult answers a replay of key with the result stored when the
// first request completed, or ErrInProgress while it runs.
func (s *Service) storedResult(ctx context.Context, key string) (*ChargeResult, error) {
	prev, err := s.q.GetIdempotencyKey(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", key, err)
	}
	if prev.Status != "completed" {
		return nil, ErrInProgress
	}
	var res ChargeResult
	if err := json.Unmarshal(prev.ResponseBody, &res); err != nil {
		return nil, fmt.Errorf("replay %s: stored result: %w", key, err)
	}
	return &res, nil
}

// intentParams builds the PaymentIntent for req.
func intentParams(req ChargeRequest) *stripe.PaymentIntentCreateParams {
	p := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(req.AmountCents),
		Currency:      stripe.String(req.Currency),
		Customer:      stripe.String(req.CustomerID),
		PaymentMethod: stripe.String(req.PaymentMethod),
		Confirm:       stripe.Bool(true),
	}
	p.AddMetadata("order_id", req.OrderID)
	return p
}

// ChargeOrder charges the order at Stripe and tries again when the
// network fails, making a new key for every try.
//
// corpus: bug attemptkey
// modelled on: metinatakli/movie-reservation-system internal/payment/stripe.go (stripe-go params built per call)
func (s *Service) ChargeOrder(ctx context.Context, req ChargeRequest) (*stripe.PaymentIntent, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		params := intentParams(req)
		params.IdempotencyKey = stripe.String(uuid.NewString())
		pi, err := s.stripe.V1PaymentIntents.Create(ctx, params)
		if err == nil {
			return pi, nil
		}
		var serr *stripe.Error
		if errors.As(err, &serr) && serr.HTTPStatusCode < 500 {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("charge %s: %w", req.OrderID, lastErr)
}

// ChargeOrderOnce charges the order at Stripe and tries again when the
// network fails. The key is made once, before the first try, and kept on
// the order: a later call for the same order finds it there and reuses it.
//
// corpus: ok attemptkey
// modelled on: metinatakli/movie-reservation-system internal/payment/stripe.go (stripe-go params built per call)
func (s *Service) ChargeOrderOnce(ctx context.Context, req ChargeRequest) (*stripe.PaymentIntent, error) {
	var key string
	if err := s.pool.QueryRow(ctx,
		`UPDATE orders SET charge_key = coalesce(charge_key, $2) WHERE id = $1 RETURNING charge_key`,
		req.OrderID, uuid.NewString()).Scan(&key); err != nil {
		return nil, fmt.Errorf("charge %s: %w", req.OrderID, err)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		params := intentParams(req)
		params.IdempotencyKey = stripe.String(key)
		pi, err := s.stripe.V1PaymentIntents.Create(ctx, params)
		if err == nil {
			return pi, nil
		}
		var serr *stripe.Error
		if errors.As(err, &serr) && serr.HTTPStatusCode < 500 {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("charge %s: %w", req.OrderID, lastErr)
}

// TransferToSeller moves a seller's share to their connected account,
// retried by retry-go; each try draws a new key.
//
// corpus: bug attemptkey
// modelled on: stripe/stripe-go README.md (params structs and the Idempotency-Key they carry)
func (s *Service) TransferToSeller(ctx context.Context, p Payout, destination string) (*stripe.Transfer, error) {
	var tr *stripe.Transfer
	err := retry.Do(func() error {
		params := &stripe.TransferCreateParams{
			Amount:        stripe.Int64(p.AmountCents),
			Currency:      stripe.String("eur"),
			Destination:   stripe.String(destination),
			TransferGroup: stripe.String(p.Period),
		}
		params.SetIdempotencyKey(stripe.NewIdempotencyKey())
		var err error
		tr, err = s.stripe.V1Transfers.Create(ctx, params)
		return err
	}, retry.Context(ctx), retry.Attempts(4), retry.LastErrorOnly(true))
	if err != nil {
		return nil, fmt.Errorf("transfer %s: %w", p.ID, err)
	}
	return tr, nil
}

// TransferToSellerKeyed moves a seller's share to their connected
// account, retried by retry-go under the key stored with the payout when
// it was booked.
//
// corpus: ok attemptkey
// modelled on: stripe/stripe-go README.md (params structs and the Idempotency-Key they carry)
func (s *Service) TransferToSellerKeyed(ctx context.Context, p Payout, destination string) (*stripe.Transfer, error) {
	var tr *stripe.Transfer
	err := retry.Do(func() error {
		params := &stripe.TransferCreateParams{
			Amount:        stripe.Int64(p.AmountCents),
			Currency:      stripe.String("eur"),
			Destination:   stripe.String(destination),
			TransferGroup: stripe.String(p.Period),
		}
		params.SetIdempotencyKey(p.IdempotencyKey)
		var err error
		tr, err = s.stripe.V1Transfers.Create(ctx, params)
		return err
	}, retry.Context(ctx), retry.Attempts(4), retry.LastErrorOnly(true))
	if err != nil {
		return nil, fmt.Errorf("transfer %s: %w", p.ID, err)
	}
	return tr, nil
}

// CreateCharge charges an order once per client key. It claims the key,
// charges, and marks the key completed; a retry of a completed key is told
// only that it is a duplicate.
//
// corpus: bug cacheresponse
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) CreateCharge(ctx context.Context, key string, req ChargeRequest) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: req.fingerprint()}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, ErrDuplicateRequest
		}
		return nil, fmt.Errorf("create charge: %w", err)
	}
	params := intentParams(req)
	params.SetIdempotencyKey("charge:" + key)
	pi, err := s.stripe.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		if derr := s.q.DeleteIdempotencyKey(ctx, key); derr != nil {
			slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", derr)
		}
		return nil, fmt.Errorf("create charge: %w", err)
	}
	res := &ChargeResult{PaymentIntentID: pi.ID, Status: string(pi.Status), AmountCents: pi.Amount}
	if err := s.q.MarkIdempotencyKeyDone(ctx, key); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	return res, nil
}

// CreateChargeReplayable charges an order once per client key and keeps
// the result with the key, so that a retry gets the first answer back.
//
// corpus: ok cacheresponse
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) CreateChargeReplayable(ctx context.Context, key string, req ChargeRequest) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: req.fingerprint()}); err != nil {
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("create charge: %w", err)
		}
		return s.storedResult(ctx, key)
	}
	params := intentParams(req)
	params.SetIdempotencyKey("charge:" + key)
	pi, err := s.stripe.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		if derr := s.q.DeleteIdempotencyKey(ctx, key); derr != nil {
			slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", derr)
		}
		return nil, fmt.Errorf("create charge: %w", err)
	}
	res := &ChargeResult{PaymentIntentID: pi.ID, Status: string(pi.Status), AmountCents: pi.Amount}
	body, _ := json.Marshal(res)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{
		Key: key, ResponseCode: 201, ResponseBody: body,
	}); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	return res, nil
}

// CapturePayment captures an authorised payment once per client key.
//
// corpus: bug releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) CapturePayment(ctx context.Context, key, paymentIntentID string) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: paymentIntentID}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return s.storedResult(ctx, key)
		}
		return nil, fmt.Errorf("capture: %w", err)
	}
	params := &stripe.PaymentIntentCaptureParams{}
	params.SetIdempotencyKey("capture:" + key)
	pi, err := s.stripe.V1PaymentIntents.Capture(ctx, paymentIntentID, params)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", paymentIntentID, err)
	}
	res := &ChargeResult{PaymentIntentID: pi.ID, Status: string(pi.Status), AmountCents: pi.AmountReceived}
	body, _ := json.Marshal(res)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{Key: key, ResponseCode: 200, ResponseBody: body}); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	return res, nil
}

// CapturePaymentReleasing captures an authorised payment once per client
// key; a failed capture gives the key back for the client's retry.
//
// corpus: ok releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) CapturePaymentReleasing(ctx context.Context, key, paymentIntentID string) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: paymentIntentID}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return s.storedResult(ctx, key)
		}
		return nil, fmt.Errorf("capture: %w", err)
	}
	params := &stripe.PaymentIntentCaptureParams{}
	params.SetIdempotencyKey("capture:" + key)
	pi, err := s.stripe.V1PaymentIntents.Capture(ctx, paymentIntentID, params)
	if err != nil {
		if derr := s.q.DeleteIdempotencyKey(ctx, key); derr != nil {
			slog.ErrorContext(ctx, "release idempotency key", "key", key, "err", derr)
		}
		return nil, fmt.Errorf("capture %s: %w", paymentIntentID, err)
	}
	res := &ChargeResult{PaymentIntentID: pi.ID, Status: string(pi.Status), AmountCents: pi.AmountReceived}
	body, _ := json.Marshal(res)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{Key: key, ResponseCode: 200, ResponseBody: body}); err != nil {
		slog.ErrorContext(ctx, "complete idempotency key", "key", key, "err", err)
	}
	return res, nil
}

// order is the part of an order a refund needs.
type order struct {
	ID              string
	PaymentIntentID string
	AmountCents     int64
}

// loadOrder reads an order.
func (s *Service) loadOrder(ctx context.Context, id string) (order, error) {
	var o order
	err := s.pool.QueryRow(ctx,
		`SELECT id, payment_intent_id, amount_cents FROM orders WHERE id = $1`, id).
		Scan(&o.ID, &o.PaymentIntentID, &o.AmountCents)
	if err != nil {
		return order{}, fmt.Errorf("load order %s: %w", id, err)
	}
	return o, nil
}

// RefundOrder refunds an order in full once per client key. The release
// of the key is deferred only once the order has been loaded.
//
// corpus: bug releaseonerror
// modelled on: stepanleas/event-driven-go exercise.md (an Idempotency-Key taken from the request and carried to the side effect)
func (s *Service) RefundOrder(ctx context.Context, key, orderID string) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: orderID}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return s.storedResult(ctx, key)
		}
		return nil, fmt.Errorf("refund order: %w", err)
	}
	o, err := s.loadOrder(ctx, orderID)
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			_ = s.q.DeleteIdempotencyKey(context.WithoutCancel(ctx), key)
		}
	}()
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(o.PaymentIntentID)}
	params.SetIdempotencyKey("refund:" + key)
	r, err := s.stripe.V1Refunds.Create(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("refund order %s: %w", orderID, err)
	}
	res := &ChargeResult{PaymentIntentID: o.PaymentIntentID, Status: string(r.Status), AmountCents: r.Amount}
	body, _ := json.Marshal(res)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{Key: key, ResponseCode: 200, ResponseBody: body}); err != nil {
		return nil, fmt.Errorf("refund order: %w", err)
	}
	done = true
	return res, nil
}

// RefundOrderGuarded refunds an order in full once per client key; the
// release is deferred as soon as the key is claimed.
//
// corpus: ok releaseonerror
// modelled on: stepanleas/event-driven-go exercise.md (an Idempotency-Key taken from the request and carried to the side effect)
func (s *Service) RefundOrderGuarded(ctx context.Context, key, orderID string) (*ChargeResult, error) {
	if _, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{Key: key, Fingerprint: orderID}); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return s.storedResult(ctx, key)
		}
		return nil, fmt.Errorf("refund order: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = s.q.DeleteIdempotencyKey(context.WithoutCancel(ctx), key)
		}
	}()
	o, err := s.loadOrder(ctx, orderID)
	if err != nil {
		return nil, err
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(o.PaymentIntentID)}
	params.SetIdempotencyKey("refund:" + key)
	r, err := s.stripe.V1Refunds.Create(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("refund order %s: %w", orderID, err)
	}
	res := &ChargeResult{PaymentIntentID: o.PaymentIntentID, Status: string(r.Status), AmountCents: r.Amount}
	body, _ := json.Marshal(res)
	if err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{Key: key, ResponseCode: 200, ResponseBody: body}); err != nil {
		return nil, fmt.Errorf("refund order: %w", err)
	}
	done = true
	return res, nil
}

// InvoicePaid is the part of Stripe's invoice.paid event the service uses.
type InvoicePaid struct {
	EventID    string
	InvoiceID  string
	CustomerID string
	PaidAt     time.Time
}

// HandleInvoicePaid extends the customer's plan when Stripe reports an
// invoice paid. Stripe redelivers events; the event's ID is claimed first
// and marked processed at the end. There is nothing to answer a
// redelivery with but success.
//
// corpus: ok cacheresponse
// modelled on: stepanleas/event-driven-go exercise.md (deduplicating deliveries by a key carried in the event)
func (s *Service) HandleInvoicePaid(ctx context.Context, evt InvoicePaid) error {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO processed_events (event_id, status) VALUES ($1, 'processing')
		 ON CONFLICT (event_id) DO NOTHING`, evt.EventID)
	if err != nil {
		return fmt.Errorf("invoice paid: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx,
		`UPDATE subscriptions SET paid_through = $2 WHERE customer_id = $1`,
		evt.CustomerID, evt.PaidAt.AddDate(0, 1, 0)); err != nil {
		if _, derr := s.pool.Exec(ctx, `DELETE FROM processed_events WHERE event_id = $1`, evt.EventID); derr != nil {
			slog.ErrorContext(ctx, "release event", "event", evt.EventID, "err", derr)
		}
		return fmt.Errorf("invoice paid: %w", err)
	}
	if _, err := s.pool.Exec(ctx,
		`UPDATE processed_events SET status = 'processed' WHERE event_id = $1`, evt.EventID); err != nil {
		slog.ErrorContext(ctx, "mark event processed", "event", evt.EventID, "err", err)
	}
	return nil
}
