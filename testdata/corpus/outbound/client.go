// Package outbound holds the clients for the APIs the services call (ledger,
// payouts, SMS, CRM, carrier) and the webhooks sent to customers. Every
// call here can time out after the other side acted, so a retry must carry
// the first attempt's key.
package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrRetryable marks an answer worth retrying (a timeout, a 429, a 5xx).
var ErrRetryable = errors.New("outbound: retryable")

// APIError is a non-2xx answer.
type APIError struct {
	Status int
	Body   string
}

func (e *APIError) Error() string { return fmt.Sprintf("api answered %d: %s", e.Status, e.Body) }

// Client is the HTTP plumbing the API clients share.
type Client struct {
	HTTP    *http.Client
	BaseURL string
	Token   string
}

// newRequest builds an authenticated JSON request.
func (c *Client) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// do sends req and decodes a 2xx answer into out. Transport errors, 429s
// and 5xx come back wrapped in ErrRetryable.
func (c *Client) do(req *http.Request, out any) error {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return errors.Join(ErrRetryable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		apiErr := &APIError{Status: resp.StatusCode, Body: string(b)}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return errors.Join(ErrRetryable, apiErr)
		}
		return apiErr
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// pause waits before the next attempt, or returns the context's error.
func pause(ctx context.Context, attempt int) error {
	t := time.NewTimer(time.Duration(1<<attempt) * 100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Entry is a ledger posting.
type Entry struct {
	ID      string `json:"id"`
	Account string `json:"account"`
	Cents   int64  `json:"cents"`
}

// Posted is the ledger's answer to a posting.
type Posted struct {
	EntryID string `json:"entry_id"`
	Balance int64  `json:"balance"`
}

// Payout asks the payout provider to pay a bank account.
type Payout struct {
	Account string `json:"account"`
	Cents   int64  `json:"cents"`
}

// PayoutResult is the provider's answer.
type PayoutResult struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// SMS is a text message to send.
type SMS struct {
	MessageID string `json:"-"`
	To        string `json:"to"`
	Body      string `json:"body"`
}

// Ticket is a support ticket opened in the CRM.
type Ticket struct {
	Customer string `json:"customer"`
	Subject  string `json:"subject"`
	Body     string `json:"body"`
}

// TicketRef is the CRM's answer.
type TicketRef struct {
	ID string `json:"id"`
}
