// Package jsport is the relay's default JetStream adapter: it publishes
// whatever the relay hands it, each message under a Nats-Msg-Id it makes
// itself.
package jsport

import (
	"context"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// Publisher publishes to a JetStream stream.
type Publisher struct {
	JS jetstream.JetStream
}

// Publish sends payload on subject under a new Nats-Msg-Id.
func (p *Publisher) Publish(ctx context.Context, subject string, payload []byte) error {
	_, err := p.JS.Publish(ctx, subject, payload, jetstream.WithMsgID(uuid.NewString()))
	return err
}

// PublishAs sends payload on subject under the message ID its caller
// keeps.
func (p *Publisher) PublishAs(ctx context.Context, msgID, subject string, payload []byte) error {
	_, err := p.JS.Publish(ctx, subject, payload, jetstream.WithMsgID(msgID))
	return err
}
