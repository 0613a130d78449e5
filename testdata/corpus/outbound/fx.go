package outbound

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
)

// Trade is a currency conversion booked with the FX provider.
type Trade struct {
	Reference string `json:"reference"`
	Sell      string `json:"sell"`
	Buy       string `json:"buy"`
	Amount    int64  `json:"amount"`
}

// Booked is the provider's answer to a trade.
type Booked struct {
	TradeID string  `json:"trade_id"`
	Rate    float64 `json:"rate"`
}

// FXClient books conversions with the FX provider.
type FXClient struct {
	Client
}

// Book books a trade, retrying on retryable answers. Each attempt's key
// gets a math/rand suffix, so a retried timeout books a second conversion.
//
// corpus: bug attemptkey
// modelled on: xeoncross/retryrequest README.md (repeat the same request up to N times on 5xx and timeouts)
func (c *FXClient) Book(ctx context.Context, t Trade) (*Booked, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/trades", t)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Idempotency-Key", fmt.Sprintf("%s-%016x", t.Reference, rand.Uint64()))
		var out Booked
		if lastErr = c.do(req, &out); lastErr == nil {
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

// BookJittered keeps the trade's reference as the key and uses math/rand
// only for the jitter between attempts.
//
// corpus: ok attemptkey
// modelled on: xeoncross/retryrequest README.md (repeat the same request up to N times on 5xx and timeouts)
func (c *FXClient) BookJittered(ctx context.Context, t Trade) (*Booked, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		req, err := c.newRequest(ctx, http.MethodPost, "/trades", t)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Idempotency-Key", "trade-"+t.Reference)
		var out Booked
		if lastErr = c.do(req, &out); lastErr == nil {
			return &out, nil
		}
		if !errors.Is(lastErr, ErrRetryable) {
			return nil, lastErr
		}
		if err := pause(ctx, attempt+rand.IntN(2)); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}
