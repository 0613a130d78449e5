// Package redis is a minimal copy of github.com/go-redis/redis/v8's signatures.
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

type IntCmd struct{}

func (cmd *IntCmd) Result() (int64, error) { return 0, nil }
func (cmd *IntCmd) Val() int64             { return 0 }

type StatusCmd struct{}

func (cmd *StatusCmd) Err() error { return nil }

type BoolCmd struct{}

func (cmd *BoolCmd) Result() (bool, error) { return false, nil }

type Cmdable interface {
	Get(ctx context.Context, key string) *StringCmd
	Exists(ctx context.Context, keys ...string) *IntCmd
	Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd
	HSetNX(ctx context.Context, key, field string, value interface{}) *BoolCmd
	SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd
	Del(ctx context.Context, keys ...string) *IntCmd
}

type cmdable func(ctx context.Context, cmd interface{}) error

func (c cmdable) Get(ctx context.Context, key string) *StringCmd     { return nil }
func (c cmdable) Exists(ctx context.Context, keys ...string) *IntCmd { return nil }
func (c cmdable) Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return nil
}
func (c cmdable) SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return nil
}
func (c cmdable) HSetNX(ctx context.Context, key, field string, value interface{}) *BoolCmd {
	return nil
}
func (c cmdable) HGet(ctx context.Context, key, field string) *StringCmd               { return nil }
func (c cmdable) SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }
func (c cmdable) Del(ctx context.Context, keys ...string) *IntCmd                      { return nil }

type Cmder interface{ Err() error }

type Pipeliner interface {
	Cmdable
	Exec(ctx context.Context) ([]Cmder, error)
}

type Client struct {
	cmdable
}

func NewClient(opt *Options) *Client { return &Client{} }

func (c *Client) Do(ctx context.Context, args ...interface{}) *Cmd { return nil }
func (c *Client) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}
func (c *Client) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error { return nil }

type Cmd struct{}

func (cmd *Cmd) Result() (interface{}, error) { return nil, nil }

type Tx struct{ cmdable }

func (c *Tx) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}
