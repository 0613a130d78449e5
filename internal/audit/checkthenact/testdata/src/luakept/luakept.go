// Package luakept runs Lua scripts whose source the call does not show:
// kept in fields and package variables, embedded from files, or loaded
// once and run by SHA.
package luakept

import (
	"context"
	"embed"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:embed claim.lua
var claimSrc string

//go:embed mark.lua
var markSrc []byte

//go:embed scripts/*.lua
var scripts embed.FS

func mustRead(name string) string {
	b, err := scripts.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// claimOnce and markDone are package variables made from embedded files.
var (
	claimOnce = redis.NewScript(claimSrc)
	markDone  = redis.NewScript(string(markSrc))
)

// peekScript is set by init, from an embed.FS read by name.
var peekScript *redis.Script

func init() {
	src, err := scripts.ReadFile("scripts/peek.lua")
	if err != nil {
		panic(err)
	}
	peekScript = redis.NewScript(string(src))
}

// Gateway charges.
type Gateway interface {
	Charge(ctx context.Context, id string) error
}

// Store keeps its scripts in fields, made by its constructor.
type Store struct {
	rdb      *redis.Client
	claim    *redis.Script
	mark     *redis.Script
	markSHA  string
	claimSHA string
	gw       Gateway
}

// NewStore loads the scripts and keeps their SHAs.
func NewStore(ctx context.Context, rdb *redis.Client) (*Store, error) {
	s := &Store{rdb: rdb, claim: redis.NewScript(claimSrc)}
	s.mark = redis.NewScript(string(markSrc))
	var err error
	if s.markSHA, err = rdb.ScriptLoad(ctx, string(markSrc)).Result(); err != nil {
		return nil, err
	}
	sha, err := rdb.ScriptLoad(ctx, claimSrc).Result()
	if err != nil {
		return nil, err
	}
	s.claimSHA = sha
	return s, nil
}

// fieldMarkAfterGet checks in Go, pays, then marks with the field's SET
// script: two deliveries that both miss both pay.
func (s *Store) fieldMarkAfterGet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := s.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := s.gw.Charge(ctx, id); err != nil {
		return err
	}
	return s.mark.Run(ctx, s.rdb, []string{key}, "done", 86400).Err() // want `SET of key after the GET at luakept.go:\d+ races with a concurrent retry`
}

// fieldClaim takes the key with the field's GET-then-SET script: one step.
func (s *Store) fieldClaim(ctx context.Context, id string) error {
	key := "paid:" + id
	won, err := s.claim.Run(ctx, s.rdb, []string{key}, "busy", 86400).Int()
	if err != nil || won == 0 {
		return err
	}
	return s.gw.Charge(ctx, id)
}

// shaMarkAfterExists checks with EXISTS, pays, and marks by SHA.
func (s *Store) shaMarkAfterExists(ctx context.Context, id string) error {
	key := "paid:" + id
	if n, err := s.rdb.Exists(ctx, key).Result(); err != nil || n > 0 {
		return err
	}
	if err := s.gw.Charge(ctx, id); err != nil {
		return err
	}
	return s.rdb.EvalSha(ctx, s.markSHA, []string{key}, "done", 86400).Err() // want `SET of key after the EXISTS at luakept.go:\d+ races with a concurrent retry`
}

// shaClaim takes the key by SHA before paying.
func (s *Store) shaClaim(ctx context.Context, id string) error {
	key := "paid:" + id
	won, err := s.rdb.EvalSha(ctx, s.claimSHA, []string{key}, "busy", 86400).Int()
	if err != nil || won == 0 {
		return err
	}
	return s.gw.Charge(ctx, id)
}

// hashMark runs the package variable's script by its Hash.
func (s *Store) hashMark(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := s.rdb.Get(ctx, key).Result(); err == nil {
		return nil
	}
	if err := s.gw.Charge(ctx, id); err != nil {
		return err
	}
	return s.rdb.EvalSha(ctx, markDone.Hash(), []string{key}, "done", 86400).Err() // want `SET of key after the GET`
}

// embeddedClaim takes the key with the embedded claim before paying.
func (s *Store) embeddedClaim(ctx context.Context, id string) error {
	key := "paid:" + id
	won, err := claimOnce.Run(ctx, s.rdb, []string{key}, "busy", 86400).Int()
	if err != nil || won == 0 {
		return err
	}
	return s.gw.Charge(ctx, id)
}

// peekThenSet reads with the init-made script and writes in Go.
func (s *Store) peekThenSet(ctx context.Context, id string) error {
	key := "paid:" + id
	if _, err := peekScript.Run(ctx, s.rdb, []string{key}).Result(); err == nil {
		return nil
	}
	if err := s.gw.Charge(ctx, id); err != nil {
		return err
	}
	return s.rdb.Set(ctx, key, "done", 24*time.Hour).Err() // want `SET of key after the GET at luakept.go:\d+ races`
}

// reserveByName claims with a script read by name from the embed.FS.
func (s *Store) reserveByName(ctx context.Context, id string) error {
	key := "paid:" + id
	err := s.rdb.Eval(ctx, mustRead("scripts/reserve.lua"), []string{key}, "busy", 600000).Err()
	if err != nil {
		return err
	}
	return s.gw.Charge(ctx, id)
}

// Seen and MarkPaid are a repository's check and act, each one call:
// MarkPaid's script is a SET, wherever its caller checked.
func (s *Store) Seen(ctx context.Context, id string) (bool, error) {
	n, err := s.rdb.Exists(ctx, "paid:"+id).Result()
	return n > 0, err
}

// MarkPaid marks the payment done with the field's script.
func (s *Store) MarkPaid(ctx context.Context, id string) error {
	return s.mark.Run(ctx, s.rdb, []string{"paid:" + id}, "done", 86400).Err()
}

// Claim takes the payment's key with the embedded claim script.
func (s *Store) Claim(ctx context.Context, id string) (bool, error) {
	n, err := s.claim.Run(ctx, s.rdb, []string{"paid:" + id}, "busy", 86400).Int()
	return n == 1, err
}

// Payments pays through the repository.
type Payments struct {
	store *Store
	gw    Gateway
}

// PayOnce checks, pays and marks in three calls.
func (p *Payments) PayOnce(ctx context.Context, id string) error {
	seen, err := p.store.Seen(ctx, id)
	if err != nil || seen {
		return err
	}
	if err := p.gw.Charge(ctx, id); err != nil {
		return err
	}
	return p.store.MarkPaid(ctx, id) // want `SET of "paid:" \+ id \(by MarkPaid, at luakept.go:\d+\) after the EXISTS in Seen`
}

// PayClaimed claims before paying.
func (p *Payments) PayClaimed(ctx context.Context, id string) error {
	won, err := p.store.Claim(ctx, id)
	if err != nil || !won {
		return err
	}
	return p.gw.Charge(ctx, id)
}
