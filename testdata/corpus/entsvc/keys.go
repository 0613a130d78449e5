package entsvc

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"

	"example.com/corpus/entsvc/ent"
)

// RecordPayment retries the insert of a payment row whose idempotency key
// is made anew on every try: a try that timed out after the insert leaves
// a row the next try does not collide with.
// corpus: bug attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RecordPayment(ctx context.Context, amount int64) (*ent.Payment, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p, err := s.client.Payment.Create().
			SetIdempotencyKey(uuid.NewString()).
			SetAmount(amount).
			SetStatus("pending").
			Save(ctx)
		if err == nil {
			return p, nil
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return nil, lastErr
}

// RecordRefund makes the refund's key inside the backoff operation.
// corpus: bug attemptkey
// modelled on: cenkalti/backoff README.md (backoff.Retry of an operation with an exponential backoff)
func (s *Service) RecordRefund(ctx context.Context, paymentID int, amount int64) error {
	return backoff.Retry(func() error {
		return s.client.Refund.Create().
			SetIdempotencyKey(uuid.New().String()).
			SetPaymentID(paymentID).
			SetAmount(amount).
			SetStatus("requested").
			Exec(ctx)
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// ServeCreatePayment makes the payment's key on the server, for each
// request: a client's retry of a timed-out request records a second one.
// corpus: bug attemptkey
// modelled on: Fos7erX/nodejs-payment-service src/idempotencyKey/idempotency-key.entity.ts (a key row whose key should come from the client)
func (s *Service) ServeCreatePayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := s.client.Payment.Create().
		SetIdempotencyKey(uuid.NewString()).
		SetAmount(1000).
		SetStatus("pending").
		Save(ctx)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%d}`, p.ID)
}

// RecordPaymentCounted keys each try by its attempt number.
// corpus: bug attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RecordPaymentCounted(ctx context.Context, orderID string, amount int64) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		err = s.client.Payment.Create().
			SetIdempotencyKey(fmt.Sprintf("%s-%d", orderID, attempt)).
			SetAmount(amount).
			SetStatus("pending").
			Exec(ctx)
		if err == nil {
			return nil
		}
	}
	return err
}

// RecordPaymentOnce makes the key once, before the retries: every try
// inserts the same row, and the second finds it.
// corpus: ok attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RecordPaymentOnce(ctx context.Context, amount int64) (*ent.Payment, error) {
	key := uuid.NewString()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p, err := s.client.Payment.Create().
			SetIdempotencyKey(key).
			SetAmount(amount).
			SetStatus("pending").
			Save(ctx)
		if err == nil {
			return p, nil
		}
		if ent.IsConstraintError(err) {
			return nil, nil
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return nil, lastErr
}

// ServeCreatePaymentKeyed takes the payment's key from the client.
// corpus: ok attemptkey
// modelled on: Fos7erX/nodejs-payment-service src/idempotencyKey/idempotency-key.entity.ts (a key row whose key comes from the client)
func (s *Service) ServeCreatePaymentKeyed(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	p, err := s.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(1000).
		SetStatus("pending").
		Save(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%d}`, p.ID)
}

// RecordRefundDerived derives the refund's key from the payment inside the
// retried operation: every try makes the same one.
// corpus: ok attemptkey
// modelled on: cenkalti/backoff README.md (backoff.Retry of an operation with an exponential backoff)
func (s *Service) RecordRefundDerived(ctx context.Context, paymentID int, amount int64) error {
	return backoff.Retry(func() error {
		key := uuid.NewSHA1(uuid.NameSpaceURL, []byte(fmt.Sprintf("refund:%d:%d", paymentID, amount))).String()
		return s.client.Refund.Create().
			SetIdempotencyKey(key).
			SetPaymentID(paymentID).
			SetAmount(amount).
			SetStatus("requested").
			Exec(ctx)
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// RecordRefundRef gives each try a fresh provider reference, which is no
// key: the refund is keyed by the caller's key, made outside the loop.
// corpus: ok attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RecordRefundRef(ctx context.Context, key string, paymentID int, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = s.client.Refund.Create().
			SetIdempotencyKey(key).
			SetPaymentID(paymentID).
			SetAmount(amount).
			SetProviderRef(uuid.NewString()).
			SetStatus("requested").
			Exec(ctx)
		if err == nil || ent.IsConstraintError(err) {
			return nil
		}
	}
	return err
}
