// Package redis is a minimal copy of github.com/redis/go-redis/v9's signatures.
package redis

import (
	"context"
	"time"
)

const Nil = RedisError("redis: nil")

type RedisError string

func (e RedisError) Error() string { return string(e) }

type Options struct{ Addr string }

type StringCmd struct{}

func (cmd *StringCmd) Result() (string, error) { return "", nil }
func (cmd *StringCmd) Val() string             { return "" }
func (cmd *StringCmd) Err() error              { return nil }
func (cmd *StringCmd) Bytes() ([]byte, error)  { return nil, nil }
func (cmd *StringCmd) Int() (int, error)       { return 0, nil }

type IntCmd struct{}

func (cmd *IntCmd) Result() (int64, error) { return 0, nil }
func (cmd *IntCmd) Val() int64             { return 0 }
func (cmd *IntCmd) Err() error             { return nil }

type StatusCmd struct{}

func (cmd *StatusCmd) Result() (string, error) { return "", nil }
func (cmd *StatusCmd) Err() error              { return nil }

type BoolCmd struct{}

func (cmd *BoolCmd) Result() (bool, error) { return false, nil }
func (cmd *BoolCmd) Val() bool             { return false }
func (cmd *BoolCmd) Err() error            { return nil }

type Cmd struct{}

func (cmd *Cmd) Result() (interface{}, error) { return nil, nil }
func (cmd *Cmd) Err() error                   { return nil }
func (cmd *Cmd) Int() (int, error)            { return 0, nil }
func (cmd *Cmd) Int64() (int64, error)        { return 0, nil }
func (cmd *Cmd) Bool() (bool, error)          { return false, nil }
func (cmd *Cmd) Text() (string, error)        { return "", nil }

type SetArgs struct {
	Mode     string
	TTL      time.Duration
	ExpireAt time.Time
	Get      bool
	KeepTTL  bool
}

type Cmdable interface {
	Get(ctx context.Context, key string) *StringCmd
	Exists(ctx context.Context, keys ...string) *IntCmd
	Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd
	SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd
	Del(ctx context.Context, keys ...string) *IntCmd
	Unlink(ctx context.Context, keys ...string) *IntCmd
}

type UniversalClient interface {
	Cmdable
	Do(ctx context.Context, args ...interface{}) *Cmd
}

// cmdable carries the commands, as in go-redis, so that Client's methods
// are promoted the way the real ones are.
type cmdable func(ctx context.Context, cmd interface{}) error

func (c cmdable) Get(ctx context.Context, key string) *StringCmd     { return nil }
func (c cmdable) Exists(ctx context.Context, keys ...string) *IntCmd { return nil }
func (c cmdable) Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return nil
}
func (c cmdable) SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd {
	return nil
}
func (c cmdable) SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return nil
}
func (c cmdable) SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return nil
}
func (c cmdable) Del(ctx context.Context, keys ...string) *IntCmd    { return nil }
func (c cmdable) Unlink(ctx context.Context, keys ...string) *IntCmd { return nil }

type Client struct {
	cmdable
}

func NewClient(opt *Options) *Client { return &Client{} }

func (c *Client) Do(ctx context.Context, args ...interface{}) *Cmd { return nil }

// The hash commands.

func (c cmdable) HSetNX(ctx context.Context, key, field string, value interface{}) *BoolCmd {
	return nil
}
func (c cmdable) HSet(ctx context.Context, key string, values ...interface{}) *IntCmd   { return nil }
func (c cmdable) HMSet(ctx context.Context, key string, values ...interface{}) *BoolCmd { return nil }
func (c cmdable) HDel(ctx context.Context, key string, fields ...string) *IntCmd        { return nil }

// The read, set, counter, list and stream commands, pipelines and WATCH.

type MapStringStringCmd struct{}

func (cmd *MapStringStringCmd) Result() (map[string]string, error) { return nil, nil }

type BoolSliceCmd struct{}

func (cmd *BoolSliceCmd) Result() ([]bool, error) { return nil, nil }

type XAddArgs struct {
	Stream string
	ID     string
	Values interface{}
}

func (c cmdable) HGet(ctx context.Context, key, field string) *StringCmd      { return nil }
func (c cmdable) HGetAll(ctx context.Context, key string) *MapStringStringCmd { return nil }
func (c cmdable) HExists(ctx context.Context, key, field string) *BoolCmd     { return nil }
func (c cmdable) SIsMember(ctx context.Context, key string, member interface{}) *BoolCmd {
	return nil
}
func (c cmdable) SMIsMember(ctx context.Context, key string, members ...interface{}) *BoolSliceCmd {
	return nil
}
func (c cmdable) SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }
func (c cmdable) SRem(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }
func (c cmdable) Incr(ctx context.Context, key string) *IntCmd                         { return nil }
func (c cmdable) IncrBy(ctx context.Context, key string, value int64) *IntCmd          { return nil }
func (c cmdable) LPush(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }
func (c cmdable) RPush(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }
func (c cmdable) XAdd(ctx context.Context, a *XAddArgs) *StringCmd                     { return nil }

type Cmder interface{ Err() error }

type Pipeliner interface {
	Cmdable
	HGet(ctx context.Context, key, field string) *StringCmd
	HSet(ctx context.Context, key string, values ...interface{}) *IntCmd
	SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd
	SIsMember(ctx context.Context, key string, member interface{}) *BoolCmd
	Incr(ctx context.Context, key string) *IntCmd
	Exec(ctx context.Context) ([]Cmder, error)
}

type Pipeline struct{ cmdable }

func (c *Pipeline) Exec(ctx context.Context) ([]Cmder, error) { return nil, nil }

func (c *Client) Pipeline() Pipeliner   { return nil }
func (c *Client) TxPipeline() Pipeliner { return nil }
func (c *Client) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}
func (c *Client) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}
func (c *Client) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error { return nil }

type Tx struct{ cmdable }

func (c *Tx) TxPipeline() Pipeliner { return nil }
func (c *Tx) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c cmdable) SetXX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return nil
}

func (c cmdable) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd {
	return nil
}
func (c cmdable) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd {
	return nil
}

// Scripter is what a Script runs on.
type Scripter interface {
	Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd
}

// Script is a Lua script.
type Script struct{ src string }

func NewScript(src string) *Script { return &Script{src: src} }

func (s *Script) Run(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return nil
}
func (s *Script) EvalSha(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return nil
}
func (s *Script) Eval(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return nil
}
