package attemptkey

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// A hook that sets the key only while the request has none sets it once:
// the retrying client hands the same request to every attempt, which
// keeps the header the first one set.
func newGuardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if req.Header.Get("Idempotency-Key") == "" {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return nil
	}
	return c
}

func newEarlyGuardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if req.Header.Get("Idempotency-Key") != "" {
			return nil
		}
		req.Header.Set("Idempotency-Key", uuid.NewString())
		return nil
	}
	return c
}

// The guard reads another header than the one it sets.
func newMisguardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if req.Header.Get("Authorization") == "" {
			req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the request hook PrepareRetry`
		}
		return nil
	}
	return c
}

// A transport that sets the key on a copy of the request finds the
// original without one on every attempt.
type guardedCloneTransport struct{ next http.RoundTripper }

func (t *guardedCloneTransport) RoundTrip(req *http.Request) (*http.Response, error) { // want RoundTrip:"parameter 0 reaches RoundTrip"
	if req.Header.Get("Idempotency-Key") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the HTTP transport RoundTrip`
	}
	return t.next.RoundTrip(req)
}

// A request built afresh on each turn of a retry loop never has one.
func postGuardedEachTurn(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if req.Header.Get("Idempotency-Key") == "" {
			req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the retry loop at guarded.go:\d+ reaches the Idempotency-Key header`
		}
		var resp *http.Response
		if resp, err = hc.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return err
}

func newIndexGuardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if _, ok := req.Header["Idempotency-Key"]; !ok {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return nil
	}
	return c
}

func newValuesGuardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if len(req.Header.Values("Idempotency-Key")) == 0 {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return nil
	}
	return c
}

func newIndexEarlyGuardedRetryableClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 4
	c.PrepareRetry = func(req *http.Request) error {
		if _, ok := req.Header["Idempotency-Key"]; ok {
			return nil
		}
		req.Header.Set("Idempotency-Key", uuid.NewString())
		return nil
	}
	return c
}
