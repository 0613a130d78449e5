package outbound

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	gofrsuuid "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/segmentio/ksuid"
)

const maxAttempts = 4

// LedgerClient posts entries to the ledger service.
type LedgerClient struct {
	Client
	secret []byte
}

// PostEntry posts an entry, retrying on retryable answers. The key is drawn
// inside the loop, so a retry after a timeout on a posting the ledger made
// is posted a second time.
//
// corpus: bug attemptkey
// modelled on: xeoncross/retryrequest README.md (repeat the same request up to N times on 5xx and timeouts)
func (c *LedgerClient) PostEntry(ctx context.Context, e Entry) (*Posted, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/v1/entries", e)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Idempotency-Key", uuid.NewString())
		var out Posted
		lastErr = c.do(req, &out)
		if lastErr == nil {
			return &out, nil
		}
		if !errors.Is(lastErr, ErrRetryable) {
			return nil, lastErr
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// PostEntryOnce makes the key before the loop and sends it on every attempt.
//
// corpus: ok attemptkey
// modelled on: xeoncross/retryrequest README.md (repeat the same request up to N times on 5xx and timeouts)
func (c *LedgerClient) PostEntryOnce(ctx context.Context, e Entry) (*Posted, error) {
	key := uuid.NewString()
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/v1/entries", e)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Idempotency-Key", key)
		var out Posted
		lastErr = c.do(req, &out)
		if lastErr == nil {
			return &out, nil
		}
		if !errors.Is(lastErr, ErrRetryable) {
			return nil, lastErr
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// PostEntrySigned signs every attempt with the current time, as the ledger
// requires; the key is the entry's own ID and does not change.
//
// corpus: ok attemptkey
// modelled on: dmitrymomot/saaskit pkg/webhook/README.md (HMAC-signed requests retried with exponential backoff)
func (c *LedgerClient) PostEntrySigned(ctx context.Context, e Entry) (*Posted, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/v1/entries", e)
		if err != nil {
			return nil, err
		}
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		mac := hmac.New(sha256.New, c.secret)
		mac.Write([]byte(ts + "." + e.ID))
		req.Header.Set("Idempotency-Key", "entry-"+e.ID)
		req.Header.Set("X-Timestamp", ts)
		req.Header.Set("X-Signature", hex.EncodeToString(mac.Sum(nil)))
		var out Posted
		lastErr = c.do(req, &out)
		if lastErr == nil {
			return &out, nil
		}
		if !errors.Is(lastErr, ErrRetryable) {
			return nil, lastErr
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// SMSClient sends text messages through the SMS gateway.
type SMSClient struct {
	Client
}

// Send sends a text, retrying on retryable answers, with a random request
// token drawn for each attempt; a gateway timeout after delivery sends the
// text twice.
//
// corpus: bug attemptkey
// modelled on: flowchartsman/retry README.md (retry.Do around an HTTP call with exponential backoff)
func (c *SMSClient) Send(ctx context.Context, m SMS) error {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		raw := make([]byte, 18)
		if _, err := rand.Read(raw); err != nil {
			return err
		}
		req, err := c.newRequest(ctx, http.MethodPost, "/messages", m)
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", base64.RawURLEncoding.EncodeToString(raw))
		if lastErr = c.do(req, nil); lastErr == nil || !errors.Is(lastErr, ErrRetryable) {
			return lastErr
		}
		if err := pause(ctx, attempt); err != nil {
			return err
		}
	}
	return lastErr
}

// smsNamespace scopes the keys derived from message IDs.
var smsNamespace = uuid.MustParse("0b6f9c1e-8f43-4c8e-b3b4-2a5d7a9e6c10")

// SendDerived derives the key from the message's own ID inside the loop;
// every attempt computes the same key.
//
// corpus: ok attemptkey
// modelled on: flowchartsman/retry README.md (retry.Do around an HTTP call with exponential backoff)
func (c *SMSClient) SendDerived(ctx context.Context, m SMS) error {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/messages", m)
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", uuid.NewSHA1(smsNamespace, []byte(m.MessageID)).String())
		if lastErr = c.do(req, nil); lastErr == nil || !errors.Is(lastErr, ErrRetryable) {
			return lastErr
		}
		if err := pause(ctx, attempt); err != nil {
			return err
		}
	}
	return lastErr
}

// PayoutsClient calls the payout provider.
type PayoutsClient struct {
	Client
}

// CreatePayout retries through backoff.Retry; the operation closure makes
// the key, so each retry is a new payout to the provider.
//
// corpus: bug attemptkey
// modelled on: avast/retry-go README.md (the retried function builds and sends the whole request)
func (c *PayoutsClient) CreatePayout(ctx context.Context, p Payout) (*PayoutResult, error) {
	var out PayoutResult
	op := func() error {
		req, err := c.newRequest(ctx, http.MethodPost, "/v2/payouts", p)
		if err != nil {
			return backoff.Permanent(err)
		}
		req.Header.Set("Idempotency-Key", gofrsuuid.Must(gofrsuuid.NewV4()).String())
		err = c.do(req, &out)
		if err != nil && !errors.Is(err, ErrRetryable) {
			return backoff.Permanent(err)
		}
		return err
	}
	b := backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), maxAttempts), ctx)
	if err := backoff.Retry(op, b); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreatePayoutKeyed takes the key from its caller, who derives it from the
