// Package amqp091 is a minimal copy of github.com/rabbitmq/amqp091-go's
// publishing API for analysistest.
package amqp091

import (
	"context"
	"time"
)

// Table is a message's headers.
type Table map[string]any

// Persistent is the delivery mode of a message written to disk.
const Persistent uint8 = 2

// Publishing is a message to publish.
type Publishing struct {
	Headers       Table
	ContentType   string
	DeliveryMode  uint8
	CorrelationId string
	MessageId     string
	Timestamp     time.Time
	Body          []byte
}

// Channel is an AMQP channel.
type Channel struct{}

// PublishWithContext publishes msg to exchange under key.
func (ch *Channel) PublishWithContext(ctx context.Context, exchange, key string, mandatory, immediate bool, msg Publishing) error {
	return nil
}
