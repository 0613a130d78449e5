package attemptkey

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/riverqueue/river"
	"github.com/stripe/stripe-go/v82"
)

// Settler pays out balances; main hands its Settle to the scheduler.
type Settler struct{ sc *stripe.Client }

func (s *Settler) Settle(ctx context.Context) error {
	return chargeOnce(ctx, s.sc, "settle-"+strconv.FormatInt(time.Now().Unix(), 10)) // want `inside the scheduled job Settle`
}

// Report is never scheduled: a new key for each report a caller asks for.
func (s *Settler) Report(ctx context.Context) error { // want Report:"makes uuid.NewString"
	return chargeOnce(ctx, s.sc, "report-"+uuid.NewString())
}

func startScheduler(s *Scheduler, st *Settler) {
	s.AddFunc("@daily", func() { st.Settle(context.Background()) })
	s.AddFunc("@daily", st.settleLater)
	s.AddFunc("@daily", func() { st.chargeAll(context.Background(), []int64{1, 2}) })
}

func (s *Settler) settleLater() {
	chargeOnce(context.Background(), s.sc, uuid.NewString()) // want `inside the scheduled job settleLater`
}

// chargeAll, called by a job, makes a key per amount on every run: a rerun
// charges each amount again.
func (s *Settler) chargeAll(ctx context.Context, amounts []int64) {
	for range amounts {
		chargeOnce(ctx, s.sc, uuid.NewString()) // want `inside the scheduled job chargeAll`
	}
}

// A river worker: a queued job is delivered, and retried, with its own ID.
type PayoutArgs struct{ AccountID string }

func (PayoutArgs) Kind() string { return "payout" }

type PayoutWorker struct {
	river.WorkerDefaults[PayoutArgs]
	sc *stripe.Client
}

func (w *PayoutWorker) Work(ctx context.Context, job *river.Job[PayoutArgs]) error {
	return chargeOnce(ctx, w.sc, "payout-"+uuid.NewString()) // want `inside the consumer Work`
}

type RefundWorker struct{ sc *stripe.Client }

func (w *RefundWorker) Work(ctx context.Context, job *river.Job[PayoutArgs]) error { // want Work:"parameter 1 reaches chargeOnce"
	return chargeOnce(ctx, w.sc, "refund-"+strconv.FormatInt(job.ID, 10))
}

// An asynq task is delivered, and retried, with its own ID.
func (s *Settler) payoutTask(ctx context.Context, t *asynq.Task) error {
	return chargeOnce(ctx, s.sc, "payout-"+uuid.NewString()) // want `inside the consumer payoutTask`
}
