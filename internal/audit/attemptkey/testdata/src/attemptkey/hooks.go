package attemptkey

import (
	"net/http"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// A client that retries runs its request hooks before each attempt.
func newRestyClient() *resty.Client {
	c := resty.New().SetRetryCount(3)
	c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {
		r.SetHeader("Idempotency-Key", uuid.NewString()) // want `inside the request hook given to OnBeforeRequest at hooks.go:\d+ reaches the Idempotency-Key header: it runs for each attempt`
		return nil
	})
	return c
}

func newRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the request hook PrepareRetry`
		return nil
	}
	c.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		req.Header.Set("X-Request-Id", uuid.NewString())
	}
	return c
}

// A hook of a client that never retries runs once per call.
type plainClient struct {
	Before func(*http.Request)
}

func newPlainClient() *plainClient {
	c := &plainClient{}
	c.Before = func(req *http.Request) {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	return c
}
