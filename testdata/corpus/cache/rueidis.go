package cache

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/rueidis"
)

// GiftCards redeems gift cards; the newer services talk to Redis through
// rueidis.
type GiftCards struct {
	client rueidis.Client
	ledger Ledger
}

// Redeem loads a gift card's balance onto the account the first time the
// card number is used.
//
// corpus: bug checkthenact
// modelled on: grafana/grafana vendor/github.com/redis/rueidis/README.md (client.Do with B() builder commands, GET and SET)
func (g *GiftCards) Redeem(ctx context.Context, cardNumber, account string, cents int64) error {
	key := "giftcard:redeemed:" + cardNumber
	_, err := g.client.Do(ctx, g.client.B().Get().Key(key).Build()).ToString()
	if err == nil {
		return ErrDuplicate
	}
	if !rueidis.IsRedisNil(err) {
		return err
	}
	if err := g.ledger.Credit(ctx, account, cents, "gift card"); err != nil {
		return err
	}
	return g.client.Do(ctx, g.client.B().Set().Key(key).Value(account).ExSeconds(400*24*3600).Build()).Error()
}

// RedeemNX claims the card with SET NX first; a nil reply means it was
// redeemed already.
//
// corpus: ok checkthenact
// modelled on: grafana/grafana vendor/github.com/redis/rueidis/README.md (SET key val NX through the builder)
func (g *GiftCards) RedeemNX(ctx context.Context, cardNumber, account string, cents int64) error {
	key := "giftcard:redeemed:" + cardNumber
	err := g.client.Do(ctx, g.client.B().Set().Key(key).Value(account).Nx().ExSeconds(400*24*3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if err := g.ledger.Credit(ctx, account, cents, "gift card"); err != nil {
		g.client.Do(context.WithoutCancel(ctx), g.client.B().Del().Key(key).Build())
		return err
	}
	return nil
}

// Reindexer rebuilds a tenant's search index on demand.
type Reindexer struct {
	client  rueidis.Client
	rebuild func(ctx context.Context, tenant string) (int, error)
}

// Reindex rebuilds the tenant's index under a SET NX lock so two admins do
// not start the same rebuild.
//
// corpus: bug releaseonerror
// modelled on: alsritter/rabbit internal/pkg/qylock/README.md (Set a lock key, do the work, Release)
func (r *Reindexer) Reindex(ctx context.Context, tenant string) (int, error) {
	key := "reindex:" + tenant
	err := r.client.Do(ctx, r.client.B().Set().Key(key).Value("running").Nx().ExSeconds(6*3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return 0, ErrInProgress
	}
	if err != nil {
		return 0, err
	}
	docs, err := r.rebuild(ctx, tenant)
	if err != nil {
		return 0, fmt.Errorf("rebuild %s: %w", tenant, err)
	}
	r.client.Do(ctx, r.client.B().Del().Key(key).Build())
	return docs, nil
}

// OrderConfirmation is what the checkout RPC answers.
type OrderConfirmation struct {
	OrderID string `json:"order_id"`
	Total   int64  `json:"total"`
}

// Checkout places orders; clients retry PlaceOrder with the same request ID.
type Checkout struct {
	client rueidis.Client
	place  func(ctx context.Context, cartID string) (*OrderConfirmation, error)
}

// PlaceOrder claims the request ID, places the order and marks the request
// done. A retry after success finds "done" and has no confirmation to give
// back.
//
// corpus: bug cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (processing and done states per idempotency key)
func (c *Checkout) PlaceOrder(ctx context.Context, requestID, cartID string) (*OrderConfirmation, error) {
	key := "checkout:req:" + requestID
	err := c.client.Do(ctx, c.client.B().Set().Key(key).Value("processing").Nx().ExSeconds(24*3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return nil, ErrDuplicate
	}
	if err != nil {
		return nil, err
	}
	conf, err := c.place(ctx, cartID)
	if err != nil {
		c.client.Do(context.WithoutCancel(ctx), c.client.B().Del().Key(key).Build())
		return nil, err
	}
	c.client.Do(ctx, c.client.B().Set().Key(key).Value("done").ExSeconds(24*3600).Build())
	return conf, nil
}

// PlaceOrderReplayable stores the confirmation itself under the request ID,
// and a retry decodes and returns it.
//
// corpus: ok cacheresponse
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (Mark, then StoreResult and GetResult per message ID)
func (c *Checkout) PlaceOrderReplayable(ctx context.Context, requestID, cartID string) (*OrderConfirmation, error) {
	key := "checkout:req:" + requestID
	err := c.client.Do(ctx, c.client.B().Set().Key(key).Value("processing").Nx().ExSeconds(24*3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		stored, err := c.client.Do(ctx, c.client.B().Get().Key(key).Build()).ToString()
		if err != nil {
			return nil, err
		}
		if stored == "processing" {
			return nil, ErrInProgress
		}
		var conf OrderConfirmation
		if err := json.Unmarshal([]byte(stored), &conf); err != nil {
			return nil, err
		}
		return &conf, nil
	}
	if err != nil {
		return nil, err
	}
	conf, err := c.place(ctx, cartID)
	if err != nil {
		c.client.Do(context.WithoutCancel(ctx), c.client.B().Del().Key(key).Build())
		return nil, err
	}
	c.client.Do(ctx, c.client.B().Set().Key(key).Value(encode(conf)).ExSeconds(24*3600).Build())
	return conf, nil
}

// Waitlist admits users to a limited beta from a waitlist.
type Waitlist struct {
	client   rueidis.Client
	notifier Notifier
}

// Admit sends the invite unless the user is already in the admitted set.
// SISMEMBER and SADD are separate commands, and two admins clicking "admit"
// together both send the invite.
//
// corpus: bug checkthenact
// modelled on: onceuponworld/ouw-sdk redis.go (SetExist over SIsMember and SetAdd over SAdd as two helpers)
func (w *Waitlist) Admit(ctx context.Context, cohort, userID string) error {
	key := "beta:admitted:" + cohort
	in, err := w.client.Do(ctx, w.client.B().Sismember().Key(key).Member(userID).Build()).AsBool()
	if err != nil {
		return err
	}
	if in {
		return nil
	}
	if err := w.notifier.Notify(ctx, userID, "beta-invite", map[string]string{"cohort": cohort}); err != nil {
		return err
	}
	return w.client.Do(ctx, w.client.B().Sadd().Key(key).Member(userID).Build()).Error()
}

// AdmitOnce sends the invite only when SADD reports it added the user.
//
// corpus: ok checkthenact
// modelled on: denkhaus/go-store set.go (SADD reply as the number of members added)
func (w *Waitlist) AdmitOnce(ctx context.Context, cohort, userID string) error {
	key := "beta:admitted:" + cohort
	added, err := w.client.Do(ctx, w.client.B().Sadd().Key(key).Member(userID).Build()).AsInt64()
	if err != nil {
		return err
	}
	if added == 0 {
		return nil
	}
	if err := w.notifier.Notify(ctx, userID, "beta-invite", map[string]string{"cohort": cohort}); err != nil {
		w.client.Do(context.WithoutCancel(ctx), w.client.B().Srem().Key(key).Member(userID).Build())
		return err
	}
	return nil
}
