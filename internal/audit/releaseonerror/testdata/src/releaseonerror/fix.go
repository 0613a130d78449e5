package releaseonerror

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

func consumeNamed(ctx context.Context, rdb *redis.Client, id, msg string) (err error) {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	if err := validate(msg); err != nil {
		return err // want `claimed by SetNX at fix.go:11 held`
	}
	return send(ctx, msg)
}

func consumeNamedInit(ctx context.Context, rdb redis.Cmdable, id string) (result string, err error) {
	if ok, err := rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour).Result(); err != nil || !ok {
		return "", err
	}
	err = send(ctx, id)
	return "sent", err // want `claimed by SetNX at fix.go:25 held`
}

// An SADD claims one member of a shared set: the fix removes the member,
// not the set.
func consumeMember(ctx context.Context, rdb *redis.Client, id string) (err error) {
	added, err := rdb.SAdd(ctx, "dedup:seen", id).Result()
	if err != nil {
		return err
	}
	if added == 0 {
		return nil
	}
	return send(ctx, id) // want `claimed by SAdd at fix.go:\d+ held: .* defer a SRem of the member`
}
