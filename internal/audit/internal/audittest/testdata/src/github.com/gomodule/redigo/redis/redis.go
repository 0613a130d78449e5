// Package redis is a minimal copy of github.com/gomodule/redigo/redis's signatures.
package redis

import (
	"context"
	"errors"
)

var ErrNil = errors.New("redigo: nil returned")

type Conn interface {
	Close() error
	Err() error
	Do(commandName string, args ...interface{}) (reply interface{}, err error)
	Send(commandName string, args ...interface{}) error
	Flush() error
	Receive() (reply interface{}, err error)
}

type ConnWithContext interface {
	Conn
	DoContext(ctx context.Context, commandName string, args ...interface{}) (reply interface{}, err error)
}

type Pool struct{}

func (p *Pool) Get() Conn                                    { return nil }
func (p *Pool) GetContext(ctx context.Context) (Conn, error) { return nil, nil }

func DoContext(c Conn, ctx context.Context, cmd string, args ...interface{}) (interface{}, error) {
	return nil, nil
}

func String(reply interface{}, err error) (string, error) { return "", nil }
func Bool(reply interface{}, err error) (bool, error)     { return false, nil }
func Int(reply interface{}, err error) (int, error)       { return 0, nil }

// Script is a Lua script run by EVALSHA, falling back to EVAL.
type Script struct{}

func NewScript(keyCount int, src string) *Script { return &Script{} }

func (s *Script) Do(c Conn, keysAndArgs ...interface{}) (interface{}, error) { return nil, nil }

func (s *Script) DoContext(ctx context.Context, c Conn, keysAndArgs ...interface{}) (interface{}, error) {
	return nil, nil
}

func (s *Script) Send(c Conn, keysAndArgs ...interface{}) error { return nil }
