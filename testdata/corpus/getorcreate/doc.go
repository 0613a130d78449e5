// Package getorcreate keeps one long-lived worker per tenant in process
// memory, made on first use: a get-or-create over a sync.Map. A Load and,
// on a miss, a Store of a new worker are two steps, and two callers that
// both miss run two workers; a LoadOrStore is one.
package getorcreate

import "sync"

// Map is a typed sync.Map.
type Map[K comparable, V any] struct{ m sync.Map }

// Load returns the value stored for k, and whether there was one.
func (m *Map[K, V]) Load(k K) (V, bool) {
	v, ok := m.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// Store sets the value for k.
func (m *Map[K, V]) Store(k K, v V) { m.m.Store(k, v) }

// LoadOrStore returns the value stored for k if there is one, and
// otherwise stores v and returns it; loaded says which.
func (m *Map[K, V]) LoadOrStore(k K, v V) (actual V, loaded bool) {
	a, loaded := m.m.LoadOrStore(k, v)
	return a.(V), loaded
}
