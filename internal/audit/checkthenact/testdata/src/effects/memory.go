package effects

import (
	"context"
	"sync"
)

// Dedup keeps the messages one process has handled.
type Dedup struct {
	mu     sync.Mutex
	seen   map[string]bool
	notify Payments
}

// The lock is let go between the check and the mark: two goroutines both
// find nothing and both charge.
func (d *Dedup) handle(ctx context.Context, id string) error {
	d.mu.Lock()
	dup := d.seen[id]
	d.mu.Unlock()
	if dup {
		return nil
	}
	if _, err := d.notify.Charge(ctx, id, 100); err != nil {
		return err
	}
	d.mu.Lock()
	d.seen[id] = true // want `map store of d.seen after the map read at memory.go:19 races`
	d.mu.Unlock()
	return nil
}

// One critical section holds the check and the mark; the Unlock on the
// early return does not end it.
func (d *Dedup) handleLocked(ctx context.Context, id string) error {
	d.mu.Lock()
	if d.seen[id] {
		d.mu.Unlock()
		return nil
	}
	d.seen[id] = true
	d.mu.Unlock()
	_, err := d.notify.Charge(ctx, id, 100)
	return err
}

// A map of the function's own is no shared record.
func countOnce(ctx context.Context, p Payments, ids []string) {
	local := map[string]bool{}
	for _, id := range ids {
		if local[id] {
			continue
		}
		p.Charge(ctx, id, 1)
		local[id] = true
	}
}

// Printer prints each receipt once, through a callback.
type Printer struct {
	done   sync.Map
	print  func(id string) error
	render func(id string) string
}

// A mark stored after a callback the check guards: two concurrent calls
// both print.
func (p *Printer) Print(id string) error {
	if _, ok := p.done.Load(id); ok {
		return nil
	}
	if err := p.print(id); err != nil {
		return err
	}
	p.done.Store(id, true) // want `Store of p.done after the Load at memory.go:69 races`
	return nil
}

// A value computed and cached, not a mark: computing it twice is harmless.
func (p *Printer) Render(id string) string {
	if v, ok := p.done.Load(id); ok {
		return v.(string)
	}
	v := p.render(id)
	p.done.Store(id, v)
	return v
}

// Limits memoises each org's limit, worked out from its licence.
type Limits struct {
	mu    sync.Mutex
	cache map[string]cachedLimit
	warn  func(msg string, args ...any)
}

type cachedLimit struct {
	licence string
	limit   int64
}

// A value worked out from the key and cached under a lock let go while it
// is computed: computing it twice is harmless, whatever the computation
// logs on the way.
func (l *Limits) resolve(org, licence string) int64 {
	l.mu.Lock()
	if c, ok := l.cache[org]; ok && c.licence == licence {
		l.mu.Unlock()
		return c.limit
	}
	l.mu.Unlock()
	limit := computeLimit(org, licence, l.warn)
	l.mu.Lock()
	l.cache[org] = cachedLimit{licence: licence, limit: limit}
	l.mu.Unlock()
	return limit
}

func computeLimit(org, licence string, warn func(string, ...any)) int64 {
	if licence == "" {
		return 0
	}
	n, err := decodeLimit(org, licence)
	if err != nil {
		if warn != nil {
			warn("decode licence", "org", org, "err", err)
		}
		return 0
	}
	return n
}

func decodeLimit(org, licence string) (int64, error) { return int64(len(org) + len(licence)), nil }
