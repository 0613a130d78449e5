// Package hashstate keeps each payout's state in a Redis hash, and
// reads it whole.
package hashstate

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Bank sends payouts.
type Bank interface {
	SendPayout(ctx context.Context, payoutID string, cents int64) error
}

// Mailer sends receipts.
type Mailer interface {
	SendReceipt(ctx context.Context, to, payoutID string) error
}

// payoutState is a payout's hash, scanned whole.
type payoutState struct {
	Status string `redis:"status"`
	Email  string `redis:"email"`
	Cents  int64  `redis:"cents"`
}

// Payouts runs payouts from a queue that redelivers.
type Payouts struct {
	rdb    *redis.Client
	bank   Bank
	mailer Mailer
}

// Pay scans the payout's hash, pays unless its status is "paid", then
// sets the status: two deliveries both find it unpaid and both pay.
//
// corpus: bug checkthenact
// modelled on: leetcode-golang-classroom/golang-sample-with-redis README.md (HGetAll(...).Scan into a struct of redis-tagged fields), with a status field checked before a payout
func (p *Payouts) Pay(ctx context.Context, payoutID string) error {
	key := "payout:" + payoutID
	var st payoutState
	if err := p.rdb.HGetAll(ctx, key).Scan(&st); err != nil {
		return err
	}
	if st.Status == "paid" {
		return nil
	}
	if err := p.bank.SendPayout(ctx, payoutID, st.Cents); err != nil {
		return err
	}
	return p.rdb.HSet(ctx, key, "status", "paid").Err()
}

// PayClaimed reads the status to skip the common duplicate, then claims
// the payout with HSETNX of a lock field before paying: the claim, not
// the read, lets one delivery through.
//
// corpus: ok checkthenact
// modelled on: dongzhonghua/dongzhonghua.github.io notes/20.10之前归档/写Redis时的并发异常和分布式锁.md (a read, then SET NX before the work) on a hash's field
func (p *Payouts) PayClaimed(ctx context.Context, payoutID string) error {
	key := "payout:" + payoutID
	status, err := p.rdb.HGet(ctx, key, "status").Result()
	if err != nil && err != redis.Nil {
		return err
	}
	if status == "paid" {
		return nil
	}
	won, err := p.rdb.HSetNX(ctx, key, "status", "paying").Result()
	if err != nil || !won {
		return err
	}
	var cents int64
	if err := p.rdb.HGet(ctx, key, "cents").Scan(&cents); err != nil {
		p.rdb.HDel(context.WithoutCancel(ctx), key, "status")
		return err
	}
	if err := p.bank.SendPayout(ctx, payoutID, cents); err != nil {
		p.rdb.HDel(context.WithoutCancel(ctx), key, "status")
		return err
	}
	return p.rdb.HSet(ctx, key, "status", "paid").Err()
}

// Receipt mails the receipt of a paid payout and records when: the hash
// is read whole for its email, and the field written is not what was
// checked.
//
// corpus: ok checkthenact
// modelled on: leetcode-golang-classroom/golang-sample-with-redis README.md (HGetAll(...).Scan into a struct), read for an address
func (p *Payouts) Receipt(ctx context.Context, payoutID string) error {
	key := "payout:" + payoutID
	var st payoutState
	if err := p.rdb.HGetAll(ctx, key).Scan(&st); err != nil {
		return err
	}
	if st.Status != "paid" || st.Email == "" {
		return nil
	}
	if err := p.mailer.SendReceipt(ctx, st.Email, payoutID); err != nil {
		return err
	}
	return p.rdb.HSet(ctx, key, "receipt_sent_at", time.Now().Unix()).Err()
}

// Settle marks a settlement key "running" with SET NX after a read that
// skips finished ones, settles, and marks it "done".
//
// corpus: ok checkthenact
// modelled on: dongzhonghua/dongzhonghua.github.io notes/20.10之前归档/写Redis时的并发异常和分布式锁.md (GET-then-SETEX dedup replaced by SET NX EX), with a "done" mark after the work
func (p *Payouts) Settle(ctx context.Context, payoutID string, cents int64) error {
	key := "settled:" + payoutID
	if st, err := p.rdb.Get(ctx, key).Result(); err == nil && st == "done" {
		return nil
	}
	ok, err := p.rdb.SetNX(ctx, key, "running", 5*time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	if err := p.bank.SendPayout(ctx, payoutID, cents); err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return p.rdb.Set(ctx, key, "done", 72*time.Hour).Err()
}
