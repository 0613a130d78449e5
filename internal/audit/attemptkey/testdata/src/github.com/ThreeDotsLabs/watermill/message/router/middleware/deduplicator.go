// Package middleware is a minimal copy of
// github.com/ThreeDotsLabs/watermill/message/router/middleware's signatures.
package middleware

import (
	"context"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

type ExpiringKeyRepository interface {
	IsDuplicate(ctx context.Context, key string) (bool, error)
}

type MessageHasher func(*message.Message) (string, error)

type Deduplicator struct {
	KeyFactory MessageHasher
	Repository ExpiringKeyRepository
	Timeout    time.Duration
}

func (d *Deduplicator) Middleware(h message.HandlerFunc) message.HandlerFunc { return h }

func NewMessageHasherFromMetadataField(field string) MessageHasher { return nil }

func NewMessageHasherSHA256(readLimit int64) MessageHasher { return nil }
