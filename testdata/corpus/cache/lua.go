package cache

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// claimOnce reads the key and writes it only if it was empty, inside one
// script, which Redis runs without interleaving other commands.
var claimOnce = redis.NewScript(`
local current = redis.call("GET", KEYS[1])
if current then
	return 0
end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1`)

// Cashback pays cashback on card transactions reported by the card network.
type Cashback struct {
	rdb    *redis.Client
	ledger Ledger
}

// Pay pays cashback for a card transaction once. The GET and the SET of the
// marker run in one Lua script, so the check and the claim are one atomic
// step.
//
// corpus: ok checkthenact
// modelled on: hc6078/Distributed-Locking lock.go (a Lua script doing GET then DEL as one step)
func (c *Cashback) Pay(ctx context.Context, txnID, account string, cents int64) error {
	key := "cashback:" + txnID
	won, err := claimOnce.Run(ctx, c.rdb, []string{key}, account, int((90 * 24 * time.Hour).Seconds())).Int()
	if err != nil {
		return err
	}
	if won == 0 {
		return ErrDuplicate
	}
	if err := c.ledger.Credit(ctx, account, cents, "cashback "+txnID); err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}
