package attemptkey

import (
	"context"
	"fmt"
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

// ChargeDue is the hourly job that charges every subscription due; a
// failed run is run again by the scheduler.
func (s *Settler) ChargeDue(ctx context.Context, subs []string) {
	for _, sub := range subs {
		chargeOnce(ctx, s.sc, "renewal-"+sub+"-"+uuid.NewString()) // want `inside the scheduled job ChargeDue`
	}
}

// ChargeOne charges a subscription for the daily total a customer asked
// for.
func (s *Settler) ChargeOne(ctx context.Context, sub string) error { // want ChargeOne:"makes uuid.NewString"
	return chargeOnce(ctx, s.sc, "charge-"+sub+"-"+uuid.NewString())
}

// A minute's bucket is crossed by a retry's backoff.
func (s *Settler) invoiceRetrying(ctx context.Context, sub string) error {
	var err error
	for attempt := range 4 {
		bucket := time.Now().Truncate(time.Minute).Unix()
		if err = chargeOnce(ctx, s.sc, fmt.Sprintf("overage-%s-%d", sub, bucket)); err == nil { // want `made by time.Now`
			return nil
		}
		time.Sleep(time.Duration(1<<attempt) * 5 * time.Second)
	}
	for range 4 {
		minute := time.Now().Unix() / 60
		if err = chargeOnce(ctx, s.sc, fmt.Sprintf("overage-%s-%d", sub, minute)); err == nil { // want `made by time.Now`
			return nil
		}
	}
	for range 4 {
		minute := time.Now().UnixMilli() / 60000
		if err = chargeOnce(ctx, s.sc, fmt.Sprintf("overage-%s-%d", sub, minute)); err == nil { // want `made by time.Now`
			return nil
		}
	}
	for range 4 {
		day := time.Now().Round(24 * time.Hour).Unix()
		if err = chargeOnce(ctx, s.sc, fmt.Sprintf("overage-%s-%d", sub, day)); err == nil {
			return nil
		}
	}
	return err
}
