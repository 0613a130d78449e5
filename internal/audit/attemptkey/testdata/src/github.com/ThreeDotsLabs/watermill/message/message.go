// Package message is a minimal copy of
// github.com/ThreeDotsLabs/watermill/message's signatures.
package message

import "context"

type Payload []byte

type Metadata map[string]string

func (m Metadata) Get(key string) string { return m[key] }
func (m Metadata) Set(key, value string) { m[key] = value }

type Message struct {
	UUID     string
	Metadata Metadata
	Payload  Payload
}

func NewMessage(uuid string, payload Payload) *Message { return &Message{UUID: uuid, Payload: payload} }

func NewMessageWithContext(ctx context.Context, uuid string, payload Payload) *Message {
	return NewMessage(uuid, payload)
}

func (m *Message) Ack() bool                      { return true }
func (m *Message) Nack() bool                     { return true }
func (m *Message) Context() context.Context       { return context.Background() }
func (m *Message) SetContext(ctx context.Context) {}
func (m *Message) Copy() *Message                 { return m }

type Publisher interface {
	Publish(topic string, messages ...*Message) error
	Close() error
}

type Subscriber interface {
	Subscribe(ctx context.Context, topic string) (<-chan *Message, error)
	Close() error
}

type HandlerFunc func(msg *Message) ([]*Message, error)

type NoPublishHandlerFunc func(msg *Message) error
