package attemptkey

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// SettlementJob pays out the day's balance, run by a scheduler.
type SettlementJob struct {
	sc *stripe.Client
}

// The provider key is stamped with the time of the run: a retried or
// overlapping run is a second payout.
func (j *SettlementJob) Run(ctx context.Context) error {
	params := &stripe.PaymentIntentCreateParams{}
	params.SetIdempotencyKey(fmt.Sprintf("settle-%d", time.Now().Unix())) // want `idempotency key made by time.Now at cron.go:\d+ inside the scheduled job Run at cron.go:\d+ reaches SetIdempotencyKey: a retried or overlapping run sends a new key; derive the key from the job's name and its scheduled slot \(attemptkey\)`
	_, err := j.sc.V1PaymentIntents.Create(ctx, params)
	return err
}

// The job's name and its slot: the day it settles.
func (j *SettlementJob) RunDaily(ctx context.Context) error {
	params := &stripe.PaymentIntentCreateParams{}
	params.SetIdempotencyKey("settle:" + time.Now().UTC().Format("2006-01-02"))
	_, err := j.sc.V1PaymentIntents.Create(ctx, params)
	return err
}

// The scheduler's time for the run, truncated to its hour, with a
// timestamp that is no key.
func (j *SettlementJob) RunAt(ctx context.Context, scheduled time.Time) error {
	params := &stripe.PaymentIntentCreateParams{}
	params.SetIdempotencyKey("settle:" + scheduled.Truncate(time.Hour).Format(time.RFC3339))
	params.Headers.Set("X-Run-Started", time.Now().Format(time.RFC3339))
	_, err := j.sc.V1PaymentIntents.Create(ctx, params)
	return err
}

// A function named for its schedule.
func nightlyPayout(ctx context.Context, sc *stripe.Client) error {
	params := &stripe.PaymentIntentCreateParams{}
	params.SetIdempotencyKey("payout-" + uuid.NewString()) // want `inside the scheduled job nightlyPayout`
	_, err := sc.V1PaymentIntents.Create(ctx, params)
	return err
}

// A ticker loop: each tick is a run.
func reconcile(ctx context.Context, sc *stripe.Client) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			params := &stripe.PaymentIntentCreateParams{}
			params.SetIdempotencyKey(uuid.NewString()) // want `inside the ticker loop at cron.go:\d+ reaches SetIdempotencyKey: a retried or overlapping run`
			sc.V1PaymentIntents.Create(ctx, params)
		}
	}
}

func reconcileSlots(ctx context.Context, sc *stripe.Client) {
	for now := range time.Tick(time.Hour) {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey("reconcile:" + now.Truncate(time.Hour).Format(time.RFC3339))
		sc.V1PaymentIntents.Create(ctx, params)
	}
}

// Scheduler is a cron-style scheduler (robfig/cron's shape).
type Scheduler struct{}

// AddFunc runs f on spec's schedule.
func (s *Scheduler) AddFunc(spec string, f func()) error { return nil }

func schedule(s *Scheduler, sc *stripe.Client) {
	s.AddFunc("@hourly", func() {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey(fmt.Sprint(time.Now().UnixNano())) // want `inside the function scheduled by AddFunc`
		sc.V1PaymentIntents.Create(context.Background(), params)
	})
	s.AddFunc("@hourly", func() {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey("hourly:" + time.Now().Format("2006-01-02T15"))
		sc.V1PaymentIntents.Create(context.Background(), params)
	})
}

// A retry schedule of delays, and a range over a ticker channel.
func chargeOnSchedule(ctx context.Context, sc *stripe.Client) error {
	var err error
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 30 * time.Second} {
		if err = chargeOnce(ctx, sc, uuid.NewString()); err == nil { // want `inside the retry loop over backoff delays`
			return nil
		}
		time.Sleep(d)
	}
	return err
}

func reconcileEachTick(ctx context.Context, sc *stripe.Client) {
	for range time.Tick(time.Hour) {
		chargeOnce(ctx, sc, uuid.NewString()) // want `inside the ticker loop`
	}
}

// Each amount of a batch gets its own key: a range over values, not a retry.
func chargeAmounts(ctx context.Context, sc *stripe.Client, amounts []int64) {
	for range amounts {
		chargeOnce(ctx, sc, uuid.NewString())
	}
}
