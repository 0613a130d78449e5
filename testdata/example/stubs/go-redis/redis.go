// Package redis is a minimal copy of github.com/redis/go-redis/v9's
// signatures, enough for the example service to build without a network.
// It does not talk to Redis.
package redis

import (
	"context"
	"time"
)

// Nil is the reply to a GET of a missing key, or a SET NX that lost.
const Nil = RedisError("redis: nil")

type RedisError string

func (e RedisError) Error() string { return string(e) }

type Options struct{ Addr string }

type StringCmd struct{}

func (cmd *StringCmd) Result() (string, error) { return "", Nil }
func (cmd *StringCmd) Bytes() ([]byte, error)  { return nil, Nil }
func (cmd *StringCmd) Err() error              { return Nil }

type StatusCmd struct{}

func (cmd *StatusCmd) Result() (string, error) { return "OK", nil }
func (cmd *StatusCmd) Err() error              { return nil }

type IntCmd struct{}

func (cmd *IntCmd) Result() (int64, error) { return 0, nil }
func (cmd *IntCmd) Err() error             { return nil }

type BoolCmd struct{}

func (cmd *BoolCmd) Result() (bool, error) { return true, nil }
func (cmd *BoolCmd) Val() bool             { return true }
func (cmd *BoolCmd) Err() error            { return nil }

type Client struct{}

func NewClient(opt *Options) *Client { return &Client{} }

func (c *Client) Get(ctx context.Context, key string) *StringCmd { return &StringCmd{} }
func (c *Client) Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return &StatusCmd{}
}
func (c *Client) SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return &BoolCmd{}
}
func (c *Client) Del(ctx context.Context, keys ...string) *IntCmd { return &IntCmd{} }
