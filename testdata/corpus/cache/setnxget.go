package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// PayoutClaims pays each approved expense claim once. It takes the claim
// with one SET ... NX GET (Redis 7.0): the reply is nil, which go-redis
// gives as the error redis.Nil, when this call set the key, and the value
// already there when another run holds or finished the claim.
type PayoutClaims struct {
	rdb    *redis.Client
	ledger Ledger
}

// PayClaim credits an approved expense claim.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis commands_test.go (SetArgs with Mode NX and Get: redis.Nil when the key was set, the old value when it was there)
func (p *PayoutClaims) PayClaim(ctx context.Context, claimID, employee string, cents int64) error {
	key := "payout:" + claimID
	prior, err := p.rdb.SetArgs(ctx, key, "paying", redis.SetArgs{Mode: "NX", Get: true, TTL: 24 * time.Hour}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		// ours: pay below
	case err != nil:
		return fmt.Errorf("claim payout %s: %w", claimID, err)
	default:
		return fmt.Errorf("payout %s is %s: %w", claimID, prior, ErrDuplicate)
	}
	if err := p.ledger.Credit(ctx, employee, cents, "expense "+claimID); err != nil {
		return fmt.Errorf("credit payout %s: %w", claimID, err)
	}
	return p.rdb.Set(ctx, key, "paid", 24*time.Hour).Err()
}

// PayClaimReleased is PayClaim giving the key back when the credit fails,
// so that the retry pays.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis commands_test.go (SetArgs with Mode NX and Get: redis.Nil when the key was set, the old value when it was there)
func (p *PayoutClaims) PayClaimReleased(ctx context.Context, claimID, employee string, cents int64) error {
	key := "payout:" + claimID
	prior, err := p.rdb.SetArgs(ctx, key, "paying", redis.SetArgs{Mode: "NX", Get: true, TTL: 24 * time.Hour}).Result()
	if err == nil {
		return fmt.Errorf("payout %s is %s: %w", claimID, prior, ErrDuplicate)
	}
	if !errors.Is(err, redis.Nil) {
		return fmt.Errorf("claim payout %s: %w", claimID, err)
	}
	if err := p.ledger.Credit(ctx, employee, cents, "expense "+claimID); err != nil {
		p.rdb.Del(context.WithoutCancel(ctx), key)
		return fmt.Errorf("credit payout %s: %w", claimID, err)
	}
	return p.rdb.Set(ctx, key, "paid", 24*time.Hour).Err()
}
