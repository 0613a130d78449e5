// Package processor is the example's card processor: a stand-in for a payment provider's charge
// API (Stripe's PaymentIntents, say). Like the real one it deduplicates on the idempotency key it
// is given — a call repeating a key gets the first call's outcome and charges nothing — and it
// keeps a record of every call, so a demo or a test can see how often the service reached it and
// how many charges were really made. It runs in the service's process (New), or on its own over
// HTTP (Handler, Client), so that several instances of the service share one processor, as the
// fault soak's do. It also signs events the way Stripe signs webhook deliveries, for the webhook
// receiver to verify.
package processor

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DeclinedCard is the card number the processor always declines, like Stripe's test card
// 4000000000000002.
const DeclinedCard = "4000000000000002"

var (
	// ErrDeclined: the card was declined. The outcome is final for its key, as a provider's is.
	ErrDeclined = errors.New("processor: card declined")
	// ErrUnavailable: the processor could not take the call; nothing was charged, so a retry may
	// succeed. Tests inject it with SetFault.
	ErrUnavailable = errors.New("processor: unavailable")
	// ErrKeyReused: the key came with other parameters than its first call, which a provider
	// refuses rather than charge twice or answer for the wrong charge.
	ErrKeyReused = errors.New("processor: idempotency key reused with other parameters")
)

// Charge is a successful charge.
type Charge struct {
	ID       string `json:"id"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Status   string `json:"status"`
}

// Stats counts what reached the processor.
type Stats struct {
	// Calls is every Charge call, repeated keys included.
	Calls int `json:"calls"`
	// Charges is how many distinct charges were made: what a customer's statement shows.
	Charges int `json:"charges"`
}

// Call is one Charge call as the processor saw it. The fault soak counts executions from these:
// which request made each call (RequestID), when, and whether its caller was still there at the
// end.
type Call struct {
	Key string `json:"key"`
	// RequestID is the X-Request-Id of the request the caller was serving (WithRequestID).
	RequestID string `json:"request_id,omitempty"`
	Amount    int64  `json:"amount"`
	// Start is when the call arrived, End when it was answered.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Charge is the ID of the charge the call answered with, made now or by the key's first call;
	// "" for a decline or an error.
	Charge string `json:"charge,omitempty"`
	// Charged: this call made the charge, being the key's first successful one.
	Charged bool   `json:"charged,omitempty"`
	Err     string `json:"error,omitempty"`
	// Cancelled: the caller's context was done by the time the call was answered: the caller gave
	// up on it, or died.
	Cancelled bool `json:"cancelled,omitempty"`
}

// Processor is the fake card processor. Its zero value is not usable; call New.
type Processor struct {
	mu      sync.Mutex
	latency time.Duration
	fault   func(ctx context.Context, call int) error
	calls   []Call
	charges int
	byKey   map[string]outcome
}

type outcome struct {
	params string
	charge Charge
	err    error
}

// New returns a processor that answers at once.
func New() *Processor {
	return &Processor{byKey: map[string]outcome{}}
}

// SetLatency makes every later call take d, so that two concurrent requests overlap in a demo.
func (p *Processor) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// SetFault makes every later call run fault first, with the call's number (counted from 1): an
// error from it is the call's outcome, and nothing is charged. It is how tests make the
// processor fail, hang until the caller gives up, or crash the caller. nil removes it.
func (p *Processor) SetFault(fault func(ctx context.Context, call int) error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = fault
}

// Stats reports the calls and charges so far.
func (p *Processor) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Calls: len(p.calls), Charges: p.charges}
}

// Calls returns every call so far, in the order they arrived. The record grows with every call,
// as befits a fake.
func (p *Processor) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying id, the X-Request-Id of the request being served: Charge
// records it with the call, and Client sends it along, so that each call names its request.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request ID ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Charge charges amount (in the currency's minor unit) to card, once per key: a call with a key
// seen before returns the first call's charge or decline without charging again. A caller that
// gives up (ctx done) during the latency gets ctx's error, and nothing is charged.
func (p *Processor) Charge(ctx context.Context, key string, amount int64, currency, card string) (Charge, error) {
	return p.charge(ctx, ctx, key, amount, currency, card)
}

// charge is Charge doing its work under ctx, with caller the context of whoever asked: the call
// records whether caller was done by the end.
func (p *Processor) charge(ctx, caller context.Context, key string, amount int64, currency, card string) (Charge, error) {
	p.mu.Lock()
	i := len(p.calls)
	p.calls = append(p.calls, Call{Key: key, RequestID: RequestID(caller), Amount: amount, Start: time.Now()})
	fault, latency := p.fault, p.latency
	p.mu.Unlock()
	ch, charged, err := p.outcome(ctx, i+1, fault, latency, key, amount, currency, card)

	p.mu.Lock()
	defer p.mu.Unlock()
	c := &p.calls[i]
	c.End, c.Charge, c.Charged, c.Cancelled = time.Now(), ch.ID, charged, caller.Err() != nil
	if err != nil {
		c.Err = err.Error()
	}
	return ch, err
}

// outcome is call number call's answer, and whether it made a new charge.
func (p *Processor) outcome(ctx context.Context, call int, fault func(context.Context, int) error, latency time.Duration,
	key string, amount int64, currency, card string) (Charge, bool, error) {
	if fault != nil {
		if err := fault(ctx, call); err != nil {
			return Charge{}, false, err
		}
	}
	if latency > 0 {
		select {
		case <-ctx.Done():
			return Charge{}, false, ctx.Err()
		case <-time.After(latency):
		}
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	params := fmt.Sprintf("%d %s %s", amount, currency, card)
	if o, ok := p.byKey[key]; ok {
		if o.params != params {
			return Charge{}, false, ErrKeyReused
		}
		return o.charge, false, o.err
	}
	o := outcome{params: params}
	if card == DeclinedCard {
		o.err = ErrDeclined
	} else {
		p.charges++
		o.charge = Charge{ID: fmt.Sprintf("ch_%06d", p.charges), Amount: amount, Currency: currency, Status: "succeeded"}
	}
	p.byKey[key] = o
	return o.charge, o.err == nil, o.err
}

// SignatureHeader is the header that carries an event's signature.
const SignatureHeader = "Stripe-Signature"

// Sign returns the signature header value of an event body sent at t: Stripe's scheme,
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint's secret>".
func Sign(secret string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

// Tolerance is how old a signed event may be: older ones are refused as possible replays of a
// captured delivery.
const Tolerance = 5 * time.Minute

// Verify checks header, the value of SignatureHeader, against body at time now.
func Verify(secret string, body []byte, header string, now time.Time) error {
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("processor: malformed signature header")
	}
	if age := now.Sub(time.Unix(sec, 0)); age > Tolerance || age < -Tolerance {
		return fmt.Errorf("processor: signature timestamp %s is outside the %v tolerance", time.Unix(sec, 0).UTC().Format(time.RFC3339), Tolerance)
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("processor: signature does not match")
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
