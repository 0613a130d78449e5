package luakept

import (
	"context"
	"embed"
	"path"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/*.lua
var luaFS embed.FS

// script makes a script from the embedded file of its name.
func script(name string) *redis.Script {
	src, err := luaFS.ReadFile(path.Join("lua", name+".lua"))
	if err != nil {
		panic("luakept: no script " + name)
	}
	return redis.NewScript(string(src))
}

var (
	holdScript    = script("hold")
	confirmScript = script("confirm")
)

// Seats holds seats for orders.
type Seats struct {
	rdb *redis.Client
	gw  Gateway
}

// Hold takes the seat with the embedded GET-then-SET script, then
// charges: one step.
func (s *Seats) Hold(ctx context.Context, seat, order string) error {
	won, err := holdScript.Run(ctx, s.rdb, []string{"seat:" + seat}, order, 60000).Int()
	if err != nil || won == 0 {
		return err
	}
	return s.gw.Charge(ctx, order)
}

// Confirm looks the seat up in Go, charges, and writes it with the
// embedded SET script: two buyers who both find it free both pay.
func (s *Seats) Confirm(ctx context.Context, seat, order string) error {
	key := "seat:" + seat
	if held, err := s.rdb.Exists(ctx, key).Result(); err != nil || held == 1 {
		return err
	}
	if err := s.gw.Charge(ctx, order); err != nil {
		return err
	}
	return confirmScript.Run(ctx, s.rdb, []string{key}, order).Err() // want `SET of key after the EXISTS at helpers.go:\d+ races`
}

// ambiguous is set to two different scripts: which one runs is not in
// sight, so it is read as neither.
type ambiguous struct {
	rdb *redis.Client
	s   *redis.Script
	gw  Gateway
}

func newAmbiguous(strict bool, rdb *redis.Client) *ambiguous {
	if strict {
		return &ambiguous{rdb: rdb, s: holdScript}
	}
	return &ambiguous{rdb: rdb, s: confirmScript}
}

func (a *ambiguous) run(ctx context.Context, seat, order string) error {
	key := "seat:" + seat
	if held, err := a.rdb.Exists(ctx, key).Result(); err != nil || held == 1 {
		return err
	}
	if err := a.gw.Charge(ctx, order); err != nil {
		return err
	}
	return a.s.Run(ctx, a.rdb, []string{key}, order).Err()
}
