package checkthenact

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// refunds keeps each refund's state in a hash, and a marker under a key.
type refunds struct {
	rdb    *redis.Client
	refund func(ctx context.Context, id string) error
	mail   func(ctx context.Context, to string) error
}

// settle reads the refund's hash whole, checks its state field, refunds,
// and sets the field: two callers both find it open and both refund.
func (r *refunds) settle(ctx context.Context, id string) error {
	h, err := r.rdb.HGetAll(ctx, "refund:"+id).Result()
	if err != nil {
		return err
	}
	if h["state"] == "done" {
		return nil
	}
	if err := r.refund(ctx, id); err != nil {
		return err
	}
	return r.rdb.HSet(ctx, "refund:"+id, "state", "done").Err() // want `HSET of "refund:" \+ id after the HGETALL at hashwhole.go:\d+ races with a concurrent retry`
}

// welcome reads a profile whole for its address and sets a flag that
// nothing checked: no check-then-act on the flag.
func (r *refunds) welcome(ctx context.Context, id string) error {
	u, err := r.rdb.HGetAll(ctx, "user:"+id).Result()
	if err != nil {
		return err
	}
	if u["verified"] != "1" {
		return nil
	}
	if err := r.mail(ctx, u["email"]); err != nil {
		return err
	}
	return r.rdb.HSet(ctx, "user:"+id, "mailed_at", time.Now().Unix()).Err()
}

// settleClaimed reads the state first to skip the common duplicate, then
// claims it with HSETNX before the refund: the claim decides.
func (r *refunds) settleClaimed(ctx context.Context, id string) error {
	h, err := r.rdb.HGetAll(ctx, "refund:"+id).Result()
	if err != nil {
		return err
	}
	if h["state"] == "done" {
		return nil
	}
	ok, err := r.rdb.HSetNX(ctx, "refund:"+id, "state", "running").Result()
	if err != nil || !ok {
		return err
	}
	if err := r.refund(ctx, id); err != nil {
		r.rdb.HDel(ctx, "refund:"+id, "state")
		return err
	}
	return r.rdb.HSet(ctx, "refund:"+id, "state", "done").Err()
}

// settleMarked reads the marker, claims it with SET NX "running", refunds
// and marks it "done": the claim, not the read, lets one caller through.
func (r *refunds) settleMarked(ctx context.Context, id string) error {
	if st, err := r.rdb.Get(ctx, "refunded:"+id).Result(); err == nil && st == "done" {
		return nil
	}
	ok, err := r.rdb.SetNX(ctx, "refunded:"+id, "running", time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	if err := r.refund(ctx, id); err != nil {
		r.rdb.Del(ctx, "refunded:"+id)
		return err
	}
	return r.rdb.Set(ctx, "refunded:"+id, "done", 24*time.Hour).Err()
}

// settleLate claims only after the refund: both callers have refunded by
// then.
func (r *refunds) settleLate(ctx context.Context, id string) error {
	if st, err := r.rdb.Get(ctx, "late:"+id).Result(); err == nil && st == "done" {
		return nil
	}
	if err := r.refund(ctx, id); err != nil {
		return err
	}
	ok, err := r.rdb.SetNX(ctx, "late:"+id, "running", time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	return r.rdb.Set(ctx, "late:"+id, "done", 24*time.Hour).Err() // want `SET of "late:" \+ id after the GET at hashwhole.go:\d+ races with a concurrent retry`
}

// welcomeMailer sends welcome mails.
type welcomeMailer interface {
	SendWelcome(ctx context.Context, userID string) error
}

type welcomes struct {
	rdb    *redis.Client
	mailer welcomeMailer
}

// mailOnce skips a user the set already has, then claims the user with
// SADD, whose count says whether it added: the count, not the read,
// decides who mails.
func (m *welcomes) mailOnce(ctx context.Context, id string) error {
	if seen, _ := m.rdb.SIsMember(ctx, "mailed", id).Result(); seen {
		return nil
	}
	added, err := m.rdb.SAdd(ctx, "mailed", id).Result()
	if err != nil || added == 0 {
		return err
	}
	if err := m.mailer.SendWelcome(ctx, id); err != nil {
		m.rdb.SRem(context.WithoutCancel(ctx), "mailed", id)
		return err
	}
	return nil
}

// mailThenMark mails after the read and adds to the set after: both
// callers mail.
func (m *welcomes) mailThenMark(ctx context.Context, id string) error {
	if seen, _ := m.rdb.SIsMember(ctx, "marked", id).Result(); seen {
		return nil
	}
	if err := m.mailer.SendWelcome(ctx, id); err != nil {
		return err
	}
	return m.rdb.SAdd(ctx, "marked", id).Err() // want `SADD of "marked" after the SISMEMBER at hashwhole.go:\d+ races with a concurrent retry`
}

// mailErrOnly claims with SET NX but looks only at its error, never at
// whether it took the key: every caller that passed the read mails.
func (m *welcomes) mailErrOnly(ctx context.Context, id string) error {
	if st, err := m.rdb.Get(ctx, "welcome:"+id).Result(); err == nil && st == "sent" {
		return nil
	}
	if err := m.rdb.SetNX(ctx, "welcome:"+id, "sending", time.Minute).Err(); err != nil {
		return err
	}
	if err := m.mailer.SendWelcome(ctx, id); err != nil {
		return err
	}
	return m.rdb.Set(ctx, "welcome:"+id, "sent", 24*time.Hour).Err() // want `SET of "welcome:" \+ id after the GET at hashwhole.go:\d+ races with a concurrent retry`
}
