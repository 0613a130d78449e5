// Package rueidis is a minimal copy of github.com/redis/rueidis's signatures.
package rueidis

import (
	"context"
	"time"

	"github.com/redis/rueidis/internal/cmds"
)

type (
	Builder   = cmds.Builder
	Completed = cmds.Completed
	Cacheable = cmds.Cacheable
)

type RedisResult struct{}

func (r RedisResult) Error() error              { return nil }
func (r RedisResult) ToString() (string, error) { return "", nil }
func (r RedisResult) AsBool() (bool, error)     { return false, nil }
func (r RedisResult) AsInt64() (int64, error)   { return 0, nil }

type Client interface {
	B() Builder
	Do(ctx context.Context, cmd Completed) (resp RedisResult)
	DoCache(ctx context.Context, cmd Cacheable, ttl time.Duration) (resp RedisResult)
	Close()
}

type ClientOption struct{ InitAddress []string }

func NewClient(option ClientOption) (client Client, err error) { return nil, nil }

func IsRedisNil(err error) bool { return false }

// Lua is a Lua script run by EVALSHA, falling back to EVAL.
type Lua struct{ script string }

type LuaOption func(*Lua)

func NewLuaScript(script string, opts ...LuaOption) *Lua         { return &Lua{script: script} }
func NewLuaScriptReadOnly(script string, opts ...LuaOption) *Lua { return &Lua{script: script} }

func (s *Lua) Exec(ctx context.Context, c Client, keys, args []string) (resp RedisResult) {
	return RedisResult{}
}
