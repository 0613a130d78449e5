package boxoffice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// ErrCheckoutBusy means a checkout of the cart is running.
var ErrCheckoutBusy = errors.New("boxoffice: checkout in progress")

// Cart is what a customer checks out.
type Cart struct {
	ID          string
	EventID     string
	CustomerID  string
	Seats       []string
	AmountCents int64
}

// Checkout pays for the cart and places its order. A double click on
// "Pay" must not run two checkouts of one cart.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry, unLock afterwards)
func (b *Box) Checkout(ctx context.Context, c Cart) (string, error) {
	got, err := b.rdb.SetNX(ctx, checkoutKey(c.ID), "1", 2*time.Minute).Result()
	if err != nil {
		return "", err
	}
	if !got {
		return "", ErrCheckoutBusy
	}
	payment, err := b.payments.Capture(ctx, c.ID, c.AmountCents)
	if err != nil {
		return "", fmt.Errorf("capture cart %s: %w", c.ID, err)
	}
	orderID, err := b.orders.Place(ctx, c.ID, c.Seats)
	if err != nil {
		return "", fmt.Errorf("place order for payment %s: %w", payment, err)
	}
	b.rdb.Del(ctx, checkoutKey(c.ID))
	return orderID, nil
}

// CheckoutGuarded pays for the cart and places its order, one checkout of
// a cart at a time.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry, unLock afterwards) with the unlock deferred
func (b *Box) CheckoutGuarded(ctx context.Context, c Cart) (string, error) {
	got, err := b.rdb.SetNX(ctx, checkoutKey(c.ID), "1", 2*time.Minute).Result()
	if err != nil {
		return "", err
	}
	if !got {
		return "", ErrCheckoutBusy
	}
	defer b.rdb.Del(context.WithoutCancel(ctx), checkoutKey(c.ID))

	payment, err := b.payments.Capture(ctx, c.ID, c.AmountCents)
	if err != nil {
		return "", fmt.Errorf("capture cart %s: %w", c.ID, err)
	}
	orderID, err := b.orders.Place(ctx, c.ID, c.Seats)
	if err != nil {
		return "", fmt.Errorf("place order for payment %s: %w", payment, err)
	}
	return orderID, nil
}

func cartStateKey(cartID string) string { return "cart:" + cartID }

// ConfirmCart moves the cart's seats into an order. The cart hash carries
// a "placing" field while its order is being placed.
//
// corpus: bug releaseonerror
// modelled on: TicketPing/TicketPing-Final services/performance/src/main/resources/scripts/preReserveScript.lua (hash field marks the seat HELD)
func (b *Box) ConfirmCart(ctx context.Context, c Cart) (string, error) {
	claimed, err := b.rdb.HSetNX(ctx, cartStateKey(c.ID), "placing", time.Now().Unix()).Result()
	if err != nil {
		return "", err
	}
	if !claimed {
		return "", ErrCheckoutBusy
	}
	for _, seat := range c.Seats {
		owner, err := b.rdb.HGet(ctx, seatMapKey(c.EventID), seat).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return "", err
		}
		if owner != "" && owner != c.CustomerID {
			return "", fmt.Errorf("seat %s: %w", seat, ErrSeatTaken)
		}
	}
	orderID, err := b.orders.Place(ctx, c.ID, c.Seats)
	if err != nil {
		return "", err
	}
	if err := b.rdb.HSet(ctx, cartStateKey(c.ID), "order", orderID).Err(); err != nil {
		return "", err
	}
	b.rdb.HDel(ctx, cartStateKey(c.ID), "placing")
	return orderID, nil
}

// ConfirmCartReleasing moves the cart's seats into an order. The cart
// hash carries a "placing" field while its order is being placed; a
// failed placement clears it so the customer can try again.
//
// corpus: ok releaseonerror
// modelled on: TicketPing/TicketPing-Final services/performance/src/main/resources/scripts/preReserveScript.lua (hash field marks the seat HELD) with the field cleared on failure
func (b *Box) ConfirmCartReleasing(ctx context.Context, c Cart) (string, error) {
	claimed, err := b.rdb.HSetNX(ctx, cartStateKey(c.ID), "placing", time.Now().Unix()).Result()
	if err != nil {
		return "", err
	}
	if !claimed {
		return "", ErrCheckoutBusy
	}
	release := func() { b.rdb.HDel(context.WithoutCancel(ctx), cartStateKey(c.ID), "placing") }

	orderID, err := b.orders.Place(ctx, c.ID, c.Seats)
	if err != nil {
		release()
		return "", err
	}
	if err := b.rdb.HSet(ctx, cartStateKey(c.ID), "order", orderID).Err(); err != nil {
		release()
		return "", err
	}
	release()
	return orderID, nil
}

// unlockIfOwner deletes KEYS[1] only while it still holds ARGV[1].
var unlockIfOwner = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0
`)

// RefundCart refunds a cancelled cart's payment. Only one refund of a
// cart runs at a time; the lock carries a token so that a run outliving
// its lock cannot delete the next run's lock.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX with a uuid value, Lua compare-and-delete unlock)
func (b *Box) RefundCart(ctx context.Context, c Cart, refund func(context.Context, Cart) error) error {
	token := uuid.NewString()
	key := "refund-lock:" + c.ID
	ok, err := b.rdb.SetNX(ctx, key, token, time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrCheckoutBusy
	}
	defer unlockIfOwner.Run(context.WithoutCancel(ctx), b.rdb, []string{key}, token)

	if err := refund(ctx, c); err != nil {
		return fmt.Errorf("refund cart %s: %w", c.ID, err)
	}
	return b.rdb.HSet(ctx, cartStateKey(c.ID), "refunded", time.Now().Unix()).Err()
}

// ExtendHold gives the customer more time on held seats while a 3-D
// Secure challenge runs. Only one extension of a cart runs at a time.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (SetNX lock with an expiry, unLock afterwards)
func (b *Box) ExtendHold(ctx context.Context, c Cart, by time.Duration) error {
	lock := "extend-lock:" + c.ID
	ok, err := b.rdb.SetNX(ctx, lock, 1, 30*time.Second).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrCheckoutBusy
	}
	if by <= 0 || by > 10*time.Minute {
		return fmt.Errorf("extend hold by %s: out of range", by)
	}
	defer b.rdb.Del(context.WithoutCancel(ctx), lock)

	for _, seat := range c.Seats {
		if err := b.rdb.Expire(ctx, holdKey(c.EventID, seat), HoldTTL+by).Err(); err != nil {
			return err
		}
	}
	return nil
}
