package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// PayoutJob pays connected accounts what they are owed, once a day.
type PayoutJob struct {
	Deps
}

// Run pays every account owed money. The provider key carries the moment the
// run started, so when the scheduler reruns a slot whose run died halfway,
// the accounts already paid are paid again under new keys.
//
// corpus: bug attemptkey
// modelled on: diagridio/go-etcd-cron README.md (a trigger function the scheduler calls again when it reports failure)
func (j *PayoutJob) Run(ctx context.Context, scheduled time.Time) error {
	owed, err := j.Balances.Owed(ctx)
	if err != nil {
		return err
	}
	for account, cents := range owed {
		key := fmt.Sprintf("payout-%s-%s", account, time.Now().UTC().Format(time.RFC3339))
		if _, err := j.Payouts.CreatePayout(ctx, PayoutRequest{
			Account:        account,
			Cents:          cents,
			Currency:       "eur",
			IdempotencyKey: key,
		}); err != nil {
			return fmt.Errorf("payout %s: %w", account, err)
		}
	}
	return nil
}

// RunSlotted keys each payout on the job, its daily slot and the account, so
// a rerun of the slot repeats the same keys and the provider answers them
// with the payouts it already made.
//
// corpus: ok attemptkey
// modelled on: diagridio/go-etcd-cron README.md (a trigger function the scheduler calls again when it reports failure)
func (j *PayoutJob) RunSlotted(ctx context.Context, scheduled time.Time) error {
	owed, err := j.Balances.Owed(ctx)
	if err != nil {
		return err
	}
	slot := Slot(scheduled, 24*time.Hour).Format("2006-01-02")
	for account, cents := range owed {
		if _, err := j.Payouts.CreatePayout(ctx, PayoutRequest{
			Account:        account,
			Cents:          cents,
			Currency:       "eur",
			IdempotencyKey: "daily-payout/" + slot + "/" + account,
			RequestedAt:    time.Now(),
		}); err != nil {
			return fmt.Errorf("payout %s: %w", account, err)
		}
	}
	return nil
}

// RegisterReminders schedules the hourly overdue-invoice reminders. The
// dedup prefix is taken from the clock the first time the job runs on a
// replica, so each replica has its own prefix and every replica mails every
// overdue customer.
//
// corpus: bug attemptkey
// modelled on: mizuki1412/go-core-kit service/cronkit/README.md (c.AddFunc with a closure run by every process that registers it)
func RegisterReminders(s Scheduler, d Deps) {
	var once sync.Once
	var prefix string
	s.Every("invoice-reminders", time.Hour, func(ctx context.Context, scheduled time.Time) error {
		once.Do(func() {
			prefix = "reminder:" + strconv.FormatInt(time.Now().Unix(), 10) + ":"
		})
		overdue, err := d.Invoices.Overdue(ctx)
		if err != nil {
			return err
		}
		for _, inv := range overdue {
			first, err := d.RDB.SetNX(ctx, prefix+inv.ID, "1", 23*time.Hour).Result()
			if err != nil {
				return err
			}
			if !first {
				continue
			}
			if err := d.Mailer.Send(ctx, inv.Customer, "invoice-overdue", inv); err != nil {
				d.RDB.Del(context.WithoutCancel(ctx), prefix+inv.ID)
				return err
			}
		}
		return nil
	})
}

// RegisterRemindersDaily builds the dedup key from the job's name, the day
// of its slot and the invoice, which every replica computes alike.
//
// corpus: ok attemptkey
// modelled on: mizuki1412/go-core-kit service/cronkit/README.md (c.AddFunc with a closure run by every process that registers it)
func RegisterRemindersDaily(s Scheduler, d Deps) {
	s.Every("invoice-reminders", time.Hour, func(ctx context.Context, scheduled time.Time) error {
		prefix := "reminder:" + Slot(scheduled, 24*time.Hour).Format("20060102") + ":"
		overdue, err := d.Invoices.Overdue(ctx)
		if err != nil {
			return err
		}
		for _, inv := range overdue {
			first, err := d.RDB.SetNX(ctx, prefix+inv.ID, "1", 25*time.Hour).Result()
			if err != nil {
				return err
			}
			if !first {
				continue
			}
			if err := d.Mailer.Send(ctx, inv.Customer, "invoice-overdue", inv); err != nil {
				d.RDB.Del(context.WithoutCancel(ctx), prefix+inv.ID)
				return err
			}
		}
		return nil
	})
}

// BatchLine is one line of an uploaded payout batch.
type BatchLine struct {
	ID      string
	Account string
	Cents   int64
}

// PayoutBatch pays the lines of an uploaded batch file.
type PayoutBatch struct {
	Deps
}

// PayLines pays each line, retrying a line up to three times. The key is
// made inside the retry loop from the clock, so a timeout on a payout the
// provider did make is retried as a new payout.
//
// corpus: bug attemptkey
// modelled on: FPNL/go-strategy README.md (API calls retried with exponential backoff up to a maximum)
func (b *PayoutBatch) PayLines(ctx context.Context, batchID string, lines []BatchLine) error {
	for _, line := range lines {
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			ref := fmt.Sprintf("%s-%s-%d", batchID, line.ID, time.Now().UnixNano())
			_, err = b.Payouts.CreatePayout(ctx, PayoutRequest{
				Account:        line.Account,
				Cents:          line.Cents,
				Currency:       "eur",
				IdempotencyKey: ref,
			})
			if err == nil {
				break
			}
			time.Sleep(time.Duration(attempt+1) * time.Second)
		}
		if err != nil {
			return fmt.Errorf("line %s: %w", line.ID, err)
		}
	}
	return nil
}

