package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/idemkit/idemkit/examples/payments/account"
	"github.com/idemkit/idemkit/examples/payments/charges"
	"github.com/idemkit/idemkit/examples/payments/internal/idem"
	"github.com/idemkit/idemkit/examples/payments/processor"
	"github.com/idemkit/idemkit/examples/payments/webhooks"
)

// app is the payment API: the generated handlers with the service's own code plugged in, and
// the fake processor and ledger they use, kept here so that a test can reach them.
type app struct {
	// processor is the in-process fake processor; nil when the charges go to a shared one.
	processor *processor.Processor
	ledger    *webhooks.Ledger
	handler   http.Handler
}

// newApp wires the API over store, with the charges' audit rows in audit. The charges go to the
// processor remote reaches (-processor-url), or, when it is nil, to an in-process fake
// (a.processor). lease replaces the specs' leases when it is not zero (-lease). now is the clock
// webhook signatures are checked against.
func newApp(store idem.Store, audit idem.AuditLog, remote *processor.Client, secret string, lease time.Duration, now func() time.Time, log *slog.Logger) (*app, error) {
	a := &app{ledger: &webhooks.Ledger{}}
	chargeSvc := &charges.ChargeService{Processor: remote}
	stats := func(ctx context.Context) (processor.Stats, error) { return remote.Stats(ctx) }
	if remote == nil {
		a.processor = processor.New()
		chargeSvc.Processor = a.processor
		stats = func(context.Context) (processor.Stats, error) { return a.processor.Stats(), nil }
	}
	charge, err := charges.NewCharge(charges.ChargeOptions{Store: store, Audit: audit, Tenant: chargeSvc.Tenant, Work: chargeSvc.Work, Lease: lease, Logger: log})
	if err != nil {
		return nil, err
	}
	eventSvc := &webhooks.ProcessorEventsService{Secret: secret, Ledger: a.ledger, Now: now}
	events, err := webhooks.NewProcessorEvents(webhooks.ProcessorEventsOptions{Store: store, Verify: eventSvc.Verify, Work: eventSvc.Work, Lease: lease, Logger: log})
	if err != nil {
		return nil, err
	}

	mux := http.NewServeMux()
	mux.Handle("POST /v1/charges", account.Required(charge))
	mux.Handle("POST /webhooks/processor", events)
	// What reached the processor and the ledger, to watch the deduplication from outside.
	mux.HandleFunc("GET /processor/stats", func(w http.ResponseWriter, r *http.Request) {
		st, err := stats(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("GET /ledger", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, a.ledger.Settlements())
	})
	a.handler = mux
	return a, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
