package idemhttp

import (
	"crypto/rand"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Defaults for Transport fields left zero.
const (
	DefaultAttempts = 4
	DefaultBackoff  = 200 * time.Millisecond
	DefaultMaxWait  = 30 * time.Second
)

// Transport is an http.RoundTripper for calling an API that takes Idempotency-Key: each
// RoundTrip is one logical operation, sent with one key — the request's own, or a fresh one —
// and every retry of it reuses that key, so the server runs the operation once however many
// attempts it takes. It retries what a key makes safe to retry: a lost connection, a 409 (the
// first attempt still running) or a 429 or 5xx, waiting as long as the server's Retry-After says
// when it says so. A request whose body cannot be replayed (no GetBody) is sent once.
type Transport struct {
	// Base sends each attempt. Default http.DefaultTransport.
	Base http.RoundTripper
	// Attempts bounds the tries of one operation. Default DefaultAttempts.
	Attempts int
	// Backoff is the first wait when the server gives no Retry-After; it doubles per attempt.
	// Default DefaultBackoff.
	Backoff time.Duration
	// MaxWait caps any single wait, including one the server asks for. Default DefaultMaxWait.
	MaxWait time.Duration
	// Methods that get a key. Default POST and PATCH; other requests pass through once.
	Methods []string
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	methods := t.Methods
	if len(methods) == 0 {
		methods = []string{http.MethodPost, http.MethodPatch}
	}
	keyed := false
	for _, m := range methods {
		keyed = keyed || req.Method == m
	}
	if !keyed {
		return base.RoundTrip(req)
	}
	key := req.Header.Get(HeaderKey)
	if key == "" {
		key = strconv.Quote(rand.Text()) // an RFC 9651 String: base32 needs no escaping
	}
	attempts := t.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		attempts = 1
	}
	wait := t.Backoff
	if wait <= 0 {
		wait = DefaultBackoff
	}
	for attempt := 1; ; attempt++ {
		r := req.Clone(req.Context()) // RoundTrip must not change the caller's request
		r.Header.Set(HeaderKey, key)
		if attempt > 1 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		resp, err := base.RoundTrip(r)
		if attempt == attempts || !retryable(resp, err) || req.Context().Err() != nil {
			return resp, err
		}
		d := wait
		if resp != nil {
			if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
				d = ra
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
			resp.Body.Close()
		}
		maxWait := t.MaxWait
		if maxWait <= 0 {
			maxWait = DefaultMaxWait
		}
		timer := time.NewTimer(min(d, maxWait))
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		wait *= 2
	}
}

// retryable: every transport error is worth another attempt — with a key, a repeated request
// cannot run the operation twice — as are the answers that mean "not now".
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return true
	}
	return resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// parseRetryAfter reads Retry-After as delay-seconds or an HTTP-date.
func parseRetryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0), true
	}
	return 0, false
}
