package consumer

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/rs/xid"

	"example.com/corpus/cache"
)

// LoyaltyConsumer credits points for orders from whatever Broker it is
// given; its dedup store is a cache.KV.
type LoyaltyConsumer struct {
	broker Broker
	seen   cache.KV
	wallet Wallet
}

// HandlePlaced credits points unless the message ID is in the KV. Lookup and
// Put are two calls on a store without a conditional write, so two
// deliveries in flight both credit.
//
// corpus: bug checkthenact
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (IdempotencyStore.Exists before the handler, StoreResult after)
func (c *LoyaltyConsumer) HandlePlaced(ctx context.Context, m Message) error {
	key := "loyalty:" + m.ID
	if _, found, err := c.seen.Lookup(ctx, key); err != nil {
		return err
	} else if found {
		return nil
	}
	ev, err := decodeOrder(m.Body)
	if err != nil {
		return err
	}
	if err := c.wallet.Credit(ctx, ev.CustomerID, ev.Cents/100); err != nil {
		return err
	}
	return c.seen.Put(ctx, key, []byte(ev.OrderID), 14*24*time.Hour)
}

// FanOut republishes an order event to the per-region subjects the
// warehouses subscribe to; the broker drops a message whose ID it has seen
// in the last hour.
type FanOut struct {
	broker  Broker
	regions func(orderID string) []string
}

// HandlePlacedFanOut gives each copy a new xid as its message ID; when one
// publish fails and the source message is redelivered, the regions already
// published to get the order again.
//
// corpus: bug attemptkey
// modelled on: rfyiamcool/redis_unique_queue README.md (a dedup queue keyed by the message it is given)
func (f *FanOut) HandlePlacedFanOut(ctx context.Context, m Message) error {
	ev, err := decodeOrder(m.Body)
	if err != nil {
		return err
	}
	for _, region := range f.regions(ev.OrderID) {
		out := Message{ID: xid.New().String(), Subject: "warehouse." + region, Body: m.Body}
		if err := f.broker.Publish(ctx, out.Subject, out); err != nil {
			return fmt.Errorf("publish to %s: %w", region, err)
		}
	}
	return nil
}

// copyNamespace scopes the IDs of copies derived from a source message.
var copyNamespace = uuid.MustParse("6f1d2a7e-3c55-4b9e-9a57-1f0c7f5e2d11")

// HandlePlacedFanOutDerived derives each copy's ID from the source message
// ID and the region, so a redelivery republishes under the same IDs and the
// broker drops them.
//
// corpus: ok attemptkey
// modelled on: rfyiamcool/redis_unique_queue README.md (a dedup queue keyed by the message it is given)
func (f *FanOut) HandlePlacedFanOutDerived(ctx context.Context, m Message) error {
	ev, err := decodeOrder(m.Body)
	if err != nil {
		return err
	}
	for _, region := range f.regions(ev.OrderID) {
		id := uuid.NewSHA1(copyNamespace, []byte(m.ID+"/"+region)).String()
		out := Message{ID: id, Subject: "warehouse." + region, Body: m.Body}
		if err := f.broker.Publish(ctx, out.Subject, out); err != nil {
			return fmt.Errorf("publish to %s: %w", region, err)
		}
	}
	return nil
}
