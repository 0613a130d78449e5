package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// PromoService redeems promotional codes against the ledger.
type PromoService struct {
	rdb    *redis.Client
	ledger Ledger
}

// RedeemPromo credits the value of a single-use code to the user who redeems
// it first.
//
// corpus: bug checkthenact
// modelled on: regner/albiondata-backend dispatcher/utils.go (is_duped_message: Get, redis.Nil taken as new, then a separate Set)
func (s *PromoService) RedeemPromo(ctx context.Context, code, userID string, cents int64) error {
	key := "redeem:" + code
	holder, err := s.rdb.Get(ctx, key).Result()
	if err == nil {
		return fmt.Errorf("code %s already redeemed by %s: %w", code, holder, ErrDuplicate)
	}
	if !errors.Is(err, redis.Nil) {
		return fmt.Errorf("look up redemption: %w", err)
	}
	if err := s.ledger.Credit(ctx, userID, cents, "promo "+code); err != nil {
		return fmt.Errorf("credit promo: %w", err)
	}
	return s.rdb.Set(ctx, key, userID, 0).Err()
}

// EventProcessor applies domain events delivered at least once.
type EventProcessor struct {
	rdb      *redis.Client
	notifier Notifier
}

// ApplyEvent sends the event's notification unless the event was seen before.
//
// corpus: bug checkthenact
// modelled on: MAlexJ/example_redis stream/delivery_semantics/at_least_once/exclude_duplicate_consumer/readme.md (EXISTS on processed:<id>, the work, then SET with a TTL)
func (p *EventProcessor) ApplyEvent(ctx context.Context, eventID, userID, template string) error {
	key := "processed:" + eventID
	n, err := p.rdb.Exists(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := p.notifier.Notify(ctx, userID, template, map[string]string{"event": eventID}); err != nil {
		return err
	}
	return p.rdb.Set(ctx, key, "1", 72*time.Hour).Err()
}

// GrantService hands out one-off grants (trial credit, referral bonus).
type GrantService struct {
	rdb    *redis.Client
	ledger Ledger
}

// GrantTrialCredit gives a user their trial credit once per campaign; the
// campaign's grants live in one hash keyed by user.
//
// corpus: bug checkthenact
// modelled on: onceuponworld/ouw-sdk redis.go (membership read helper and a separate add helper on the same key)
func (g *GrantService) GrantTrialCredit(ctx context.Context, campaign, userID string, cents int64) error {
	key := "grant:" + campaign
	_, err := g.rdb.HGet(ctx, key, userID).Result()
	switch {
	case err == nil:
		return ErrDuplicate
	case !errors.Is(err, redis.Nil):
		return err
	}
	if err := g.ledger.Credit(ctx, userID, cents, "trial "+campaign); err != nil {
		return err
	}
	return g.rdb.HSet(ctx, key, userID, time.Now().Unix()).Err()
}

// SlotBooker books appointment slots for a day.
type SlotBooker struct {
	rdb       *redis.Client
	inventory Inventory
}

// ReserveSlot holds a slot for the user unless the user already holds one
// that day.
//
// corpus: bug checkthenact
// modelled on: somebodytohave/go-tools mredis/rset.go (ExistSetMember and SetSet helpers over SIsMember and SAdd)
func (b *SlotBooker) ReserveSlot(ctx context.Context, day, slotID, userID string) error {
	key := "reservation:" + day
	held, err := b.rdb.SIsMember(ctx, key, userID).Result()
	if err != nil {
		return err
	}
	if held {
		return fmt.Errorf("user %s already holds a slot on %s: %w", userID, day, ErrDuplicate)
	}
	if err := b.inventory.Hold(ctx, slotID, userID); err != nil {
		return err
	}
	return b.rdb.SAdd(ctx, key, userID).Err()
}

// ApplyEventOnce is ApplyEvent with the marker claimed by SET NX before the
// work, and released when the work fails so a redelivery runs it.
//
// corpus: ok checkthenact
// modelled on: zty-f/GoTest redis/main.go (SetNX with a TTL and its boolean result)
func (p *EventProcessor) ApplyEventOnce(ctx context.Context, eventID, userID, template string) error {
	key := "processed:" + eventID
	fresh, err := p.rdb.SetNX(ctx, key, "1", 72*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := p.notifier.Notify(ctx, userID, template, map[string]string{"event": eventID}); err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}

// RedeemPromoNX claims the code with SET ... NX through SetArgs, so only one
// redemption gets past the write; a failed credit gives the code back.
//
// corpus: ok checkthenact
// modelled on: wangzhione/sbp helper/rediser/README.md (SET key value NX with an expiry)
func (s *PromoService) RedeemPromoNX(ctx context.Context, code, userID string, cents int64) error {
	key := "redeem:" + code
	_, err := s.rdb.SetArgs(ctx, key, userID, redis.SetArgs{Mode: "NX", TTL: 365 * 24 * time.Hour}).Result()
	if errors.Is(err, redis.Nil) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if err := s.ledger.Credit(ctx, userID, cents, "promo "+code); err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}

// ReserveSlotSAdd lets SADD's added count decide: 0 means the user was
// already in the day's set.
//
// corpus: ok checkthenact
// modelled on: denkhaus/go-store set.go (SADD through redigo returning the added count)
func (b *SlotBooker) ReserveSlotSAdd(ctx context.Context, day, slotID, userID string) error {
	key := "reservation:" + day
	added, err := b.rdb.SAdd(ctx, key, userID).Result()
	if err != nil {
		return err
	}
	if added == 0 {
		return ErrDuplicate
	}
	if err := b.inventory.Hold(ctx, slotID, userID); err != nil {
		b.rdb.SRem(context.WithoutCancel(ctx), key, userID)
		return err
	}
	return nil
}

// GrantTrialCreditNX claims the user's field with HSETNX before crediting.
//
// corpus: ok checkthenact
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (state tracking per idempotency key with an atomic first write)
func (g *GrantService) GrantTrialCreditNX(ctx context.Context, campaign, userID string, cents int64) error {
	key := "grant:" + campaign
	claimed, err := g.rdb.HSetNX(ctx, key, userID, time.Now().Unix()).Result()
	if err != nil {
		return err
	}
	if !claimed {
		return ErrDuplicate
	}
	if err := g.ledger.Credit(ctx, userID, cents, "trial "+campaign); err != nil {
		g.rdb.HDel(context.WithoutCancel(ctx), key, userID)
		return err
	}
	return nil
}

// QuotaService counts uses of a metered feature.
type QuotaService struct {
	rdb *redis.Client
}

// ConsumeQuota takes one unit of the user's monthly quota. The read and the
// write run under WATCH, so a concurrent change aborts the transaction and it
// is retried on fresh data.
//
// corpus: ok checkthenact
// modelled on: spumant/Go-basic 10-Redis/04-Transaction.go (Watch, Get inside the Tx, TxPipelined Set, retried on TxFailedErr)
func (q *QuotaService) ConsumeQuota(ctx context.Context, userID string, limit int) error {
	key := "quota:" + userID + ":" + time.Now().UTC().Format("2006-01")
	txf := func(tx *redis.Tx) error {
		used, err := tx.Get(ctx, key).Int()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if used >= limit {
			return fmt.Errorf("quota of %d used up", limit)
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, key, strconv.Itoa(used+1), 40*24*time.Hour)
			return nil
		})
		return err
	}
	for range 5 {
		err := q.rdb.Watch(ctx, txf, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		return err
	}
	return errors.New("quota: too much contention")
}

// RateCache keeps upstream exchange rates for a minute.
type RateCache struct {
	rdb   *redis.Client
	rates Rates
}

// Rate returns the cached rate, fetching and caching it on a miss. Two
// callers that miss together both fetch and both write the same rate, which
// is harmless: the write only caches a value anyone may recompute.
//
// corpus: ok checkthenact
// modelled on: zwtech/ZWSSO main.go (go-redis Get and Set of a cached value)
func (c *RateCache) Rate(ctx context.Context, base, quote string) (float64, error) {
	key := "fx:" + base + quote
	v, err := c.rdb.Get(ctx, key).Float64()
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, redis.Nil) {
		return 0, err
	}
	rate, err := c.rates.Fetch(ctx, base, quote)
	if err != nil {
		return 0, err
	}
	c.rdb.Set(ctx, key, rate, time.Minute)
	return rate, nil
}

