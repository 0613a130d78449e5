package checkthenact

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

type windowDedup struct {
	rdb  *redis.Client
	sink interface {
		Deliver(ctx context.Context, id string) error
	}
}

// deliverScored asks the window's sorted set for the message's score,
// delivers when it has none, and adds it after: two deliveries of the
// same message both find no score and both deliver.
func (d *windowDedup) deliverScored(ctx context.Context, id string) error {
	_, err := d.rdb.ZScore(ctx, "dedup:window", id).Result()
	if err == nil {
		return nil
	}
	if !errors.Is(err, redis.Nil) {
		return err
	}
	if err := d.sink.Deliver(ctx, id); err != nil {
		return err
	}
	return d.rdb.ZAdd(ctx, "dedup:window", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Err() // want `ZADD of "dedup:window" after the ZSCORE at sortedsets.go:\d+ races with a concurrent retry`
}

// deliverRanked is the same with ZRANK and Do.
func (d *windowDedup) deliverRanked(ctx context.Context, id string) error {
	if _, err := d.rdb.ZRank(ctx, "dedup:window", id).Result(); err == nil {
		return nil
	}
	if err := d.sink.Deliver(ctx, id); err != nil {
		return err
	}
	return d.rdb.Do(ctx, "ZADD", "dedup:window", time.Now().Unix(), id).Err() // want `ZADD of "dedup:window" after the ZRANK at sortedsets.go:\d+ races`
}

// deliverAdded reads the score for a fast answer, then lets ZADD NX's
// count decide: only the caller that added the member delivers.
func (d *windowDedup) deliverAdded(ctx context.Context, id string) error {
	if _, err := d.rdb.ZScore(ctx, "dedup:window", id).Result(); err == nil {
		return nil
	}
	n, err := d.rdb.ZAddNX(ctx, "dedup:window", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Result()
	if err != nil || n == 0 {
		return err
	}
	return d.sink.Deliver(ctx, id)
}

// deliverOtherMember reads one member and adds another: no race on the
// same record.
func (d *windowDedup) deliverOtherMember(ctx context.Context, id, batch string) error {
	if _, err := d.rdb.ZScore(ctx, "dedup:window", batch).Result(); err == nil {
		return nil
	}
	if err := d.sink.Deliver(ctx, id); err != nil {
		return err
	}
	return d.rdb.ZAdd(ctx, "dedup:window", redis.Z{Score: float64(time.Now().Unix()), Member: id}).Err()
}

// deliverSwapped claims with GETSET after a GET: the swap's old value,
// nil for the one caller that set the key first, decides.
func (d *windowDedup) deliverSwapped(ctx context.Context, id string) error {
	if v, _ := d.rdb.Get(ctx, "msg:"+id).Result(); v != "" {
		return nil
	}
	if _, err := d.rdb.GetSet(ctx, "msg:"+id, "processing").Result(); err != redis.Nil {
		return err
	}
	return d.sink.Deliver(ctx, id)
}
