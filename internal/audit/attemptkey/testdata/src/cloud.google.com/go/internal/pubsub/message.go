// Package pubsub is a minimal copy of cloud.google.com/go/internal/pubsub,
// where the Pub/Sub client's Message is declared.
package pubsub

type Message struct {
	ID         string
	Data       []byte
	Attributes map[string]string
	// DeliveryAttempt is the number of times the message has been
	// delivered, when the subscription has a dead-letter policy; nil
	// otherwise.
	DeliveryAttempt *int
}

func (m *Message) Ack()  {}
func (m *Message) Nack() {}
