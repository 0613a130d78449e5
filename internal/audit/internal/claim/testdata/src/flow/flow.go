package flow

import (
	"context"
	"errors"
	"time"

	"example.com/shop/idem"
	"github.com/redis/go-redis/v9"
)

var errBusy = errors.New("busy")

func work() error { return nil }

// Both sides of || must prune for the then-branch to be pruned.
func either(ctx context.Context, rdb *redis.Client) error {
	ok, err := rdb.SetNX(ctx, "k", 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return work() // want `error exit of SetNX, deferred nothing, responder false`
}

// An unrelated condition prunes nothing.
func unrelated(ctx context.Context, rdb *redis.Client, verbose bool) error {
	ok, _ := rdb.SetNX(ctx, "k", 1, time.Hour).Result()
	if verbose && ok {
		return errBusy // want `error exit of SetNX`
	}
	return nil // want `answer exit of SetNX`
}

// A row count compared with constants, either way round.
func counted(ctx context.Context, rdb *redis.Client) error {
	n, _ := rdb.Exists(ctx, "x").Result()
	res, _ := rdb.SetNX(ctx, "k", 1, time.Hour).Result()
	if !res {
		return errBusy
	}
	if 0 < n {
		return errBusy // want `error exit of SetNX`
	}
	return nil // want `answer exit of SetNX`
}

// The outcomes of a tagged switch: a case is known by its constants' names.
func outcomes(ctx context.Context, store idem.Store) (string, error) {
	c, err := store.Claim(ctx, "k", "fp", time.Minute, time.Hour)
	if err != nil {
		return "", err
	}
	switch c.Outcome {
	case idem.Replay:
		return "replay", nil
	case idem.InProgress, idem.Mismatch:
		return "", errBusy
	case idem.Claimed, idem.TakenOver:
		defer store.Release(ctx, "k", c.Token)
		return "ran", work() // want `error exit of Claim, deferred released, responder true`
	}
	return "", errors.New("unknown") // past the case of the outcomes that take the key: nothing held
}

// err is nil where it is returned on the last line.
func nilErr(ctx context.Context, rdb *redis.Client) (int, error) {
	if !rdb.SetNX(ctx, "k", 1, time.Hour).Val() {
		return 0, nil
	}
	err := work()
	if err == nil {
		return 1, err // want `answer exit of SetNX`
	}
	rdb.Del(ctx, "k")
	return 0, err
}

// A loop back to the claim is a claim of its own.
func loop(ctx context.Context, rdb *redis.Client, ids []string) error {
	for _, id := range ids {
		if !rdb.SetNX(ctx, id, 1, time.Hour).Val() {
			continue
		}
		if err := work(); err != nil {
			rdb.Del(ctx, id)
			return err
		}
		rdb.Set(ctx, id, "done", time.Hour)
	}
	return nil
}
