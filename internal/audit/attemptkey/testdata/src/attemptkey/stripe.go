package attemptkey

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// A fresh key per attempt: Stripe sees three different charges.
func chargeRetrying(ctx context.Context, sc *stripe.Client, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(uuid.NewString()) // want `idempotency key made by uuid.NewString at stripe.go:17 inside the retry loop at stripe.go:15 reaches SetIdempotencyKey: every attempt sends a new key, so no retry is recognised as one; make the key once, before the retries, from the logical action \(attemptkey\)`
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// The key is made once, before the loop: every attempt shares it.
func chargeRetryingOnce(ctx context.Context, sc *stripe.Client, amount int64) error {
	key := uuid.NewString()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(key)
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// The field, set from stripe's own generator, inside a range over a count.
func chargeField(ctx context.Context, sc *stripe.Client, amount int64) error {
	var err error
	for range 3 {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.IdempotencyKey = stripe.String(stripe.NewIdempotencyKey()) // want `idempotency key made by stripe.NewIdempotencyKey at stripe.go:46 inside the retry loop at stripe.go:44 reaches IdempotencyKey`
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
	}
	return err
}

// The key derives from the order: stable across attempts.
func chargeDerived(ctx context.Context, sc *stripe.Client, orderID string, amount int64) error {
	var err error
	for range 3 {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.IdempotencyKey = stripe.String(fmt.Sprintf("order:%s:charge", orderID))
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
	}
	return err
}

// Each order in a batch gets its own key: a loop over items, not a retry.
func chargeEach(ctx context.Context, sc *stripe.Client, amounts []int64) {
	for i := 0; i < len(amounts); i++ {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amounts[i])}
		params.SetIdempotencyKey(uuid.NewString())
		sc.V1PaymentIntents.Create(ctx, params)
	}
}

// A retry helper retries the function literal.
func chargeWithHelper(ctx context.Context, sc *stripe.Client, amount int64) error {
	return retryDo(3, func() error {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey("charge-" + uuid.New().String()) // want `idempotency key made by uuid.New at stripe.go:80 inside the function retried by retryDo at stripe.go:78 reaches SetIdempotencyKey`
		_, err := sc.V1PaymentIntents.Create(ctx, params)
		return err
	})
}

// The same helper, the key made outside it.
func chargeWithHelperOnce(ctx context.Context, sc *stripe.Client, amount int64) error {
	key := "charge-" + uuid.New().String()
	return retryDo(3, func() error {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(key)
		_, err := sc.V1PaymentIntents.Create(ctx, params)
		return err
	})
}

func retryDo(attempts int, f func() error) error {
	var err error
	for range attempts {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}
