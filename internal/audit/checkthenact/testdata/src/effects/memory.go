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
