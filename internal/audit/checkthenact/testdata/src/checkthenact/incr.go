package checkthenact

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"
)

// An UPDATE that adds to a balance between the check and the mark: two
// deliveries both find no mark and both add the refund.
func applyRefund(ctx context.Context, rdb *redis.Client, db *sql.DB, msgID, order string, cents int64) error {
	key := "refund-applied:" + msgID
	n, err := rdb.Exists(ctx, key).Result()
	if err != nil || n == 1 {
		return err
	}
	if _, err := db.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents + $2 WHERE id = $1`, order, cents); err != nil {
		return err
	}
	return rdb.Set(ctx, key, time.Now().Unix(), 7*24*time.Hour).Err() // want `SET of key after the EXISTS at incr.go:\d+ races with a concurrent retry: both find nothing and both run UPDATE first`
}

// An UPDATE that overwrites (SET refunded = true) leaves what one leaves.
func markRefunded(ctx context.Context, rdb *redis.Client, db *sql.DB, msgID, order string) error {
	key := "refund-note:" + msgID
	n, err := rdb.Exists(ctx, key).Result()
	if err != nil || n == 1 {
		return err
	}
	if _, err := db.ExecContext(ctx, `UPDATE orders SET refunded = true, attempts = attempts + 1 WHERE id = $1`, order); err != nil {
		return err
	}
	return rdb.Set(ctx, key, time.Now().Unix(), 7*24*time.Hour).Err()
}