// PayLinesStable keys each payout on the batch and the line; the clock only
// fills the RequestedAt timestamp, which the provider does not dedup on.
//
// corpus: ok attemptkey
// modelled on: FPNL/go-strategy README.md (API calls retried with exponential backoff up to a maximum)
func (b *PayoutBatch) PayLinesStable(ctx context.Context, batchID string, lines []BatchLine) error {
	for _, line := range lines {
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			_, err = b.Payouts.CreatePayout(ctx, PayoutRequest{
				Account:        line.Account,
				Cents:          line.Cents,
				Currency:       "eur",
				IdempotencyKey: batchID + "/" + line.ID,
				RequestedAt:    time.Now().UTC(),
			})
			if err == nil {
				break
			}
			time.Sleep(time.Duration(attempt+1) * time.Second)
		}
		if err != nil {
			return fmt.Errorf("line %s: %w", line.ID, err)
		}
	}
	return nil
}

// Reconciler matches bank statements to ledger entries.
type Reconciler struct {
	Deps
	reconcile func(ctx context.Context, day time.Time) error
}

// Reconcile runs the day's reconciliation on one replica at a time under a
// SETNX lock. When the reconciliation fails it returns with the lock held,
// and no replica reconciles again for the lock's six hours.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry and a separate unlock)
func (r *Reconciler) Reconcile(ctx context.Context, scheduled time.Time) error {
	const key = "job:reconcile:lock"
	ok, err := r.RDB.SetNX(ctx, key, "1", 6*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		r.Log.Info("reconcile already running elsewhere")
		return nil
	}
	if err := r.reconcile(ctx, Slot(scheduled, 24*time.Hour)); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	return r.RDB.Del(ctx, key).Err()
}

// ReconcileDeferred defers the release as soon as the lock is held.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry and an unlock by its holder)
func (r *Reconciler) ReconcileDeferred(ctx context.Context, scheduled time.Time) error {
	const key = "job:reconcile:lock"
	ok, err := r.RDB.SetNX(ctx, key, "1", 6*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	defer r.RDB.Del(context.WithoutCancel(ctx), key)

	if err := r.reconcile(ctx, Slot(scheduled, 24*time.Hour)); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	return nil
}

// DigestJob mails each team its daily digest.
type DigestJob struct {
	Deps
	build func(ctx context.Context, team string, day time.Time) (any, error)
}

// SendDigest mails the digest unless the day's marker says it went out. Two
// replicas firing the same slot both read no marker and both mail.
//
// corpus: bug checkthenact
// modelled on: regner/albiondata-backend dispatcher/utils.go (Get, redis.Nil taken as not done yet, then a separate Set)
func (j *DigestJob) SendDigest(ctx context.Context, team string, scheduled time.Time) error {
	day := Slot(scheduled, 24*time.Hour)
	key := "digest:sent:" + team + ":" + day.Format("2006-01-02")
	if err := j.RDB.Get(ctx, key).Err(); err == nil {
		return nil
	} else if !errors.Is(err, redis.Nil) {
		return err
	}
	digest, err := j.build(ctx, team, day)
	if err != nil {
		return err
	}
	if err := j.Mailer.Send(ctx, team, "daily-digest", digest); err != nil {
		return err
	}
	return j.RDB.Set(ctx, key, "1", 48*time.Hour).Err()
}

// SendDigestClaimed claims the team's slot with SET NX before building, so
// one replica mails; a failure hands the slot back for the rerun.
//
// corpus: ok checkthenact
// modelled on: alextanhongpin/go-scheduler README.md (cron scheduler on multiple instances, job run once per schedule)
func (j *DigestJob) SendDigestClaimed(ctx context.Context, team string, scheduled time.Time) error {
	day := Slot(scheduled, 24*time.Hour)
	key := "digest:sent:" + team + ":" + day.Format("2006-01-02")
	_, err := j.RDB.SetArgs(ctx, key, "1", redis.SetArgs{Mode: "NX", TTL: 48 * time.Hour}).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := j.mail(ctx, team, day); err != nil {
		j.RDB.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}

// SendDigestMarked claims the slot as "running" and sets it to "done" when
// the mail went out. A job has no answer to replay; "done" is all the next
// replica needs.
//
// corpus: ok cacheresponse
// modelled on: diagridio/go-etcd-cron README.md (trigger reports success or failure, nothing else)
func (j *DigestJob) SendDigestMarked(ctx context.Context, team string, scheduled time.Time) error {
	day := Slot(scheduled, 24*time.Hour)
	key := "digest:state:" + team + ":" + day.Format("2006-01-02")
	ok, err := j.RDB.SetNX(ctx, key, "running", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	if err := j.mail(ctx, team, day); err != nil {
		j.RDB.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return j.RDB.Set(ctx, key, "done", 48*time.Hour).Err()
}

func (j *DigestJob) mail(ctx context.Context, team string, day time.Time) error {
	digest, err := j.build(ctx, team, day)
	if err != nil {
		return err
	}
	return j.Mailer.Send(ctx, team, "daily-digest", digest)
}
