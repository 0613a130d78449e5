package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ShipmentEvent is a carrier's tracking update.
type ShipmentEvent struct {
	EventID  string `json:"event_id"`
	Tracking string `json:"tracking"`
	Status   string `json:"status"`
}

// Notifier tells a customer where a parcel is.
type Notifier interface {
	Notify(ctx context.Context, tracking, status string) error
}

// TrackingConsumer takes each carrier event once with INCR: the delivery
// that makes the event's counter 1 came first.
type TrackingConsumer struct {
	Redis    *redis.Client
	Notifier Notifier
}

// Handle skips an event whose counter is past 1, and returns the
// notifier's error with the counter left at 1: the broker redelivers,
// the redelivery counts 2 and is skipped, and the customer is never told.
//
// corpus: bug releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (an event ID taken once before its side effect), here with INCR
func (c *TrackingConsumer) Handle(ctx context.Context, body []byte) error {
	var ev ShipmentEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return fmt.Errorf("decode tracking event: %w", err)
	}
	key := "tracking:event:" + ev.EventID
	n, err := c.Redis.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 1 {
		return nil
	}
	if err := c.Notifier.Notify(ctx, ev.Tracking, ev.Status); err != nil {
		return fmt.Errorf("notify %s: %w", ev.Tracking, err)
	}
	return c.Redis.Expire(ctx, key, 7*24*time.Hour).Err()
}

// HandleReleased deletes the counter when the notifier fails, so that the
// redelivery counts 1 again and is handled.
//
// corpus: ok releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (the unmark that lets an event be processed again), here with INCR
func (c *TrackingConsumer) HandleReleased(ctx context.Context, body []byte) error {
	var ev ShipmentEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return fmt.Errorf("decode tracking event: %w", err)
	}
	key := "tracking:event:" + ev.EventID
	n, err := c.Redis.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n != 1 {
		return nil
	}
	if err := c.Notifier.Notify(ctx, ev.Tracking, ev.Status); err != nil {
		c.Redis.Del(context.WithoutCancel(ctx), key)
		return fmt.Errorf("notify %s: %w", ev.Tracking, err)
	}
	return c.Redis.Expire(ctx, key, 7*24*time.Hour).Err()
}

// CountDeliveries counts how often the carrier sends an event; the first
// count stamps when the carrier began sending it.
//
// corpus: ok releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (time-windowed counting beside deduplication)
func (c *TrackingConsumer) CountDeliveries(ctx context.Context, tracking string) error {
	key := "tracking:deliveries:" + tracking
	n, err := c.Redis.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		if err := c.Redis.Set(ctx, key+":first", time.Now().Unix(), 24*time.Hour).Err(); err != nil {
			return err
		}
	}
	return nil
}
