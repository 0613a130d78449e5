package luapkgs

import (
	"context"

	"github.com/redis/go-redis/v9"

	"luapkgs/scripts"
)

// Runner runs the scripts it is given.
type Runner struct {
	rdb   *redis.Client
	gw    Gateway
	mark  *Script
	claim *Script
}

// Script wraps a go-redis script with the client it runs on.
type Script struct {
	rdb    *redis.Client
	script *redis.Script
}

func newScript(rdb *redis.Client, src string) *Script {
	return &Script{rdb: rdb, script: redis.NewScript(src)}
}

// Run runs the script on its client.
func (s *Script) Run(ctx context.Context, keys []string, args ...any) *redis.Cmd {
	return s.script.Run(ctx, s.rdb, keys, args...)
}

// NewRunner makes the runner and its wrapped scripts.
func NewRunner(rdb *redis.Client, gw Gateway) *Runner {
	return &Runner{
		rdb:   rdb,
		gw:    gw,
		mark:  newScript(rdb, scripts.MarkDoneLua),
		claim: newScript(rdb, scripts.ClaimLua),
	}
}

// runScript runs the script its caller names.
func (r *Runner) runScript(ctx context.Context, s *redis.Script, keys []string, args ...any) error {
	return s.Run(ctx, r.rdb, keys, args...).Err()
}

// runInt runs it through runScript's caller-given script too.
func (r *Runner) runOne(ctx context.Context, s *redis.Script, key string, args ...any) error {
	return r.runScript(ctx, s, []string{key}, args...)
}

// paramMarkAfterGet passes the SET script to runScript.
func (r *Runner) paramMarkAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return r.runScript(ctx, scripts.MarkDone, []string{key}, "done", 86400) // want `SET of key \(by runScript, at helpers.go:\d+\) after the GET`
}

// paramMarkThroughTwo passes it through two helpers.
func (r *Runner) paramMarkThroughTwo(ctx context.Context, id string) error {
	key := "paid:" + id
	if n, err := r.rdb.Exists(ctx, key).Result(); err != nil || n > 0 {
		return err
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return r.runOne(ctx, scripts.Mark, key, "done", 86400) // want `SET of key \(by runOne, at helpers.go:\d+\) after the EXISTS`
}

// paramClaim takes the key through runScript before paying.
func (r *Runner) paramClaim(ctx context.Context, id string) error {
	key := "paid:" + id
	if err := r.runScript(ctx, scripts.Claim, []string{key}, "busy", 600000); err != nil {
		return err
	}
	return r.gw.Charge(ctx, id)
}

// wrappedMarkAfterGet marks with the wrapped SET script.
func (r *Runner) wrappedMarkAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := r.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := r.gw.Charge(ctx, id); err != nil {
		return err
	}
	return r.mark.Run(ctx, []string{key}, "done", 86400).Err() // want `SET of key \(by Run, at helpers.go:\d+\) after the GET`
}

// wrappedClaim takes the key with the wrapped claim before paying.
func (r *Runner) wrappedClaim(ctx context.Context, id string) error {
	key := "paid:" + id
	won, err := r.claim.Run(ctx, []string{key}, "busy", 600000).Int()
	if err != nil || won == 0 {
		return err
	}
	return r.gw.Charge(ctx, id)
}
