package enqueue

import (
	"context"
	"errors"
	"time"

	"github.com/hibiken/asynq"

	"example.com/corpus/wave6a/tasks"
)

// Invoices queues invoice renders.
type Invoices struct {
	client *asynq.Client
}

// RenderPDF queues the invoice's PDF render, unique for an hour so that a
// second click does not render it twice; the task's constructor stamps
// the payload with the time it was queued, so the second click's task is
// never the same and both render.
//
// corpus: bug attemptkey
// modelled on: hibiken/asynq README.md (a tasks package of NewXTask constructors, enqueued by the client with options)
func (i *Invoices) RenderPDF(ctx context.Context, invoiceID, locale string) error {
	task, err := tasks.NewInvoicePDFTask(invoiceID, locale)
	if err != nil {
		return err
	}
	_, err = i.client.EnqueueContext(ctx, task, asynq.Unique(time.Hour))
	if errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// RenderPDFOnce queues the render built from the invoice alone.
//
// corpus: ok attemptkey
// modelled on: hibiken/asynq README.md (a tasks package of NewXTask constructors, enqueued by the client with options)
func (i *Invoices) RenderPDFOnce(ctx context.Context, invoiceID, locale string) error {
	task, err := tasks.NewInvoicePDFTaskByInvoice(invoiceID, locale)
	if err != nil {
		return err
	}
	_, err = i.client.EnqueueContext(ctx, task, asynq.Unique(time.Hour))
	if errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}
