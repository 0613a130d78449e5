// Package redsync is a minimal copy of github.com/go-redsync/redsync/v4's signatures.
package redsync

import (
	"context"
	"errors"
)

var ErrFailed = errors.New("redsync: failed to acquire lock")

type Option interface{}

type Redsync struct{}

func (r *Redsync) NewMutex(name string, options ...Option) *Mutex { return &Mutex{} }

type Mutex struct{}

func (m *Mutex) Name() string                                    { return "" }
func (m *Mutex) Lock() error                                     { return nil }
func (m *Mutex) LockContext(ctx context.Context) error           { return nil }
func (m *Mutex) TryLock() error                                  { return nil }
func (m *Mutex) TryLockContext(ctx context.Context) error        { return nil }
func (m *Mutex) Unlock() (bool, error)                           { return false, nil }
func (m *Mutex) UnlockContext(ctx context.Context) (bool, error) { return false, nil }
