// Package boxoffice sells seats for events. Seat holds, seat maps, gate
// scans and per-customer purchase limits live in Redis; the order itself
// goes to the orders service.
package boxoffice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// HoldTTL is how long a seat stays held for a customer at checkout.
const HoldTTL = 7 * time.Minute

// ErrSeatTaken means someone else holds or owns the seat.
var ErrSeatTaken = errors.New("boxoffice: seat taken")

// ErrLimitReached means the customer bought as many tickets as the event
// allows.
var ErrLimitReached = errors.New("boxoffice: purchase limit reached")

// Hold is what a seat hold records.
type Hold struct {
	CustomerID string    `json:"customer_id"`
	CartID     string    `json:"cart_id"`
	HeldAt     time.Time `json:"held_at"`
}

// Orders places orders with the orders service.
type Orders interface {
	Place(ctx context.Context, cartID string, seats []string) (orderID string, err error)
}

// Payments captures card payments.
type Payments interface {
	Capture(ctx context.Context, cartID string, amountCents int64) (string, error)
}

// Box sells seats.
type Box struct {
	rdb      *redis.Client
	orders   Orders
	payments Payments
}

// New returns a Box.
func New(rdb *redis.Client, orders Orders, payments Payments) *Box {
	return &Box{rdb: rdb, orders: orders, payments: payments}
}

func holdKey(eventID, seat string) string     { return "hold:" + eventID + ":" + seat }
func seatMapKey(eventID string) string        { return "seatmap:" + eventID }
func scannedKey(eventID string) string        { return "scanned:" + eventID }
func boughtKey(eventID, cust string) string   { return "bought:" + eventID + ":" + cust }
func checkoutKey(cartID string) string        { return "checkout:" + cartID }
func capacityKey(eventID, tier string) string { return "capacity:" + eventID + ":" + tier }

// HoldSeat holds seat for the customer's cart while the customer checks
// out.
//
// corpus: bug checkthenact
// modelled on: seoyeonjin/redis-study src/main/java/com/example/redis_playground/seat/SeatHoldStatusService.java (hasKey on the seat hold key)
func (b *Box) HoldSeat(ctx context.Context, eventID, seat string, h Hold) error {
	key := holdKey(eventID, seat)
	n, err := b.rdb.Exists(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("check hold: %w", err)
	}
	if n > 0 {
		return ErrSeatTaken
	}
	raw, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return b.rdb.Set(ctx, key, raw, HoldTTL).Err()
}

// HoldSeatNX holds seat for the customer's cart while the customer checks
// out.
//
// corpus: ok checkthenact
// modelled on: hc6078/Distributed-Locking lock.go (SetNX with an expiry)
func (b *Box) HoldSeatNX(ctx context.Context, eventID, seat string, h Hold) error {
	raw, err := json.Marshal(h)
	if err != nil {
		return err
	}
	err = b.rdb.SetArgs(ctx, holdKey(eventID, seat), raw, redis.SetArgs{Mode: "NX", TTL: HoldTTL}).Err()
	if errors.Is(err, redis.Nil) {
		return ErrSeatTaken
	}
	return err
}

// AssignSeat writes the customer into the event's seat map once the
// order is paid.
//
// corpus: bug checkthenact
// modelled on: TicketPing/TicketPing-Final services/performance/src/main/resources/scripts/preReserveScript.lua (HGET of the seat, status checked, HSET) done as separate calls
func (b *Box) AssignSeat(ctx context.Context, eventID, seat, customerID string) error {
	owner, err := b.rdb.HGet(ctx, seatMapKey(eventID), seat).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if owner != "" && owner != customerID {
		return ErrSeatTaken
	}
	return b.rdb.HSet(ctx, seatMapKey(eventID), seat, customerID).Err()
}

// AssignSeatNX writes the customer into the event's seat map once the
// order is paid.
//
// corpus: ok checkthenact
// modelled on: TicketPing/TicketPing-Final services/performance/src/main/resources/scripts/preReserveScript.lua (seat field claimed in the hash) with HSETNX
func (b *Box) AssignSeatNX(ctx context.Context, eventID, seat, customerID string) error {
	set, err := b.rdb.HSetNX(ctx, seatMapKey(eventID), seat, customerID).Result()
	if err != nil {
		return err
	}
	if set {
		return nil
	}
	owner, err := b.rdb.HGet(ctx, seatMapKey(eventID), seat).Result()
	if err != nil {
		return err
	}
	if owner != customerID {
		return ErrSeatTaken
	}
	return nil
}

// GateScan admits a ticket at the venue gate; a ticket admits once.
//
// corpus: bug checkthenact
// modelled on: ezkctc/flash-sale libs/shared-utils/src/lib/redis-keys.ts (per-sale Redis keys) with a scanned-tickets set
func (b *Box) GateScan(ctx context.Context, eventID, ticketID string) (bool, error) {
	seen, err := b.rdb.SIsMember(ctx, scannedKey(eventID), ticketID).Result()
	if err != nil {
		return false, err
	}
	if seen {
		return false, nil
	}
	if err := b.rdb.SAdd(ctx, scannedKey(eventID), ticketID).Err(); err != nil {
		return false, err
	}
	return true, nil
}

// GateScanOnce admits a ticket at the venue gate; a ticket admits once.
//
// corpus: ok checkthenact
// modelled on: ezkctc/flash-sale libs/shared-utils/src/lib/redis-keys.ts (per-sale Redis keys) with SADD's count deciding admission
func (b *Box) GateScanOnce(ctx context.Context, eventID, ticketID string) (bool, error) {
	added, err := b.rdb.SAdd(ctx, scannedKey(eventID), ticketID).Result()
	if err != nil {
		return false, err
	}
	return added == 1, nil
}

// RecordPurchase counts qty tickets against the customer's limit for the
// event and notes the order.
//
// corpus: bug checkthenact
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-watch-optimistic-locking.md (stock read, then MULTI without WATCH)
func (b *Box) RecordPurchase(ctx context.Context, eventID, customerID, orderID string, qty, limit int) error {
	key := boughtKey(eventID, customerID)
	have, err := b.rdb.Get(ctx, key).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if have+qty > limit {
		return ErrLimitReached
	}
	_, err = b.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, key, have+qty, 0)
		pipe.RPush(ctx, key+":orders", orderID)
		return nil
	})
	return err
}

// TakeCapacity takes qty places of a general-admission tier when the tier
// has that many left. It retries when another buyer changed the tier
// between its read and its write.
//
// corpus: ok checkthenact
// modelled on: lizyzzz/LearnRedis tx/main.go (Watch, Get, TxPipelined Set, retried on TxFailedErr)
func (b *Box) TakeCapacity(ctx context.Context, eventID, tier string, qty int) error {
	key := capacityKey(eventID, tier)
	take := func(tx *redis.Tx) error {
		left, err := tx.Get(ctx, key).Int()
		if err != nil {
			return err
		}
		if left < qty {
			return ErrLimitReached
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, key, strconv.Itoa(left-qty), 0)
			return nil
		})
		return err
	}
	for i := 0; i < 20; i++ {
		err := b.rdb.Watch(ctx, take, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		return err
	}
	return errors.New("boxoffice: capacity contended")
}
