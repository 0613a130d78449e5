// Package sched runs the billing platform's scheduled work: report jobs
// leased through DynamoDB, digests under a Redis lock, and the activities
// the subscription workflow engine calls (and retries on failure).
package sched

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	redigo "github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82"
)

// Job is a scheduled unit of work.
type Job struct {
	Name         string
	ScheduledFor time.Time
	Run          func(ctx context.Context) error
}

func (j Job) slot() string { return j.Name + "@" + j.ScheduledFor.UTC().Format(time.RFC3339) }

// Scheduler runs jobs on every instance; the store decides which
// instance actually runs a slot.
type Scheduler struct {
	ddb    *dynamodb.Client
	leases string
	rdb    *redis.Client
	pool   *redigo.Pool
	hc     *http.Client
	sc     *stripe.Client
	owner  string
	log    *slog.Logger
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func (sc *Scheduler) lease(ctx context.Context, j Job, d time.Duration) (bool, error) {
	now := time.Now()
	_, err := sc.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(sc.leases),
		Item: map[string]types.AttributeValue{
			"pk":          s(j.slot()),
			"owner":       s(sc.owner),
			"status":      s("running"),
			"lease_until": n(now.Add(d).Unix()),
		},
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR (#s = :running AND lease_until < :now)"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":running": s("running"), ":now": n(now.Unix())},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	return err == nil, err
}

func (sc *Scheduler) finish(ctx context.Context, j Job) error {
	_, err := sc.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(sc.leases),
		Key:                       map[string]types.AttributeValue{"pk": s(j.slot())},
		UpdateExpression:          aws.String("SET #s = :done"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("done")},
	})
	return err
}

func (sc *Scheduler) unlease(ctx context.Context, j Job) {
	_, _ = sc.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(sc.leases),
		Key:                       map[string]types.AttributeValue{"pk": s(j.slot())},
		ConditionExpression:       aws.String("#o = :me"),
		ExpressionAttributeNames:  map[string]string{"#o": "owner"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": s(sc.owner)},
	})
}

// RunSlot runs a job's slot on the one instance that leases it; the
// lease lasts as long as the longest run allowed.
//
// corpus: bug releaseonerror
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (record created by a conditional PutItem, updated when the work is done)
func (sc *Scheduler) RunSlot(ctx context.Context, j Job) error {
	ok, err := sc.lease(ctx, j, 2*time.Hour)
	if err != nil || !ok {
		return err
	}
	if err := j.Run(ctx); err != nil {
		return fmt.Errorf("%s: %w", j.slot(), err)
	}
	return sc.finish(ctx, j)
}

// RunSlotReleasing runs a job's slot on the one instance that leases it;
// a failed run gives the lease back so another instance can retry the
// slot.
//
// corpus: ok releaseonerror
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (record created by a conditional PutItem, updated when the work is done)
func (sc *Scheduler) RunSlotReleasing(ctx context.Context, j Job) (err error) {
	ok, err := sc.lease(ctx, j, 2*time.Hour)
	if err != nil || !ok {
		return err
	}
	defer func() {
		if err != nil {
			sc.unlease(context.WithoutCancel(ctx), j)
		}
	}()
	if err = j.Run(ctx); err != nil {
		return fmt.Errorf("%s: %w", j.slot(), err)
	}
	return sc.finish(ctx, j)
}

// Dispatch starts every due job in its own goroutine; a Redis lock per
// slot keeps two instances from running the same one.
//
// corpus: bug releaseonerror
// modelled on: naughtyJun/dcron README.md (distributed cron task locked with SetNX and unlocked by script)
func (sc *Scheduler) Dispatch(ctx context.Context, due []Job) {
	for _, j := range due {
		go func(j Job) {
			key := "lock:" + j.slot()
			ok, err := sc.rdb.SetNX(ctx, key, sc.owner, 30*time.Minute).Result()
			if err != nil || !ok {
				return
			}
			if err := j.Run(ctx); err != nil {
				sc.log.ErrorContext(ctx, "job failed", "slot", j.slot(), "err", err)
				return
			}
			sc.rdb.Del(ctx, key)
		}(j)
	}
}

