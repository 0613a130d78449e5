// Package luapkgs runs Lua scripts that another package keeps, or that
// its helpers are given by their callers.
package luapkgs

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"luapkgs/scripts"
)

// Gateway charges.
type Gateway interface {
	Charge(ctx context.Context, id string) error
}

// Repo runs the scripts of package scripts.
type Repo struct {
	rdb *redis.Client
	gw  Gateway
}

// markAfterGet checks in Go, pays, then marks with the other package's
// SET script.
func (r *Repo) markAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return scripts.MarkDone.Run(ctx, r.rdb, []string{key}, "done", 86400).Err() // want `SET of key after the GET at luapkgs.go:\d+ races with a concurrent retry`
}

// markInitAfterExists marks with a script the other package made in
// init.
func (r *Repo) markInitAfterExists(ctx context.Context, id string) error {
	key := "paid:" + id
	if n, err := r.rdb.Exists(ctx, key).Result(); err != nil || n > 0 {
		return err
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return scripts.Mark.Run(ctx, r.rdb, []string{key}, "done", 86400).Err() // want `SET of key after the EXISTS`
}

// evalAfterGet evaluates the other package's constant text.
func (r *Repo) evalAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return r.rdb.Eval(ctx, scripts.MarkDoneLua, []string{key}, "done", 86400).Err() // want `SET of key after the GET`
}

// peekThenSet reads with the other package's GET script, from a string
// variable, and writes in Go.
func (r *Repo) peekThenSet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := scripts.Peek.Run(ctx, r.rdb, []string{key}).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return r.rdb.Set(ctx, key, "done", 24*time.Hour).Err() // want `SET of key after the GET at luapkgs.go:\d+ races`
}

// claimed takes the key with the other package's embedded claim first.
func (r *Repo) claimed(ctx context.Context, id string) error {
	key := "paid:" + id
	won, err := scripts.Claim.Run(ctx, r.rdb, []string{key}, "busy", 600000).Int()
	if err != nil || won == 0 {
		return err
	}
	return r.gw.Charge(ctx, id)
}

// checkedThenClaimed checks, pays, then takes the key with the claim:
// the claim comes after the work it should guard.
func (r *Repo) checkedThenClaimed(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return scripts.Add.Run(ctx, r.rdb, []string{key}, "done", 86400).Err() // want `Charge runs after the GET of key at luapkgs.go:\d+ found nothing and before the SET NX of key claims it`
}

// addedOnce takes the key with the cache's Add, then pays.
func (r *Repo) addedOnce(ctx context.Context, id string) error {
	key := "paid:" + id
	added, err := scripts.Add.Run(ctx, r.rdb, []string{key}, "busy", 600).Bool()
	if err != nil || !added {
		return err
	}
	return r.gw.Charge(ctx, id)
}

// swapped learns from the GETSET's old value whether it was first.
func (r *Repo) swapped(ctx context.Context, id string) error {
	key := "paid:" + id
	if err := scripts.Swap.Run(ctx, r.rdb, []string{key}, "busy").Err(); err != redis.Nil {
		return err
	}
	return r.gw.Charge(ctx, id)
}

// touchedAfterGet checks, pays, then writes with a GETSET whose old
// value is dropped: a SET.
func (r *Repo) touchedAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return scripts.Touch.Run(ctx, r.rdb, []string{key}, "done").Err() // want `SET of key after the GET`
}
