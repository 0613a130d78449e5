// Package eventbus is the services' own typed wrapper over JetStream: a
// handler subscribes to a subject with the event type it decodes, and
// the bus acks the message when the handler returns nil and naks it for
// redelivery when it returns an error.
package eventbus

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
)

// Bus subscribes typed handlers to JetStream subjects.
type Bus struct {
	JS      nats.JetStreamContext
	Durable string
}

// Subscribe decodes each message on subject into a T and hands it to fn;
// an error from fn naks the message, which JetStream delivers again.
func Subscribe[T any](b *Bus, subject string, fn func(ctx context.Context, ev *T) error) (*nats.Subscription, error) {
	return b.JS.QueueSubscribe(subject, b.Durable, func(m *nats.Msg) {
		var ev T
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			_ = m.Term()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := fn(ctx, &ev); err != nil {
			_ = m.NakWithDelay(5 * time.Second)
			return
		}
		_ = m.Ack()
	}, nats.ManualAck(), nats.Durable(b.Durable))
}
