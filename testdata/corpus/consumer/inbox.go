package consumer

import (
	"context"
	"encoding/json"
	"fmt"
)

// ProcessedStore is the processed-message store the inbox consumer needs;
// production wires in cache.RedisDedup.
type ProcessedStore interface {
	IsProcessed(ctx context.Context, id string) (bool, error)
	MarkProcessed(ctx context.Context, id string) error
	TryMark(ctx context.Context, id string) (bool, error)
	Unmark(ctx context.Context, id string) error
}

// RefundRequested asks for a refund to be paid to a customer's wallet.
type RefundRequested struct {
	RefundID   string `json:"refund_id"`
	CustomerID string `json:"customer_id"`
	Points     int64  `json:"points"`
}

// InboxConsumer applies refund requests from the broker.
type InboxConsumer struct {
	store  ProcessedStore
	wallet Wallet
}

func decodeRefund(body []byte) (RefundRequested, error) {
	var ev RefundRequested
	err := json.Unmarshal(body, &ev)
	return ev, err
}

// HandleRefund pays the refund unless the store says the message was
// processed, and marks it afterwards; the check and the mark are two calls
// through the interface, and two deliveries in flight both pay.
//
// corpus: bug checkthenact
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (isDuplicate and markProcessed on a deduplicator object)
func (c *InboxConsumer) HandleRefund(ctx context.Context, m Message) error {
	done, err := c.store.IsProcessed(ctx, m.ID)
	if err != nil {
		return err
	}
	if done {
		return nil
	}
	ev, err := decodeRefund(m.Body)
	if err != nil {
		return err
	}
	if err := c.wallet.Credit(ctx, ev.CustomerID, ev.Points); err != nil {
		return err
	}
	return c.store.MarkProcessed(ctx, m.ID)
}

// HandleRefundMarked marks the message with TryMark before paying and
// unmarks it when the payment fails.
//
// corpus: ok checkthenact
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (checkAndMark by SET NX EX, unmark to allow reprocessing)
func (c *InboxConsumer) HandleRefundMarked(ctx context.Context, m Message) error {
	fresh, err := c.store.TryMark(ctx, m.ID)
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	ev, err := decodeRefund(m.Body)
	if err != nil {
		c.store.Unmark(context.WithoutCancel(ctx), m.ID)
		return err
	}
	if err := c.wallet.Credit(ctx, ev.CustomerID, ev.Points); err != nil {
		c.store.Unmark(context.WithoutCancel(ctx), m.ID)
		return err
	}
	return nil
}

// HandleRefundLeaky marks the message first, but a bad payload or a failed
// payment returns for redelivery with the mark in place, and the
// redelivery is skipped as processed.
//
// corpus: bug releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (checkAndMark by SET NX EX before the work)
func (c *InboxConsumer) HandleRefundLeaky(ctx context.Context, m Message) error {
	fresh, err := c.store.TryMark(ctx, m.ID)
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	ev, err := decodeRefund(m.Body)
	if err != nil {
		return fmt.Errorf("decode refund %s: %w", m.ID, err)
	}
	if err := c.wallet.Credit(ctx, ev.CustomerID, ev.Points); err != nil {
		return fmt.Errorf("credit refund %s: %w", ev.RefundID, err)
	}
	return nil
}

// HandleRefundGuarded marks the message and unmarks it from a deferred func
// literal whenever it returns an error.
//
// corpus: ok releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (unmark to allow reprocessing)
func (c *InboxConsumer) HandleRefundGuarded(ctx context.Context, m Message) (err error) {
	fresh, err := c.store.TryMark(ctx, m.ID)
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	defer func() {
		if err != nil {
			c.store.Unmark(context.WithoutCancel(ctx), m.ID)
		}
	}()
	ev, err := decodeRefund(m.Body)
	if err != nil {
		return fmt.Errorf("decode refund %s: %w", m.ID, err)
	}
	return c.wallet.Credit(ctx, ev.CustomerID, ev.Points)
}