// DispatchUnlocking starts every due job in its own goroutine; a Redis
// lock per slot keeps two instances from running the same one, and is
// released when the run ends, however it ends.
//
// corpus: ok releaseonerror
// modelled on: naughtyJun/dcron README.md (distributed cron task locked with SetNX and unlocked by script)
func (sc *Scheduler) DispatchUnlocking(ctx context.Context, due []Job) {
	for _, j := range due {
		go func(j Job) {
			key := "lock:" + j.slot()
			ok, err := sc.rdb.SetNX(ctx, key, sc.owner, 30*time.Minute).Result()
			if err != nil || !ok {
				return
			}
			defer sc.rdb.Del(context.WithoutCancel(ctx), key)
			if err := j.Run(ctx); err != nil {
				sc.log.ErrorContext(ctx, "job failed", "slot", j.slot(), "err", err)
				return
			}
		}(j)
	}
}

const digestLockMs = 10 * 60 * 1000

// SendDigest sends the daily account digest; a redigo SET NX PX lock
// keeps it to one instance.
//
// corpus: bug releaseonerror
// modelled on: distributed-infras/messenger prototype/redis/main.go (redigo conn.Do with SET and its options)
func (sc *Scheduler) SendDigest(ctx context.Context, day string, send func(context.Context) error) error {
	conn, err := sc.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "digest-lock:" + day
	token := uuid.NewString()
	reply, err := redigo.String(conn.Do("SET", key, token, "NX", "PX", digestLockMs))
	if errors.Is(err, redigo.ErrNil) {
		return nil // another instance has it
	}
	if err != nil {
		return err
	}
	if reply != "OK" {
		return fmt.Errorf("unexpected SET reply %q", reply)
	}
	if err := send(ctx); err != nil {
		return fmt.Errorf("digest %s: %w", day, err)
	}
	_, err = conn.Do("DEL", key)
	return err
}

