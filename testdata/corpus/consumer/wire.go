package consumer

import (
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/corpus/cache"
)

// NewInboxConsumer wires the inbox consumer to the Redis dedup store.
func NewInboxConsumer(rdb redis.UniversalClient, w Wallet) *InboxConsumer {
	return &InboxConsumer{store: cache.NewRedisDedup(rdb, 14*24*time.Hour), wallet: w}
}

// NewLoyaltyConsumer wires the loyalty consumer to a Redis-backed KV.
func NewLoyaltyConsumer(b Broker, rdb redis.UniversalClient, w Wallet) *LoyaltyConsumer {
	return &LoyaltyConsumer{broker: b, seen: cache.NewRedisCache(rdb, "consumer:"), wallet: w}
}
