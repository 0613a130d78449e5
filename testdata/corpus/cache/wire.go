package cache

import "github.com/redis/go-redis/v9"

// NewRedisTransferService is how the API wires TransferService in
// production: over a RedisCache with the service's key prefix.
func NewRedisTransferService(rdb redis.UniversalClient, p Payments) *TransferService {
	return NewTransferService(NewRedisCache(rdb, "transfers:"), p)
}
