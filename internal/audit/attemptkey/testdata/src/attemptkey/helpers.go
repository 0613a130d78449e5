package attemptkey

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/stripe/stripe-go/v82"
)

// cenkalti/backoff retries the operation: a key made in it is new on every
// attempt.
func backoffRetry(ctx context.Context, sc *stripe.Client) error {
	return backoff.Retry(func() error {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey(uuid.NewString()) // want `made by uuid.NewString at helpers.go:\d+ inside the function retried by Retry at helpers.go:\d+ reaches SetIdempotencyKey`
		_, err := sc.V1PaymentIntents.Create(ctx, params)
		return err
	}, backoff.NewExponentialBackOff())
}

// The operation bound to a variable first, as backoff's examples do.
func backoffRetryNotify(ctx context.Context, url string) error {
	op := func() error {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header["Idempotency-Key"] = []string{ulid.Make().String()} // want `made by ulid.Make at helpers.go:\d+ inside the function retried by RetryNotify at helpers.go:\d+ reaches the Idempotency-Key header`
		_, err := http.DefaultClient.Do(req)
		return err
	}
	return backoff.RetryNotify(op, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), func(error, time.Duration) {})
}

// The key made once, outside the operation.
func backoffRetryOnce(ctx context.Context, url string) error {
	key := ulid.Make().String()
	op := func() error {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header["Idempotency-Key"] = []string{key}
		_, err := http.DefaultClient.Do(req)
		return err
	}
	return backoff.RetryNotify(op, backoff.NewExponentialBackOff(), nil)
}

// avast/retry-go.
func retryGo(ctx context.Context, sc *stripe.Client) error {
	return retry.Do(func() error {
		params := &stripe.PaymentIntentCreateParams{}
		params.IdempotencyKey = stripe.String(uuid.NewString()) // want `inside the function retried by Do at helpers.go:\d+ reaches IdempotencyKey`
		_, err := sc.V1PaymentIntents.Create(ctx, params)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
}

func retryGoOrder(ctx context.Context, sc *stripe.Client, orderID string) error {
	return retry.Do(func() error {
		params := &stripe.PaymentIntentCreateParams{}
		params.IdempotencyKey = stripe.String("order:" + orderID)
		_, err := sc.V1PaymentIntents.Create(ctx, params)
		return err
	}, retry.Attempts(3))
}

// A hand-written helper whose name says nothing of retries: it calls its
// function in a loop.
func persist(ctx context.Context, f func(context.Context) error) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = f(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i) * 100 * time.Millisecond)
	}
	return err
}

// And one that hands it to backoff, named for neither.
func durably(f func() error) error {
	return backoff.Retry(f, backoff.NewExponentialBackOff())
}

func chargePersisted(ctx context.Context, sc *stripe.Client) error {
	return persist(ctx, func(ctx context.Context) error {
		return chargeOnce(ctx, sc, uuid.NewString()) // want `inside the function retried by persist at helpers.go:\d+ reaches chargeOnce`
	})
}

func chargePersistedBackoff(ctx context.Context, sc *stripe.Client) error {
	return durably(func() error {
		return chargeOnce(ctx, sc, uuid.NewString()) // want `inside the function retried by durably`
	})
}

// A helper that runs its function once (a span, a transaction) is no retry.
func traced(ctx context.Context, name string, f func(context.Context) error) error {
	return f(ctx)
}

func chargeTraced(ctx context.Context, sc *stripe.Client) error {
	return traced(ctx, "charge", func(ctx context.Context) error {
		return chargeOnce(ctx, sc, uuid.NewString())
	})
}

// A poll until a condition holds calls its function again and again.
func pollUntil(ctx context.Context, interval time.Duration, cond func(context.Context) (bool, error)) error {
	return nil
}

func awaitCharge(ctx context.Context, sc *stripe.Client) error {
	return pollUntil(ctx, time.Second, func(ctx context.Context) (bool, error) {
		return chargeOnce(ctx, sc, uuid.NewString()) == nil, nil // want `inside the function retried by pollUntil`
	})
}

// A request body's idempotency_key entry.
func postJSON(ctx context.Context, post func(context.Context, map[string]any) error) error {
	var err error
	for range 3 {
		if err = post(ctx, map[string]any{"trace_id": uuid.NewString(), "idempotency_key": uuid.NewString()}); err == nil { // want `reaches the idempotency_key entry`
			return nil
		}
	}
	return err
}

// Each attempt numbered in its key: the provider sees four requests.
func chargeNumbered(ctx context.Context, sc *stripe.Client, orderID string) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = chargeOnce(ctx, sc, fmt.Sprintf("%s-%d", orderID, attempt)); err == nil { // want `made by the attempt counter attempt at helpers.go:\d+ inside the retry loop`
			return nil
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	for i := range 3 {
		if err = chargeOnce(ctx, sc, orderID+"-"+strconv.Itoa(i)); err == nil { // want `made by the attempt counter i`
			return nil
		}
	}
	return err
}

// The attempt number in a header beside the key is no key.
func chargeCounted(ctx context.Context, url, orderID string) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header.Set("Idempotency-Key", "order-"+orderID)
		req.Header.Set("X-Attempt", strconv.Itoa(attempt))
		if _, err = http.DefaultClient.Do(req); err == nil {
			return nil
		}
	}
	return err
}

// A batch's index names each item's key: no retry.
func chargeIndexed(ctx context.Context, sc *stripe.Client, orderID string, amounts []int64) {
	for i := 0; i < len(amounts); i++ {
		chargeOnce(ctx, sc, fmt.Sprintf("%s-%d", orderID, i))
	}
}
