package attemptkey

import (
	"context"
	"net/http"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/google/uuid"
)

type payments struct{ hc *http.Client }

func (p *payments) post(ctx context.Context, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example.com/charges", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	_, err = p.hc.Do(req)
	return err
}

// failsafe-go runs a function again under a retry policy, whether the
// policy is handed to Run or to the executor that runs it.
func chargeUnderPolicy(ctx context.Context, p *payments) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(3).Build()
	return failsafe.Run(func() error {
		return p.post(ctx, uuid.NewString()) // want `inside the function retried by Run at failsafe.go:\d+ reaches post, whose key parameter reaches the Idempotency-Key header`
	}, rp)
}

func chargeUnderExecutor(ctx context.Context, p *payments) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(3).Build()
	return failsafe.With[any](rp).WithContext(ctx).Run(func() error {
		return p.post(ctx, uuid.NewString()) // want `inside the function retried by Run`
	})
}

func chargeUnderHeldExecutor(ctx context.Context, p *payments) (string, error) {
	exec := failsafe.With[string](retrypolicy.NewBuilder[string]().WithMaxRetries(3).Build())
	return exec.Get(func() (string, error) {
		key := uuid.NewString()
		return key, p.post(ctx, key) // want `inside the function retried by Get`
	})
}

func chargeUnderPolicyOnce(ctx context.Context, p *payments) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(3).Build()
	key := uuid.NewString()
	return failsafe.With[any](rp).Run(func() error {
		return p.post(ctx, key)
	})
}

// A circuit breaker fails fast; it never runs the function again.
func chargeUnderBreaker(ctx context.Context, p *payments) error {
	cb := circuitbreaker.NewWithDefaults[any]()
	return failsafe.With[any](cb).Run(func() error {
		return p.post(ctx, uuid.NewString())
	})
}
