// Package outbound holds the clients the shop calls partners with, each of
// which puts an Idempotency-Key on its POSTs.
package outbound

import (
	"net/http"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"
)

// NewFulfilmentClient builds the fulfilment client: three retries, and a
// middleware that gives a POST a key unless it has one. resty keeps a
// request's headers from one attempt to the next, so the key the first
// attempt set is the one every retry sends.
//
// corpus: ok attemptkey
// modelled on: go-resty/resty middleware.go (parseRequestHeader merges the request's own headers, kept across attempts, over the client's)
func NewFulfilmentClient(base string) *resty.Client {
	c := resty.New().
		SetBaseURL(base).
		SetRetryCount(3).
		SetRetryWaitTime(time.Second)
	c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {
		if r.Method != http.MethodPost {
			return nil
		}
		if r.Header.Get("Idempotency-Key") == "" {
			r.SetHeader("Idempotency-Key", uuid.NewString())
		}
		return nil
	})
	return c
}

// NewCarrierClient gives a POST a key unless it has one, but checks the
// wrong header: every attempt finds no trace header set by the caller and
// makes a new key.
//
// corpus: bug attemptkey
// modelled on: go-resty/resty middleware.go (parseRequestHeader merges the request's own headers, kept across attempts, over the client's)
func NewCarrierClient(base string) *resty.Client {
	c := resty.New().
		SetBaseURL(base).
		SetRetryCount(3).
		SetRetryWaitTime(time.Second)
	c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {
		if r.Header.Get("X-Trace-Id") == "" {
			r.SetHeader("Idempotency-Key", uuid.NewString())
		}
		return nil
	})
	return c
}

// keyTransport puts a key on each POST that has none.
type keyTransport struct {
	next http.RoundTripper
}

// RoundTrip sets the key on a copy of the request, as a RoundTripper must
// not change the one it is given: the original never gets the key, so
// each attempt of a retrying client above finds none and makes another.
//
// corpus: bug attemptkey
// modelled on: hashicorp/go-retryablehttp client.go (Do hands the same request to the transport on every attempt)
func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Header.Get("Idempotency-Key") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	return t.next.RoundTrip(req)
}
