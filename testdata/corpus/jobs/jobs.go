// Package jobs holds the scheduled and batch jobs. Every replica of the
// service runs the scheduler, and the scheduler reruns a job that failed or
// whose replica died, so each job has to be safe to run twice for one slot.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// Scheduler runs fn every interval on every replica; scheduled is the
// slot's nominal start, not the moment fn began.
type Scheduler interface {
	Every(name string, interval time.Duration, fn func(ctx context.Context, scheduled time.Time) error)
}

// Slot is the start of the schedule slot that t falls in.
func Slot(t time.Time, every time.Duration) time.Time {
	return t.UTC().Truncate(every)
}

// PayoutRequest asks the payment provider to pay a connected account.
type PayoutRequest struct {
	Account        string
	Cents          int64
	Currency       string
	IdempotencyKey string
	RequestedAt    time.Time
}

// PayoutAPI is the payment provider's payout endpoint; it pays once per
// IdempotencyKey and answers repeats with the first payout.
type PayoutAPI interface {
	CreatePayout(ctx context.Context, req PayoutRequest) (string, error)
}

// Balances lists the accounts owed money.
type Balances interface {
	Owed(ctx context.Context) (map[string]int64, error)
}

// Invoice is an unpaid invoice a reminder may be sent for.
type Invoice struct {
	ID       string
	Customer string
	DueAt    time.Time
}

// Invoices lists invoices past due.
type Invoices interface {
	Overdue(ctx context.Context) ([]Invoice, error)
}

// Mailer sends a templated mail.
type Mailer interface {
	Send(ctx context.Context, to, template string, data any) error
}

// Deps are what the jobs share.
type Deps struct {
	RDB      *redis.Client
	Payouts  PayoutAPI
	Balances Balances
	Invoices Invoices
	Mailer   Mailer
	Log      *slog.Logger
}
