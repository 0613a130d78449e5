package redis

import (
	"context"
	"time"
)

// The expiry commands.

func (c cmdable) Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return nil
}
func (c cmdable) PExpire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return nil
}
