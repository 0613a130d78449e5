package releaseonerror

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// incrFirst takes the event with INCR (the caller that makes it 1 came
// first) and leaves it taken when the work fails.
func incrFirst(ctx context.Context, rdb *redis.Client, id string, work func(context.Context) error) error {
	key := "event:" + id
	n, err := rdb.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 1 {
		return nil
	}
	if err := work(ctx); err != nil {
		return err // want `this error return leaves the key claimed by Incr at incr.go:\d+ held`
	}
	return nil
}

// incrFirstReleased gives the event back when the work fails.
func incrFirstReleased(ctx context.Context, rdb *redis.Client, id string, work func(context.Context) error) error {
	key := "event:" + id
	n, err := rdb.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		if err := work(ctx); err != nil {
			rdb.Del(context.WithoutCancel(ctx), key)
			return err
		}
	}
	return nil
}

// signupsAllowed counts signups in a window: the count is compared with a
// limit, and its first increment stamps the window.
func signupsAllowed(ctx context.Context, rdb *redis.Client, ip string, limit int64) (bool, error) {
	key := "signups:" + ip
	n, err := rdb.Incr(ctx, key).Result()
	if err != nil {
		return false, err
	}
	if n == 1 {
		if err := rdb.Set(ctx, "window:"+ip, time.Now().Unix(), time.Hour).Err(); err != nil {
			return false, err
		}
	}
	return n <= limit, nil
}

// countView counts a page's views; the first one stamps when counting
// began.
func countView(ctx context.Context, rdb *redis.Client, page string) error {
	key := "views:" + page
	n, err := rdb.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		if err := rdb.Set(ctx, key+":since", time.Now().Unix(), 0).Err(); err != nil {
			return err
		}
	}
	return nil
}

// incrKept keeps the event's counter for a day once the work is done:
// the expiry is the record's completion, and its error leaves nothing
// to give back.
func incrKept(ctx context.Context, rdb *redis.Client, id string, work func(context.Context) error) error {
	key := "event:" + id
	n, err := rdb.Incr(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 1 {
		return nil
	}
	if err := work(ctx); err != nil {
		rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return rdb.Expire(ctx, key, 24*time.Hour).Err()
}
