// Package enqueue puts the shop's follow-up work on job queues (river on
// Postgres, asynq on Redis) and asks each queue to drop a copy of a job it
// already holds, so that a retried request or a redelivered event does not
// send a second mail or export.
package enqueue

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// WelcomeMailArgs are the river args of the welcome mail.
type WelcomeMailArgs struct {
	UserID      int64     `json:"user_id"`
	RequestedAt time.Time `json:"requested_at"`
}

// Kind names the job for river.
func (WelcomeMailArgs) Kind() string { return "welcome_mail" }

// QueueWelcomeMail inserts the welcome mail with UniqueOpts ByArgs, but
// the args carry the time of the insert: no two inserts are equal, so a
// retried sign-up queues a second mail.
//
// corpus: bug attemptkey
// modelled on: riverqueue/river insert_opts.go (UniqueOpts ByArgs: a job is a duplicate when its encoded args are equal)
func QueueWelcomeMail(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, userID int64) error {
	_, err := rc.InsertTx(ctx, tx, WelcomeMailArgs{UserID: userID, RequestedAt: time.Now()}, &river.InsertOpts{
		Queue:      "mail",
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	return err
}

// QueueWelcomeMailOnce inserts the welcome mail by the user alone.
//
// corpus: ok attemptkey
// modelled on: riverqueue/river insert_opts.go (UniqueOpts ByArgs: a job is a duplicate when its encoded args are equal)
func QueueWelcomeMailOnce(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, userID int64) error {
	_, err := rc.InsertTx(ctx, tx, WelcomeMailArgs{UserID: userID}, &river.InsertOpts{
		Queue:      "mail",
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	return err
}

// InvoiceExportArgs are an export's args: only the invoice names the job,
// and the time it was asked for rides along for the logs.
type InvoiceExportArgs struct {
	InvoiceID   string    `json:"invoice_id" river:"unique"`
	RequestedAt time.Time `json:"requested_at"`
}

// Kind names the job for river.
func (InvoiceExportArgs) Kind() string { return "invoice_export" }

// InsertOpts asks river to drop an export of an invoice it holds.
func (InvoiceExportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: 24 * time.Hour}}
}

// QueueInvoiceExport inserts the export with the time it was asked for;
// the args' river:"unique" tag leaves that time out of the comparison.
//
// corpus: ok attemptkey
// modelled on: riverqueue/river insert_opts.go (UniqueOpts ByArgs with river:"unique" struct tags choosing the fields compared)
func QueueInvoiceExport(ctx context.Context, rc *river.Client[pgx.Tx], invoiceID string) error {
	_, err := rc.Insert(ctx, InvoiceExportArgs{InvoiceID: invoiceID, RequestedAt: time.Now()}, nil)
	return err
}

// RefundNoticeArgs ask for uniqueness themselves, and carry a nonce.
type RefundNoticeArgs struct {
	RefundID string `json:"refund_id"`
	Nonce    int64  `json:"nonce"`
}

// Kind names the job for river.
func (RefundNoticeArgs) Kind() string { return "refund_notice" }

// InsertOpts asks river to drop a notice it holds.
func (RefundNoticeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// QueueRefundNotice stamps each notice with the clock in nanoseconds, so
// the args' own ByArgs never finds a duplicate.
//
// corpus: bug attemptkey
// modelled on: riverqueue/river insert_opts.go (JobArgsWithInsertOpts: args that return their own UniqueOpts)
func QueueRefundNotice(ctx context.Context, rc *river.Client[pgx.Tx], refundID string) error {
	args := RefundNoticeArgs{RefundID: refundID, Nonce: time.Now().UnixNano()}
	_, err := rc.Insert(ctx, args, nil)
	return err
}

// QueueWelcomeMails inserts a batch of welcome mails, each unique by its
// args, but each stamped with the time of the batch: a batch retried after
// a timeout queues every mail again.
//
// corpus: bug attemptkey
// modelled on: riverqueue/river insert_opts.go (InsertManyParams: a batch's args, each with its own InsertOpts)
func QueueWelcomeMails(ctx context.Context, rc *river.Client[pgx.Tx], userIDs []int64) error {
	params := make([]river.InsertManyParams, 0, len(userIDs))
	for _, id := range userIDs {
		params = append(params, river.InsertManyParams{
			Args:       WelcomeMailArgs{UserID: id, RequestedAt: time.Now()},
			InsertOpts: &river.InsertOpts{Queue: "mail", UniqueOpts: river.UniqueOpts{ByArgs: true}},
		})
	}
	_, err := rc.InsertMany(ctx, params)
	return err
}

// QueueWelcomeMailsOnce inserts the batch by user alone.
//
// corpus: ok attemptkey
// modelled on: riverqueue/river insert_opts.go (InsertManyParams: a batch's args, each with its own InsertOpts)
func QueueWelcomeMailsOnce(ctx context.Context, rc *river.Client[pgx.Tx], userIDs []int64) error {
	params := make([]river.InsertManyParams, 0, len(userIDs))
	for _, id := range userIDs {
		params = append(params, river.InsertManyParams{
			Args:       WelcomeMailArgs{UserID: id},
			InsertOpts: &river.InsertOpts{Queue: "mail", UniqueOpts: river.UniqueOpts{ByArgs: true}},
		})
	}
	_, err := rc.InsertMany(ctx, params)
	return err
}
