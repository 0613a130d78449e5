// Package tasks builds the shop's asynq tasks, one constructor per type,
// for the API to enqueue and the worker to handle.
package tasks

import (
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"
)

// TypeInvoicePDF renders an invoice's PDF.
const TypeInvoicePDF = "invoice:pdf"

type invoicePDFPayload struct {
	InvoiceID string    `json:"invoice_id"`
	Locale    string    `json:"locale"`
	QueuedAt  time.Time `json:"queued_at"`
}

// NewInvoicePDFTask builds the render task, stamped with the time it was
// queued for the worker's latency metric.
func NewInvoicePDFTask(invoiceID, locale string) (*asynq.Task, error) {
	payload, err := json.Marshal(invoicePDFPayload{InvoiceID: invoiceID, Locale: locale, QueuedAt: time.Now()})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeInvoicePDF, payload), nil
}

// NewInvoicePDFTaskByInvoice builds the render task from the invoice and
// its locale alone.
func NewInvoicePDFTaskByInvoice(invoiceID, locale string) (*asynq.Task, error) {
	payload, err := json.Marshal(invoicePDFPayload{InvoiceID: invoiceID, Locale: locale})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeInvoicePDF, payload), nil
}
