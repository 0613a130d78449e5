package checkthenact

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// tables keeps which waiter holds which table, in process.
type tables struct {
	mu      sync.RWMutex
	holders map[string]string
	pagers  sync.Map
	menus   sync.Map
	seq     atomic.Int64
	free    pool

	nextPager func() int
	buzz      func(int) error
	loadMenu  func(ctx context.Context, day string) ([]byte, error)
}

type pool interface {
	Next(ctx context.Context) (string, error)
}

// page hands out a pager from a function value after the Load missed:
// two callers hand out two pagers and the map keeps one.
func (t *tables) page(party string) error {
	if v, ok := t.pagers.Load(party); ok {
		return t.buzz(v.(int))
	}
	pager := t.nextPager()
	t.pagers.Store(party, pager) // want `Store of t.pagers after the Load at memory.go:\d+ races with a concurrent retry; use LoadOrStore`
	return t.buzz(pager)
}

// number hands out the next number of a counter.
func (t *tables) number(party string) error {
	if v, ok := t.pagers.Load(party); ok {
		return t.buzz(v.(int))
	}
	n := int(t.seq.Add(1))
	t.pagers.Store(party, n) // want `Store of t.pagers after the Load`
	return t.buzz(n)
}

// seat takes the next free waiter of a pool behind an interface.
func (t *tables) seat(ctx context.Context, table string) error {
	t.mu.RLock()
	_, held := t.holders[table]
	t.mu.RUnlock()
	if held {
		return nil
	}
	waiter, err := t.free.Next(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.holders[table] = waiter // want `map store of t.holders after the map read at memory.go:\d+ races with a concurrent retry; use a store in the same critical section as the check`
	t.mu.Unlock()
	return nil
}

// seatChecked looks again under the write lock before it stores: the
// second check and the store are one step.
func (t *tables) seatChecked(ctx context.Context, table string) error {
	t.mu.RLock()
	_, held := t.holders[table]
	t.mu.RUnlock()
	if held {
		return nil
	}
	waiter, err := t.free.Next(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, held := t.holders[table]; held {
		return nil
	}
	t.holders[table] = waiter
	return nil
}

// menu fills a read-through cache with what the key looks up: the same
// whoever writes it.
func (t *tables) menu(ctx context.Context, day string) error {
	if _, ok := t.menus.Load(day); ok {
		return nil
	}
	m, err := t.loadMenu(ctx, day)
	if err != nil {
		return err
	}
	t.menus.Store(day, m)
	return nil
}

// seen records when a party was first seen: a clock's reading is a mark,
// not something handed out.
func (t *tables) seen(party string) {
	if _, ok := t.pagers.Load(party); ok {
		return
	}
	t.pagers.Store(party, time.Now())
}

type limiter struct{ n int }

func newLimiter(n int) *limiter { return &limiter{n: n} }

// limit makes a party's limiter with a constructor it sees into.
func (t *tables) limit(party string) *limiter {
	if v, ok := t.menus.Load(party); ok {
		_ = v
		return nil
	}
	l := newLimiter(3)
	t.menus.Store(party, l)
	return nil
}
