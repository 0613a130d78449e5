// Package kafka is a minimal copy of github.com/segmentio/kafka-go's
// writer API for analysistest.
package kafka

import (
	"context"

	"github.com/segmentio/kafka-go/protocol"
)

// Header is a record header.
type Header = protocol.Header

// Message is a Kafka message.
type Message struct {
	Topic   string
	Key     []byte
	Value   []byte
	Headers []Header
}

// Writer writes messages.
type Writer struct{}

// WriteMessages writes msgs.
func (w *Writer) WriteMessages(ctx context.Context, msgs ...Message) error { return nil }
