package outbound

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// NewPayoutClient builds the payouts client on go-retryablehttp; its
// PrepareRetry gives a request a key only while it has none, and the
// client hands the same request to every retry, so the first key stays.
//
// corpus: ok attemptkey
// modelled on: hashicorp/go-retryablehttp client.go (PrepareRetry is called with the same request before each retry)
func NewPayoutClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 5
	c.PrepareRetry = func(req *http.Request) error {
		if _, ok := req.Header["Idempotency-Key"]; !ok {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return nil
	}
	return c
}
