package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	redisv8 "github.com/go-redis/redis/v8"
)

// LegacyInbox is the inbound-webhook dedup of the older billing service,
// still on go-redis v8.
type LegacyInbox struct {
	rdb    *redisv8.Client
	ledger Ledger
}

// HandleTopUp credits a top-up notified by the bank's webhook; the bank
// retries until it gets a 200.
//
// corpus: bug checkthenact
// modelled on: regner/albiondata-backend dispatcher/utils.go (is_duped_message: Get, redis.Nil taken as new, then a separate Set)
func (in *LegacyInbox) HandleTopUp(ctx context.Context, notificationID, account string, cents int64) error {
	key := "bank:notification:" + notificationID
	if _, err := in.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	} else if !errors.Is(err, redisv8.Nil) {
		return err
	}
	if err := in.ledger.Credit(ctx, account, cents, "top-up "+notificationID); err != nil {
		return err
	}
	return in.rdb.Set(ctx, key, time.Now().Unix(), 7*24*time.Hour).Err()
}

// PayoutBatcher pays out the lines of a payout batch.
type PayoutBatcher struct {
	rdb    *redisv8.Client
	ledger Ledger
}

// PayLine pays one line of a batch; the hash payouts:<batch> records the
// lines already paid.
//
// corpus: bug checkthenact
// modelled on: onceuponworld/ouw-sdk redis.go (go-redis v8 membership check helper, then a separate write)
func (b *PayoutBatcher) PayLine(ctx context.Context, batchID, lineID, account string, cents int64) error {
	key := "payouts:" + batchID
	paid, err := b.rdb.HExists(ctx, key, lineID).Result()
	if err != nil {
		return err
	}
	if paid {
		return nil
	}
	if err := b.ledger.Debit(ctx, account, cents, fmt.Sprintf("payout %s/%s", batchID, lineID)); err != nil {
		return err
	}
	return b.rdb.HSet(ctx, key, lineID, "paid").Err()
}

// HandleTopUpNX claims the notification with SETNX before crediting and gives
// the claim back when the credit fails.
//
// corpus: ok checkthenact
// modelled on: zty-f/GoTest redis/main.go (go-redis v8 SetNX with a TTL)
func (in *LegacyInbox) HandleTopUpNX(ctx context.Context, notificationID, account string, cents int64) error {
	key := "bank:notification:" + notificationID
	first, err := in.rdb.SetNX(ctx, key, time.Now().Unix(), 7*24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := in.ledger.Credit(ctx, account, cents, "top-up "+notificationID); err != nil {
		in.rdb.Del(context.Background(), key)
		return err
	}
	return nil
}
