// Package resilience holds the outgoing clients that lean on resilience
// libraries and HTTP plumbing (policies, transports, interceptors) to
// retry their calls to the refunds, payouts and workflow services.
package resilience

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/google/uuid"
)

// Refund asks the payment service to return money on a charge.
type Refund struct {
	ChargeID string `json:"charge_id"`
	Amount   int64  `json:"amount"`
	Reason   string `json:"reason"`
}

// RefundsClient calls the payment service's refunds API under a retry
// policy built once for the client.
type RefundsClient struct {
	HTTP    *http.Client
	BaseURL string
	policy  retrypolicy.RetryPolicy[any]
}

// NewRefundsClient retries transport failures three times, a second
// apart and doubling.
func NewRefundsClient(hc *http.Client, base string) *RefundsClient {
	rp := retrypolicy.NewBuilder[any]().
		WithMaxRetries(3).
		WithBackoff(time.Second, 8*time.Second).
		Build()
	return &RefundsClient{HTTP: hc, BaseURL: base, policy: rp}
}

// post sends one refund request under the key it is given.
func (c *RefundsClient) post(ctx context.Context, key string, r Refund) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/refunds", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("refunds: answered %d", resp.StatusCode)
	}
	return nil
}

// Refund runs the request under the client's retry policy, and draws the
// key inside the function the policy runs again: a timeout after the
// refund was made is refunded a second time.
//
// corpus: bug attemptkey
// modelled on: failsafe-go/failsafe-go README.md (a call wrapped in failsafe.With(retryPolicy).Run)
func (c *RefundsClient) Refund(ctx context.Context, r Refund) error {
	return failsafe.With[any](c.policy).WithContext(ctx).Run(func() error {
		return c.post(ctx, uuid.NewString(), r)
	})
}

// RefundOnce draws the key before handing the call to the policy, so each
// retry carries the first attempt's key.
//
// corpus: ok attemptkey
// modelled on: failsafe-go/failsafe-go README.md (a call wrapped in failsafe.With(retryPolicy).Run)
func (c *RefundsClient) RefundOnce(ctx context.Context, r Refund) error {
	key := uuid.NewString()
	return failsafe.With[any](c.policy).WithContext(ctx).Run(func() error {
		return c.post(ctx, key, r)
	})
}

// RefundFor keeps an executor and hands it a function that makes the key
// from the clock: every run of it is a new refund to the service.
//
// corpus: bug attemptkey
// modelled on: failsafe-go/failsafe-go README.md (an executor built from policies and reused)
func (c *RefundsClient) RefundFor(ctx context.Context, r Refund) error {
	exec := failsafe.With[any](c.policy)
	return exec.Run(func() error {
		key := fmt.Sprintf("refund-%s-%d", r.ChargeID, time.Now().UnixNano())
		return c.post(ctx, key, r)
	})
}

// RefundForCharge names the refund by its charge and reason, the same for
// every run of the policy.
//
// corpus: ok attemptkey
// modelled on: failsafe-go/failsafe-go README.md (an executor built from policies and reused)
func (c *RefundsClient) RefundForCharge(ctx context.Context, r Refund) error {
	exec := failsafe.With[any](c.policy)
	return exec.Run(func() error {
		return c.post(ctx, "refund-"+r.ChargeID+"-"+r.Reason, r)
	})
}
