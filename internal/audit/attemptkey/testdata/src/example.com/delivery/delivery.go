// Package delivery is a webhook client in a package of its own, whose
// keys the check follows across the import through its facts.
package delivery

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// NewKey returns a new random key.
func NewKey() string { return "k_" + uuid.NewString() }

// Client posts events to subscribers.
type Client struct{ HTTP *http.Client }

// Post sends one attempt under key.
func (c *Client) Post(ctx context.Context, url, key string) error {
	req, err := http.NewRequestWithContext(ctx, "POST", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Send posts under a key of its own: each call is a new delivery.
func (c *Client) Send(ctx context.Context, url string) error {
	return c.Post(ctx, url, NewKey())
}

// createHook registers a hook under name; a second create of it is refused.
func (c *Client) createHook(ctx context.Context, name string) error { return nil }

// ProvisionHook names a new hook afresh on every call.
func (c *Client) ProvisionHook(ctx context.Context) error {
	return c.createHook(ctx, "hook-"+uuid.NewString())
}

// Fanout posts one attempt to each of four subscribers, each under its
// own key: four parameters reach a sink, which the fact records in a
// fixed order however often it is encoded.
func (c *Client) Fanout(ctx context.Context, url, a, b, d, e string) error {
	if err := c.Post(ctx, url, a); err != nil {
		return err
	}
	if err := c.Post(ctx, url, b); err != nil {
		return err
	}
	if err := c.Post(ctx, url, d); err != nil {
		return err
	}
	return c.Post(ctx, url, e)
}