var releaseLock = redigo.NewScript(1, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// SendDigestUnlocking sends the daily account digest; a redigo SET NX PX
// lock keeps it to one instance and is released by token on every exit.
//
// corpus: ok releaseonerror
// modelled on: distributed-infras/messenger prototype/redis/main.go (redigo conn.Do with SET and its options)
func (sc *Scheduler) SendDigestUnlocking(ctx context.Context, day string, send func(context.Context) error) error {
	conn, err := sc.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "digest-lock:" + day
	token := uuid.NewString()
	reply, err := redigo.String(conn.Do("SET", key, token, "NX", "PX", digestLockMs))
	if errors.Is(err, redigo.ErrNil) {
		return nil
	}
	if err != nil {
		return err
	}
	if reply != "OK" {
		return fmt.Errorf("unexpected SET reply %q", reply)
	}
	defer releaseLock.Do(conn, key, token)
	if err := send(ctx); err != nil {
		return fmt.Errorf("digest %s: %w", day, err)
	}
	return nil
}

// RunOncePerSlot runs a job unless the slot is recorded as run.
//
// corpus: bug checkthenact
// modelled on: go-co-op/gocron lockers/redislock/README.md (job named so that only one instance runs it)
func (sc *Scheduler) RunOncePerSlot(ctx context.Context, j Job) error {
	ranAt, err := sc.rdb.HGet(ctx, "job-runs", j.slot()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if ranAt != "" {
		return nil
	}
	if err := j.Run(ctx); err != nil {
		return err
	}
	return sc.rdb.HSet(ctx, "job-runs", j.slot(), time.Now().Unix()).Err()
}

// RunOncePerSlotClaimed runs a job unless the slot is recorded as run;
// HSETNX records the slot before the run and a failed run removes it.
//
// corpus: ok checkthenact
// modelled on: go-co-op/gocron lockers/redislock/README.md (job named so that only one instance runs it)
func (sc *Scheduler) RunOncePerSlotClaimed(ctx context.Context, j Job) error {
	set, err := sc.rdb.HSetNX(ctx, "job-runs", j.slot(), time.Now().Unix()).Result()
	if err != nil {
		return err
	}
	if !set {
		return nil
	}
	if err := j.Run(ctx); err != nil {
		sc.rdb.HDel(context.WithoutCancel(ctx), "job-runs", j.slot())
		return err
	}
	return nil
}

// ChargeInput is what the subscription workflow hands the charge
// activity.
type ChargeInput struct {
	WorkflowID string
	InvoiceID  string
	Customer   string
	Cents      int64
}

// ChargeSubscription is the workflow's charge activity. The engine
// retries it on any error, up to its retry policy.
//
// corpus: bug attemptkey
// modelled on: joshmsmith/temporal-order-management activities/charge.go (Charge activity called by the workflow and retried on error)
func (sc *Scheduler) ChargeSubscription(ctx context.Context, in ChargeInput) (string, error) {
	params := &stripe.PaymentIntentCreateParams{
		Amount:   stripe.Int64(in.Cents),
		Currency: stripe.String(string(stripe.CurrencyEUR)),
		Customer: stripe.String(in.Customer),
		Confirm:  stripe.Bool(true),
	}
	params.IdempotencyKey = stripe.String(uuid.NewString())
	pi, err := sc.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return "", err
	}
	return pi.ID, nil
}

// ChargeSubscriptionKeyed is the workflow's charge activity. The engine
// retries it on any error; every attempt uses the key made from the
// workflow and the invoice.
//
// corpus: ok attemptkey
// modelled on: joshmsmith/temporal-order-management activities/charge.go (Charge activity called by the workflow and retried on error)
func (sc *Scheduler) ChargeSubscriptionKeyed(ctx context.Context, in ChargeInput) (string, error) {
	params := &stripe.PaymentIntentCreateParams{
		Amount:   stripe.Int64(in.Cents),
		Currency: stripe.String(string(stripe.CurrencyEUR)),
		Customer: stripe.String(in.Customer),
		Confirm:  stripe.Bool(true),
	}
	params.IdempotencyKey = stripe.String(in.WorkflowID + ":" + in.InvoiceID)
	pi, err := sc.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return "", err
	}
	return pi.ID, nil
}

func (sc *Scheduler) callUsageAPI(ctx context.Context, url, key string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := sc.hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// PushUsage reports a job's metered usage to the billing provider,
// retrying on a timer until it is accepted or ctx ends.
//
// corpus: bug attemptkey
// modelled on: alextanhongpin/go-scheduler README.md (cron jobs across instances and restarts before a task completes)
func (sc *Scheduler) PushUsage(ctx context.Context, j Job, url string) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			key := fmt.Sprintf("%s-%d", j.Name, rand.Int64())
			code, err := sc.callUsageAPI(ctx, url, key)
			if err == nil && code < 300 {
				return nil
			}
			timer.Reset(30 * time.Second)
		}
	}
}

// PushUsageKeyed reports a job's metered usage to the billing provider,
// retrying on a timer; the key is the job and the slot it ran for, the
// same on every attempt.
//
// corpus: ok attemptkey
// modelled on: alextanhongpin/go-scheduler README.md (cron jobs across instances and restarts before a task completes)
func (sc *Scheduler) PushUsageKeyed(ctx context.Context, j Job, url string) error {
	key := fmt.Sprintf("%s-%d", j.Name, j.ScheduledFor.Unix())
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			code, err := sc.callUsageAPI(ctx, url, key)
			if err == nil && code < 300 {
				return nil
			}
			timer.Reset(30 * time.Second)
		}
	}
}
