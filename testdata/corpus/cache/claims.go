package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	redisv8 "github.com/go-redis/redis/v8"
	"github.com/redis/go-redis/v9"
)

// Settlements settles merchant balances; one settlement per merchant may run
// at a time.
type Settlements struct {
	rdb    *redis.Client
	locker *Locker
	ledger Ledger
	sum    func(ctx context.Context, merchant string) (int64, error)
	log    *slog.Logger
}

// Settle pays out the merchant's balance under a SETNX lock. When the sum or
// the payout fails it returns with the lock held, and settlement for that
// merchant is blocked for the lock's hour.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry and a separate unLock)
func (s *Settlements) Settle(ctx context.Context, merchant string) error {
	key := "settle:lock:" + merchant
	ok, err := s.rdb.SetNX(ctx, key, "1", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrInProgress
	}
	balance, err := s.sum(ctx, merchant)
	if err != nil {
		return fmt.Errorf("sum balance: %w", err)
	}
	if err := s.ledger.Debit(ctx, merchant, balance, "settlement"); err != nil {
		return fmt.Errorf("pay out: %w", err)
	}
	return s.rdb.Del(ctx, key).Err()
}

// SettleWithHelper takes the lock through Locker.Acquire and calls the unlock
// function it got back on the success path only.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (lock helper with a token and an unLock that checks the holder)
func (s *Settlements) SettleWithHelper(ctx context.Context, merchant string) error {
	unlock, err := s.locker.Acquire(ctx, "settle:lock:"+merchant, time.Hour)
	if err != nil {
		return err
	}
	balance, err := s.sum(ctx, merchant)
	if err != nil {
		return fmt.Errorf("sum balance: %w", err)
	}
	if balance == 0 {
		unlock()
		return nil
	}
	if err := s.ledger.Debit(ctx, merchant, balance, "settlement"); err != nil {
		return fmt.Errorf("pay out: %w", err)
	}
	unlock()
	return nil
}

// SettleLateDefer defers the release, but only after a check that can
// return first; that early return leaves the lock held.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock, unlock by the holder)
func (s *Settlements) SettleLateDefer(ctx context.Context, merchant string) error {
	key := "settle:lock:" + merchant
	ok, err := s.rdb.SetNX(ctx, key, "1", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrInProgress
	}
	balance, err := s.sum(ctx, merchant)
	if err != nil {
		return fmt.Errorf("sum balance: %w", err)
	}
	defer s.rdb.Del(context.WithoutCancel(ctx), key)

	return s.ledger.Debit(ctx, merchant, balance, "settlement")
}

// SettleWithRelease releases through a local closure, called on every path
// out after the lock is taken.
//
// corpus: ok releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis helper pairing each acquire with its release)
func (s *Settlements) SettleWithRelease(ctx context.Context, merchant string) error {
	key := "settle:lock:" + merchant
	ok, err := s.rdb.SetNX(ctx, key, "1", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrInProgress
	}
	release := func() {
		if err := s.rdb.Del(context.WithoutCancel(ctx), key).Err(); err != nil {
			s.log.Warn("release settlement lock", "merchant", merchant, "err", err)
		}
	}
	balance, err := s.sum(ctx, merchant)
	if err != nil {
		release()
		return fmt.Errorf("sum balance: %w", err)
	}
	if err := s.ledger.Debit(ctx, merchant, balance, "settlement"); err != nil {
		release()
		return fmt.Errorf("pay out: %w", err)
	}
	release()
	return nil
}

// SettleDeferredOnError keeps the lock as a "settled today" marker on
// success and deletes it from a deferred func literal when the named error
// is set.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX marker with an expiry and its delete)
func (s *Settlements) SettleDeferredOnError(ctx context.Context, merchant string) (err error) {
	key := "settle:" + time.Now().UTC().Format("2006-01-02") + ":" + merchant
	ok, err := s.rdb.SetNX(ctx, key, "1", 36*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrDuplicate
	}
	defer func() {
		if err != nil {
			s.rdb.Del(context.WithoutCancel(ctx), key)
		}
	}()
	balance, err := s.sum(ctx, merchant)
	if err != nil {
		return fmt.Errorf("sum balance: %w", err)
	}
	return s.ledger.Debit(ctx, merchant, balance, "settlement")
}

