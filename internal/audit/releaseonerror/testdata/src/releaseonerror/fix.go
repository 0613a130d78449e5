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

// No fix for a claim queued on a pipeline: a Del queued on the same
// pipeline after Exec would never be sent.
func consumePipelined(ctx context.Context, rdb *redis.Client, id string) (err error) {
	pipe := rdb.Pipeline()
	set := pipe.SetNX(ctx, "dedup:"+id, 1, time.Hour)
	if _, err := pipe.Exec(ctx); err != nil || !set.Val() {
		return err
	}
	err = send(ctx, id)
	return err // want `claimed by SetNX at fix.go:\d+ held`
}

// Nor for one queued in a Pipelined callback.
func consumePipelinedCallback(ctx context.Context, rdb *redis.Client, id string) (err error) {
	var set *redis.BoolCmd
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		set = p.SetNX(ctx, "dedup:"+id, 1, time.Hour)
		return nil
	}); err != nil || !set.Val() {
		return err
	}
	err = send(ctx, id)
	return err // want `claimed by SetNX at fix.go:\d+ held`
}
