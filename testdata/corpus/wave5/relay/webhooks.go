package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/oklog/ulid/v2"
	"github.com/stripe/stripe-go/v82"
	"golang.org/x/sync/errgroup"
)

// Subscription is a merchant's webhook endpoint.
type Subscription struct {
	ID     string
	URL    string
	Secret string
}

// Event is what a merchant is told about.
type Event struct {
	ID      string
	Type    string
	Payload []byte
}

// Notifier delivers merchant webhooks.
type Notifier struct {
	hc *http.Client
}

func (n *Notifier) post(ctx context.Context, sub Subscription, ev Event, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return backoff.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Event-Type", ev.Type)
	resp, err := n.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return fmt.Errorf("merchant answered %d", resp.StatusCode)
	}
	if resp.StatusCode >= 400 {
		return backoff.Permanent(fmt.Errorf("merchant answered %d", resp.StatusCode))
	}
	return nil
}

// Deliver posts an event to a merchant's endpoint with exponential
// backoff.
//
// corpus: bug attemptkey
// modelled on: dmitrymomot/saaskit pkg/webhook/README.md (synchronous webhook delivery with retries and exponential backoff)
func (n *Notifier) Deliver(ctx context.Context, sub Subscription, ev Event) error {
	op := func() error {
		return n.post(ctx, sub, ev, ulid.Make().String())
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// DeliverKeyed posts an event to a merchant's endpoint with exponential
// backoff; every attempt carries the same key, made from the event and
// the subscription.
//
// corpus: ok attemptkey
// modelled on: dmitrymomot/saaskit pkg/webhook/README.md (synchronous webhook delivery with retries and exponential backoff)
func (n *Notifier) DeliverKeyed(ctx context.Context, sub Subscription, ev Event) error {
	key := ev.ID + ":" + sub.ID
	op := func() error {
		return n.post(ctx, sub, ev, key)
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// newIdemKey returns 128 random bits, hex encoded.
func newIdemKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// The partner API client: attempt -> send -> newPartnerRequest, which is
// where the key lands in the header.
func (n *Notifier) attempt(ctx context.Context, url string, body []byte, key string) (int, error) {
	return n.send(ctx, url, body, key)
}

func (n *Notifier) send(ctx context.Context, url string, body []byte, key string) (int, error) {
	req, err := n.newPartnerRequest(ctx, url, body, key)
	if err != nil {
		return 0, err
	}
	resp, err := n.hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (n *Notifier) newPartnerRequest(ctx context.Context, url string, body []byte, key string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return req, nil
}

// BookCourier asks the courier partner to collect a parcel, retrying
// timeouts and 5xx answers.
//
// corpus: bug attemptkey
// modelled on: xeoncross/retryrequest README.md (HTTP request retried in a loop on failure)
func (n *Notifier) BookCourier(ctx context.Context, url string, body []byte) error {
	var lastErr error
	for i := 0; i < 4; i++ {
		key := newIdemKey()
		code, err := n.attempt(ctx, url, body, key)
		if err == nil && code < 500 {
			return nil
		}
		lastErr = fmt.Errorf("attempt %d: status %d: %v", i+1, code, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1<<i) * time.Second):
		}
	}
	return lastErr
}

// BookCourierOnce asks the courier partner to collect a parcel, retrying
// timeouts and 5xx answers under one key made before the first attempt.
//
// corpus: ok attemptkey
// modelled on: xeoncross/retryrequest README.md (HTTP request retried in a loop on failure)
func (n *Notifier) BookCourierOnce(ctx context.Context, url string, body []byte) error {
	key := newIdemKey()
	var lastErr error
	for i := 0; i < 4; i++ {
		code, err := n.attempt(ctx, url, body, key)
		if err == nil && code < 500 {
			return nil
		}
		lastErr = fmt.Errorf("attempt %d: status %d: %v", i+1, code, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1<<i) * time.Second):
		}
	}
	return lastErr
}

// SellerPayout is a seller's share of the day's settled orders.
type SellerPayout struct {
	ID      string
	Account string
	Cents   int64
}

// Payouts pays sellers out through Stripe Connect.
type Payouts struct {
	sc *stripe.Client
}

// PayAll transfers every payout, up to three rounds for the ones that
// failed, eight transfers at a time.
//
// corpus: bug attemptkey
// modelled on: stripe/stripe-go README.md (params.IdempotencyKey set so a timed-out request can be retried)
func (p *Payouts) PayAll(ctx context.Context, payouts []SellerPayout) []SellerPayout {
	pending := payouts
	for round := 0; round < 3 && len(pending) > 0; round++ {
		failed := make(chan SellerPayout, len(pending))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(8)
		for _, sp := range pending {
			g.Go(func() error {
				params := &stripe.TransferCreateParams{
					Amount:      stripe.Int64(sp.Cents),
					Currency:    stripe.String(string(stripe.CurrencyEUR)),
					Destination: stripe.String(sp.Account),
				}
				params.IdempotencyKey = stripe.String(fmt.Sprintf("payout-%s-%d", sp.Account, time.Now().UnixMilli()))
				if _, err := p.sc.V1Transfers.Create(gctx, params); err != nil {
					failed <- sp
				}
				return nil
			})
		}
		_ = g.Wait()
		close(failed)
		pending = pending[:0:0]
		for sp := range failed {
			pending = append(pending, sp)
		}
	}
	return pending
}

// PayAllKeyed transfers every payout, up to three rounds for the ones
// that failed, eight transfers at a time, each under its payout's id.
//
// corpus: ok attemptkey
// modelled on: stripe/stripe-go README.md (params.IdempotencyKey set so a timed-out request can be retried)
func (p *Payouts) PayAllKeyed(ctx context.Context, payouts []SellerPayout) []SellerPayout {
	pending := payouts
	for round := 0; round < 3 && len(pending) > 0; round++ {
		failed := make(chan SellerPayout, len(pending))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(8)
		for _, sp := range pending {
			g.Go(func() error {
				params := &stripe.TransferCreateParams{
					Amount:      stripe.Int64(sp.Cents),
					Currency:    stripe.String(string(stripe.CurrencyEUR)),
					Destination: stripe.String(sp.Account),
				}
				params.IdempotencyKey = stripe.String("payout-" + sp.ID)
				if _, err := p.sc.V1Transfers.Create(gctx, params); err != nil {
					failed <- sp
				}
				return nil
			})
		}
		_ = g.Wait()
		close(failed)
		pending = pending[:0:0]
		for sp := range failed {
			pending = append(pending, sp)
		}
	}
	return pending
}