// ApplyEventLateNX checks the marker with GET, sends, and only then writes
// the marker with SETNX. The write is atomic, but the send sits between the
// check and it: two deliveries that both miss both send, and SETNX only
// decides which of them writes the marker.
//
// corpus: bug checkthenact
// modelled on: MAlexJ/example_redis stream/delivery_semantics/at_least_once/exclude_duplicate_consumer/readme.md (check the processed key, process, then set it)
func (p *EventProcessor) ApplyEventLateNX(ctx context.Context, eventID, userID, template string) error {
	key := "processed:" + eventID
	err := p.rdb.Get(ctx, key).Err()
	if err == nil {
		return nil
	}
	if !errors.Is(err, redis.Nil) {
		return err
	}
	if err := p.notifier.Notify(ctx, userID, template, map[string]string{"event": eventID}); err != nil {
		return err
	}
	return p.rdb.SetNX(ctx, key, "1", 72*time.Hour).Err()
}

// ApplyEventFastPath reads the marker first only to skip the common
// duplicate cheaply; the decision to send is taken by SETNX, with nothing
// done between the read and the claim.
//
// corpus: ok checkthenact
// modelled on: dongzhonghua/dongzhonghua.github.io notes/20.10之前归档/写Redis时的并发异常和分布式锁.md (GET-then-SETEX dedup replaced by SET NX EX)
func (p *EventProcessor) ApplyEventFastPath(ctx context.Context, eventID, userID, template string) error {
	key := "processed:" + eventID
	if err := p.rdb.Get(ctx, key).Err(); err == nil {
		return nil
	} else if !errors.Is(err, redis.Nil) {
		return err
	}
	fresh, err := p.rdb.SetNX(ctx, key, "1", 72*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := p.notifier.Notify(ctx, userID, template, map[string]string{"event": eventID}); err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}