// payout request it is serving, and sends it on every backoff attempt.
//
// corpus: ok attemptkey
// modelled on: avast/retry-go README.md (the retried function builds and sends the whole request)
func (c *PayoutsClient) CreatePayoutKeyed(ctx context.Context, idemKey string, p Payout) (*PayoutResult, error) {
	var out PayoutResult
	op := func() error {
		req, err := c.newRequest(ctx, http.MethodPost, "/v2/payouts", p)
		if err != nil {
			return backoff.Permanent(err)
		}
		req.Header.Set("Idempotency-Key", idemKey)
		err = c.do(req, &out)
		if err != nil && !errors.Is(err, ErrRetryable) {
			return backoff.Permanent(err)
		}
		return err
	}
	b := backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), maxAttempts), ctx)
	if err := backoff.Retry(op, b); err != nil {
		return nil, err
	}
	return &out, nil
}

// CRMClient opens support tickets.
type CRMClient struct {
	Client
}

// OpenTicket retries with retry-go; the key is a ksuid made in the retried
// function, so a retried timeout opens a second ticket.
//
// corpus: bug attemptkey
// modelled on: codeGROOVE-dev/retry-go README.md (retry.Do with the HTTP call inside the retryable func)
func (c *CRMClient) OpenTicket(ctx context.Context, t Ticket) (*TicketRef, error) {
	return retry.DoWithData(func() (*TicketRef, error) {
		req, err := c.newRequest(ctx, http.MethodPost, "/api/tickets", t)
		if err != nil {
			return nil, retry.Unrecoverable(err)
		}
		req.Header.Set("Idempotency-Key", ksuid.New().String())
		var ref TicketRef
		if err := c.do(req, &ref); err != nil {
			if !errors.Is(err, ErrRetryable) {
				return nil, retry.Unrecoverable(err)
			}
			return nil, err
		}
		return &ref, nil
	}, retry.Attempts(maxAttempts), retry.Context(ctx), retry.Delay(200*time.Millisecond))
}

// OpenTicketTraced makes the key once before retry.Do; inside, every attempt
// gets its own X-Request-Id for tracing, which the CRM does not dedup on.
//
// corpus: ok attemptkey
// modelled on: codeGROOVE-dev/retry-go README.md (retry.Do with the HTTP call inside the retryable func)
func (c *CRMClient) OpenTicketTraced(ctx context.Context, t Ticket) (*TicketRef, error) {
	key := ksuid.New().String()
	return retry.DoWithData(func() (*TicketRef, error) {
		req, err := c.newRequest(ctx, http.MethodPost, "/api/tickets", t)
		if err != nil {
			return nil, retry.Unrecoverable(err)
		}
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("X-Request-Id", uuid.NewString())
		var ref TicketRef
		if err := c.do(req, &ref); err != nil {
			if !errors.Is(err, ErrRetryable) {
				return nil, retry.Unrecoverable(err)
			}
			return nil, err
		}
		return &ref, nil
	}, retry.Attempts(maxAttempts), retry.Context(ctx), retry.Delay(200*time.Millisecond))
}
