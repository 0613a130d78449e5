// Package jetstream is a minimal copy of github.com/nats-io/nats.go/jetstream's signatures.
package jetstream

import (
	"context"

	"github.com/nats-io/nats.go"
)

type PublishOpt func(*pubOpts) error
type pubOpts struct{ id string }

// WithMsgID sets the message ID used for deduplication.
func WithMsgID(id string) PublishOpt { return nil }

type PubAck struct {
	Stream    string
	Sequence  uint64
	Duplicate bool
}

type Msg interface {
	Data() []byte
	Headers() nats.Header
	Subject() string
	Ack() error
}

type JetStream interface {
	Publish(ctx context.Context, subject string, payload []byte, opts ...PublishOpt) (*PubAck, error)
	PublishMsg(ctx context.Context, msg *nats.Msg, opts ...PublishOpt) (*PubAck, error)
}

func New(nc *nats.Conn) (JetStream, error) { return nil, nil }
