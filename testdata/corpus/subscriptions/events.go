package subscriptions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// Events publishes subscription events on JetStream.
type Events struct {
	js      nats.JetStreamContext
	retries int
}

// NewEvents returns Events on js.
func NewEvents(js nats.JetStreamContext) *Events { return &Events{js: js, retries: 4} }

// withRetry runs fn until it succeeds, ctx ends or the attempts run out.
func withRetry(ctx context.Context, attempts int, fn func(ctx context.Context) error) error {
	var err error
	for i := range attempts {
		if err = fn(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
		}
	}
	return err
}

// renewed is the payload of subscriptions.renewed.
type renewed struct {
	SubscriptionID string    `json:"subscription_id"`
	PeriodEnd      time.Time `json:"period_end"`
}

// PublishRenewed announces a renewal on the stream through withRetry.
//
// corpus: bug attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publishing with exactly-once semantics through message IDs)
func (e *Events) PublishRenewed(ctx context.Context, sub Subscription) error {
	data, err := json.Marshal(renewed{SubscriptionID: sub.ID, PeriodEnd: sub.PeriodEnd})
	if err != nil {
		return err
	}
	return withRetry(ctx, e.retries, func(ctx context.Context) error {
		msgID := fmt.Sprintf("renewed-%s-%s", sub.ID, time.Now().UTC().Format(time.RFC3339Nano))
		_, err := e.js.Publish("subscriptions.renewed", data, nats.MsgId(msgID), nats.Context(ctx))
		return err
	})
}

// PublishRenewedOnce announces a renewal on the stream through withRetry;
// the message ID names the subscription and the period renewed.
//
// corpus: ok attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publishing with exactly-once semantics through message IDs)
func (e *Events) PublishRenewedOnce(ctx context.Context, sub Subscription) error {
	data, err := json.Marshal(renewed{SubscriptionID: sub.ID, PeriodEnd: sub.PeriodEnd})
	if err != nil {
		return err
	}
	return withRetry(ctx, e.retries, func(ctx context.Context) error {
		msgID := fmt.Sprintf("renewed-%s-%s", sub.ID, sub.PeriodEnd.UTC().Format(time.RFC3339))
		_, err := e.js.Publish("subscriptions.renewed", data, nats.MsgId(msgID), nats.Context(ctx))
		return err
	})
}
