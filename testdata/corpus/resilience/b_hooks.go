package resilience

import (
	"context"
	"net/http"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// NewLedgerResty builds the ledger client: three retries, and a request
// middleware that puts an Idempotency-Key on every POST. resty runs its
// middleware before each attempt, so every retry carries a new key.
//
// corpus: bug attemptkey
// modelled on: go-resty/resty README.md (SetRetryCount with an OnBeforeRequest middleware that sets request headers)
func NewLedgerResty(base string) *resty.Client {
	c := resty.New().
		SetBaseURL(base).
		SetRetryCount(3).
		SetRetryWaitTime(500 * time.Millisecond)
	c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {
		if r.Method == http.MethodPost {
			r.SetHeader("Idempotency-Key", uuid.NewString())
		}
		return nil
	})
	return c
}

// NewLedgerRestyTraced tags each attempt with a request ID for the logs;
// the callers set the Idempotency-Key, once per entry.
//
// corpus: ok attemptkey
// modelled on: go-resty/resty README.md (SetRetryCount with an OnBeforeRequest middleware that sets request headers)
func NewLedgerRestyTraced(base string) *resty.Client {
	c := resty.New().
		SetBaseURL(base).
		SetRetryCount(3).
		SetRetryWaitTime(500 * time.Millisecond)
	c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {
		r.SetHeader("X-Request-Id", uuid.NewString())
		return nil
	})
	return c
}

// PostEntry posts a ledger entry under the caller's key.
func PostEntry(ctx context.Context, c *resty.Client, key string, entry any) error {
	_, err := c.R().SetContext(ctx).SetHeader("Idempotency-Key", key).SetBody(entry).Post("/v1/entries")
	return err
}

// NewPayoutsRetryable builds the payouts client on go-retryablehttp, and
// gives each retry a fresh key in PrepareRetry: the payout a timed-out
// first attempt made is made again.
//
// corpus: bug attemptkey
// modelled on: hashicorp/go-retryablehttp client.go (PrepareRetry, called on the request before each retry)
func NewPayoutsRetryable() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.RetryWaitMin = 200 * time.Millisecond
	c.PrepareRetry = func(req *http.Request) error {
		req.Header.Set("Idempotency-Key", uuid.NewString())
		return nil
	}
	return c
}

// NewPayoutsRetryableLogged counts attempts in a header for the
// service's logs and leaves the key the caller set alone.
//
// corpus: ok attemptkey
// modelled on: hashicorp/go-retryablehttp client.go (RequestLogHook, called with the request and the attempt number)
func NewPayoutsRetryableLogged() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		req.Header.Set("X-Attempt-Id", uuid.NewString())
	}
	return c
}
