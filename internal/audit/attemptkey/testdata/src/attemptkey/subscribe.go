package attemptkey

import (
	"context"

	"example.com/eventbus"
	"github.com/google/uuid"
)

// A handler subscribed to a topic, func(ctx, *Event) error, runs once per
// delivery of an event, whatever the broker.
type invoiceIssued struct {
	InvoiceID string
	Amount    int64
}

type invoiceHandlers struct{ c *charges }

func (h *invoiceHandlers) collect(ctx context.Context, ev *invoiceIssued) error {
	return h.c.charge(ctx, uuid.NewString(), ev.Amount) // want `inside the handler collect at subscribe.go:\d+ reaches charge`
}

func (h *invoiceHandlers) collectByInvoice(ctx context.Context, ev *invoiceIssued) error {
	return h.c.charge(ctx, "invoice-"+ev.InvoiceID, ev.Amount)
}

func wireInvoices(bus *eventbus.Client, h *invoiceHandlers) {
	_ = eventbus.Subscribe(bus, "invoices.issued", h.collect)
	_ = eventbus.Subscribe(bus, "invoices.issued", h.collectByInvoice)
	_ = eventbus.Subscribe(bus, "invoices.issued", func(ctx context.Context, ev *invoiceIssued) error {
		return h.c.charge(ctx, uuid.NewString(), ev.Amount) // want `inside the handler given to Subscribe at subscribe.go:\d+ reaches charge`
	})
}
