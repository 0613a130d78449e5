// Package eventbus is a broker client the check knows nothing about: it
// delivers each event of a topic to a handler, again while it fails.
package eventbus

import "context"

type Client struct{}

func Subscribe[T any](c *Client, topic string, fn func(ctx context.Context, ev *T) error) error {
	return nil
}