// SettleDeferUnlock takes the lock through the helper and defers its unlock
// on the next line.
//
// corpus: ok releaseonerror
// modelled on: nezhafan/rds README.md (TryLock, then defer mu.Unlock())
func (s *Settlements) SettleDeferUnlock(ctx context.Context, merchant string) error {
	unlock, err := s.locker.Acquire(ctx, "settle:lock:"+merchant, time.Hour)
	if err != nil {
		return err
	}
	defer unlock()

	balance, err := s.sum(ctx, merchant)
	if err != nil {
		return fmt.Errorf("sum balance: %w", err)
	}
	return s.ledger.Debit(ctx, merchant, balance, "settlement")
}

// SettleAsync answers as soon as the lock is taken and settles in a
// goroutine, which releases the lock whatever happens.
//
// corpus: ok releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis-backed work handed off and cleaned up by the worker)
func (s *Settlements) SettleAsync(ctx context.Context, merchant string) error {
	key := "settle:lock:" + merchant
	ok, err := s.rdb.SetNX(ctx, key, "1", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrInProgress
	}
	go func() {
		bg := context.WithoutCancel(ctx)
		defer s.rdb.Del(bg, key)
		balance, err := s.sum(bg, merchant)
		if err != nil {
			s.log.Error("settlement sum", "merchant", merchant, "err", err)
			return
		}
		if err := s.ledger.Debit(bg, merchant, balance, "settlement"); err != nil {
			s.log.Error("settlement payout", "merchant", merchant, "err", err)
		}
	}()
	return nil
}

// PasswordResets mails password-reset links.
type PasswordResets struct {
	rdb      *redis.Client
	notifier Notifier
}

// SendReset mails a reset link at most once a minute per address. The
// cooldown key stays when the mail fails: it is a throttle, and it is meant
// to outlive failures.
//
// corpus: ok releaseonerror
// modelled on: zty-f/GoTest redis/main.go (SetNX of a key with an expiry, left to expire)
func (p *PasswordResets) SendReset(ctx context.Context, email, link string) error {
	key := "cooldown:reset:" + email
	ok, err := p.rdb.SetNX(ctx, key, "1", time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("a reset link was sent less than a minute ago")
	}
	if err := p.notifier.Notify(ctx, email, "password-reset", map[string]string{"link": link}); err != nil {
		return fmt.Errorf("send reset: %w", err)
	}
	return nil
}

// RefundService refunds charges once per client request.
type RefundService struct {
	rdb     *redis.Client
	refunds Refunds
}

// Refund claims the request in a hash with HSETNX on its status field and,
// on success, sets the status to "succeeded". The refund ID the caller needs
// is never stored, so a retry cannot return it.
//
// corpus: bug cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (status field per idempotency key: processing, then succeeded)
func (s *RefundService) Refund(ctx context.Context, requestID, chargeID string, cents int64) (*Refund, error) {
	key := "idem:refund:" + requestID
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		return nil, err
	}
	if !claimed {
		return nil, ErrDuplicate
	}
	s.rdb.Expire(ctx, key, 24*time.Hour)
	r, err := s.refunds.Issue(ctx, chargeID, cents)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	s.rdb.HSet(ctx, key, "status", "succeeded")
	return r, nil
}

// RefundReplayable stores the refund next to the status, and a retry gets it
// back.
//
// corpus: ok cacheresponse
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (StoreResult and GetResult beside the processed mark)
func (s *RefundService) RefundReplayable(ctx context.Context, requestID, chargeID string, cents int64) (*Refund, error) {
	key := "idem:refund:" + requestID
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		return nil, err
	}
	if !claimed {
		fields, err := s.rdb.HGetAll(ctx, key).Result()
		if err != nil {
			return nil, err
		}
		if fields["status"] != "succeeded" {
			return nil, ErrInProgress
		}
		var r Refund
		if err := json.Unmarshal([]byte(fields["result"]), &r); err != nil {
			return nil, err
		}
		return &r, nil
	}
	s.rdb.Expire(ctx, key, 24*time.Hour)
	r, err := s.refunds.Issue(ctx, chargeID, cents)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	s.rdb.HSet(ctx, key, "status", "succeeded", "result", encode(r))
	return r, nil
}

// LegacyRefunds is the v8 refund path of the older billing service.
type LegacyRefunds struct {
	rdb     *redisv8.Client
	refunds Refunds
}

// Refund claims the request with SETNX and completes it with a "state"
// field of "completed" in a separate hash; the refund itself is dropped.
//
// corpus: bug cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (processing and completed states per key)
func (s *LegacyRefunds) Refund(ctx context.Context, requestID, chargeID string, cents int64) (*Refund, error) {
	claim := "idem:refund:claim:" + requestID
	ok, err := s.rdb.SetNX(ctx, claim, "1", 24*time.Hour).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrDuplicate
	}
	r, err := s.refunds.Issue(ctx, chargeID, cents)
	if err != nil {
		s.rdb.Del(context.Background(), claim)
		return nil, err
	}
	s.rdb.HSet(ctx, "idem:refund:"+requestID, "state", "completed")
	return r, nil
}

