// Written by idemkit devel from
// examples/payments/knowledge/projects/idempotency-processor-events.md, at the first generation.
// This file is yours: idemkit never writes it again. The code that makes processor events
// idempotent is in processor_events_idem.go and is regenerated; it never refers to this file, so
// shape it as you like.

package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/idemkit/idemkit/examples/payments/processor"
)

// ProcessorEventsService is the webhook's own code: it checks the processor's signature and
// settles each charge the processor reports in the ledger.
type ProcessorEventsService struct {
	// Secret is the endpoint's signing secret, shared with the processor.
	Secret string
	Ledger *Ledger
	// Now is the clock signatures are checked against. Default time.Now.
	Now func() time.Time
}

// Verify checks the Stripe-Signature header over the raw body, before anything is read from it.
func (s *ProcessorEventsService) Verify(r *http.Request, body []byte) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return processor.Verify(s.Secret, body, r.Header.Get(processor.SignatureHeader), now())
}

// event is the part of a processor event the service reads.
type event struct {
	Type string `json:"type"`
	Data struct {
		Charge string `json:"charge"`
	} `json:"data"`
}

// Work settles the charge a charge.succeeded event names, under keys.Settle, so that even an
// event processed twice (a holder that crashed after writing) settles it once. Other event
// types are acknowledged and ignored.
func (s *ProcessorEventsService) Work(ctx context.Context, ev ProcessorEventsEvent, keys ProcessorEventsKeys) error {
	var e event
	if err := json.Unmarshal(ev.Body, &e); err != nil {
		return fmt.Errorf("event %s: %w", ev.ID, err)
	}
	if e.Type != "charge.succeeded" {
		return nil
	}
	if e.Data.Charge == "" {
		return fmt.Errorf("event %s: charge.succeeded without data.charge", ev.ID)
	}
	s.Ledger.Settle(keys.Settle, ev.ID, e.Data.Charge)
	return nil
}

// Ledger is the example's charges ledger, in memory: each settlement is a row under a unique
// key, inserted the way INSERT ... ON CONFLICT DO NOTHING does.
type Ledger struct {
	mu   sync.Mutex
	rows map[string]Settlement
}

// Settlement is one row of the ledger.
type Settlement struct {
	Event  string `json:"event"`
	Charge string `json:"charge"`
}

// Settle records a settlement under key unless a row holds the key already, and reports whether
// it inserted one.
func (l *Ledger) Settle(key, event, charge string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.rows[key]; ok {
		return false
	}
	if l.rows == nil {
		l.rows = map[string]Settlement{}
	}
	l.rows[key] = Settlement{Event: event, Charge: charge}
	return true
}

// Settlements lists the rows, in no particular order.
func (l *Ledger) Settlements() []Settlement {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Settlement, 0, len(l.rows))
	for _, s := range l.rows {
		out = append(out, s)
	}
	return out
}
