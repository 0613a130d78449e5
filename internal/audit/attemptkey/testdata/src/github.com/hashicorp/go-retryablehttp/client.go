// Package retryablehttp is a minimal copy of go-retryablehttp's client,
// which retries a request and calls its hooks for each attempt.
package retryablehttp

import "net/http"

type Logger interface{}

type Client struct {
	HTTPClient     *http.Client
	RetryMax       int
	RequestLogHook func(Logger, *http.Request, int)
	PrepareRetry   func(*http.Request) error
}

func NewClient() *Client { return &Client{} }