// StoredResponse is an upstream answer kept for replay.
type StoredResponse struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   []byte            `json:"body"`
}

// PartnerRelay forwards partner calls to the core API once per partner
// Idempotency-Key and replays the answer to retries.
type PartnerRelay struct {
	rdb     *redis.Client
	forward func(ctx context.Context, path string, body []byte) (*StoredResponse, error)
}

// Relay stores whatever the core answered, 503s included, so a partner
// that retries a transient failure gets the same 503 for a day.
//
// corpus: bug cacheresponse
// modelled on: joseph-caughey-labs/web-patterns-cookbook packages/webhooks-idempotency-retries/README.md (store key to result, return the same response to duplicates)
func (p *PartnerRelay) Relay(ctx context.Context, idemKey, path string, body []byte) (*StoredResponse, error) {
	key := "relay:" + idemKey
	ok, err := p.rdb.SetNX(ctx, key, "pending", 24*time.Hour).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return p.stored(ctx, key)
	}
	resp, err := p.forward(ctx, path, body)
	if err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	p.rdb.Set(ctx, key, encode(resp), 24*time.Hour)
	return resp, nil
}

// RelayNo5xx stores 2xx and 4xx answers and releases the key on a 5xx, so
// the partner's retry reaches the core again.
//
// corpus: ok cacheresponse
// modelled on: joseph-caughey-labs/web-patterns-cookbook packages/webhooks-idempotency-retries/README.md (store key to result for replay)
func (p *PartnerRelay) RelayNo5xx(ctx context.Context, idemKey, path string, body []byte) (*StoredResponse, error) {
	key := "relay:" + idemKey
	ok, err := p.rdb.SetNX(ctx, key, "pending", 24*time.Hour).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return p.stored(ctx, key)
	}
	resp, err := p.forward(ctx, path, body)
	if err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	if resp.Status >= http.StatusInternalServerError {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return resp, nil
	}
	p.rdb.Set(ctx, key, encode(resp), 24*time.Hour)
	return resp, nil
}

func (p *PartnerRelay) stored(ctx context.Context, key string) (*StoredResponse, error) {
	v, err := p.rdb.Get(ctx, key).Bytes()
	if err != nil {
		return nil, err
	}
	if string(v) == "pending" {
		return nil, ErrInProgress
	}
	var r StoredResponse
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AccountClosures closes customer accounts on request.
type AccountClosures struct {
	rdb   *redis.Client
	close func(ctx context.Context, account string) error
}

// Close closes the account once per request ID and marks the request
// "done". Close answers only success or failure, so "done" is the whole
// answer a retry needs.
//
// corpus: ok cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (processing, then completed, per idempotency key)
func (a *AccountClosures) Close(ctx context.Context, requestID, account string) error {
	key := "idem:close:" + requestID
	ok, err := a.rdb.SetNX(ctx, key, "processing", 24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		state, err := a.rdb.Get(ctx, key).Result()
		if err != nil {
			return err
		}
		if state == "done" {
			return nil
		}
		return ErrInProgress
	}
	if err := a.close(ctx, account); err != nil {
		a.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return a.rdb.Set(ctx, key, "done", 24*time.Hour).Err()
}

// RefundCheckedClaim reads the request's status and, when there is none,
// writes "processing" with a plain HSET: the claim is a read and a write, and
// two retries that read together both issue the refund.
//
// corpus: bug checkthenact
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (status tracking per idempotency key)
func (s *RefundService) RefundCheckedClaim(ctx context.Context, requestID, chargeID string, cents int64) (*Refund, error) {
	key := "idem:refund:" + requestID
	status, err := s.rdb.HGet(ctx, key, "status").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	switch status {
	case "succeeded":
		raw, err := s.rdb.HGet(ctx, key, "result").Result()
		if err != nil {
			return nil, err
		}
		var r Refund
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, err
		}
		return &r, nil
	case "processing":
		return nil, ErrInProgress
	}
	if err := s.rdb.HSet(ctx, key, "status", "processing").Err(); err != nil {
		return nil, err
	}
	s.rdb.Expire(ctx, key, 24*time.Hour)
	r, err := s.refunds.Issue(ctx, chargeID, cents)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	s.rdb.HSet(ctx, key, "status", "succeeded", "result", encode(r))
	return r, nil
}
