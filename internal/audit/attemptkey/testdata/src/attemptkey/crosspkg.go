package attemptkey

import (
	"context"
	"net/http"

	"example.com/delivery"
)

// Another package's client makes its own key on every call.
func deliverAcross(ctx context.Context, c *delivery.Client, url string) error {
	var err error
	for range 3 {
		if err = c.Send(ctx, url); err == nil { // want `idempotency key made by Send \(NewKey \(uuid.NewString at delivery.go:\d+\) at delivery.go:\d+, reaching Post, whose key parameter reaches the Idempotency-Key header at delivery.go:\d+ at delivery.go:\d+\) inside the retry loop at crosspkg.go:\d+`
			return nil
		}
	}
	return err
}

// Another package's key helper and client, the key made per attempt.
func postAcross(ctx context.Context, c *delivery.Client, url string) error {
	var err error
	for range 3 {
		if err = c.Post(ctx, url, delivery.NewKey()); err == nil { // want `made by delivery.NewKey \(uuid.NewString at delivery.go:\d+\) at crosspkg.go:\d+ inside the retry loop at crosspkg.go:\d+ reaches Post, whose key parameter reaches the Idempotency-Key header at delivery.go:\d+`
			return nil
		}
	}
	return err
}

// The same, the key made once.
func postAcrossOnce(ctx context.Context, c *delivery.Client, url string) error {
	key := delivery.NewKey()
	var err error
	for range 3 {
		if err = c.Post(ctx, url, key); err == nil {
			return nil
		}
	}
	return err
}

// A create under a fresh name, in another package: a mistake when retried,
// not when a request asks for a new hook.
func provisionAcross(ctx context.Context, c *delivery.Client) error {
	var err error
	for range 3 {
		if err = c.ProvisionHook(ctx); err == nil { // want `made by ProvisionHook \(uuid.NewString at delivery.go:\d+, reaching the name parameter of createHook`
			return nil
		}
	}
	return err
}

func (s *Server) handleNewHook(c *delivery.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.ProvisionHook(r.Context())
	}
}

// Another package's fan-out, one of its keys made per attempt.
func fanoutAcross(ctx context.Context, c *delivery.Client, url, a, b, d string) error {
	var err error
	for range 3 {
		if err = c.Fanout(ctx, url, a, b, d, delivery.NewKey()); err == nil { // want `made by delivery.NewKey`
			return nil
		}
	}
	return err
}
