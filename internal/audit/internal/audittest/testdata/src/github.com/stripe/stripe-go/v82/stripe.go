// Package stripe is a minimal copy of github.com/stripe/stripe-go/v82's signatures.
package stripe

import (
	"context"
	"net/http"
)

type Params struct {
	Context        context.Context `form:"-" json:"-"`
	Headers        http.Header     `form:"-" json:"-"`
	IdempotencyKey *string         `form:"-" json:"-"`
	StripeAccount  *string         `form:"-" json:"-"`
}

func (p *Params) SetIdempotencyKey(val string) { p.IdempotencyKey = &val }
func (p *Params) SetStripeAccount(val string)  { p.StripeAccount = &val }

// NewIdempotencyKey generates a new idempotency key that can be used on a request.
func NewIdempotencyKey() string { return "" }

func String(v string) *string { return &v }
func Int64(v int64) *int64    { return &v }

type PaymentIntentCreateParams struct {
	Params   `form:"*"`
	Amount   *int64  `form:"amount"`
	Currency *string `form:"currency"`
	Customer *string `form:"customer"`
}

type PaymentIntent struct {
	ID     string
	Amount int64
}

type v1PaymentIntentService struct{}

func (c v1PaymentIntentService) Create(ctx context.Context, params *PaymentIntentCreateParams) (*PaymentIntent, error) {
	return nil, nil
}

type Client struct {
	V1PaymentIntents *v1PaymentIntentService
}

func NewClient(key string) *Client { return &Client{} }
