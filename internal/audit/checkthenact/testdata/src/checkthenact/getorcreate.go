package checkthenact

import (
	"context"
	"slices"
	"sync"
)

// typedMap is a typed wrapper over sync.Map, as services keep one.
type typedMap[K comparable, V any] struct{ m sync.Map }

func (t *typedMap[K, V]) Load(k K) (V, bool) {
	v, ok := t.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (t *typedMap[K, V]) Store(k K, v V) { t.m.Store(k, v) }

func (t *typedMap[K, V]) LoadOrStore(k K, v V) (V, bool) {
	a, loaded := t.m.LoadOrStore(k, v)
	return a.(V), loaded
}

// sweeper runs one tenant's cleanup at a time: two of one tenant run at
// once.
type sweeper struct {
	mu      sync.Mutex
	tenant  string
	running bool
	cancel  context.CancelFunc
}

func newSweeper(tenant, desc string) *sweeper {
	_, cancel := context.WithCancel(context.Background())
	return &sweeper{tenant: tenant + desc, cancel: cancel}
}

// plan is a computed value: two of one tenant are the same plan.
type plan struct{ steps []string }

// sweepers keeps one sweeper per tenant.
type sweepers struct {
	desc  string
	typed typedMap[string, *sweeper]
	raw   sync.Map // tenant -> *sweeper
	plans sync.Map // tenant -> *plan
	lists sync.Map // tenant -> []string
	mu    sync.Mutex
	byKey map[string]*sweeper
}

// get makes the tenant's sweeper on a miss and hands it out: two callers
// that both miss run two sweepers, and the map keeps one.
func (s *sweepers) get(tenant string) *sweeper {
	sw, ok := s.typed.Load(tenant)
	if !ok {
		sw = newSweeper(tenant, s.desc)
		s.typed.Store(tenant, sw) // want `Store of t.m \(by Store, at getorcreate.go:\d+\) after the Load in Load at getorcreate.go:\d+, called at getorcreate.go:\d+ races with a concurrent caller: both find nothing and both make a new \*sweeper, and the map keeps one while the other caller goes on with its own; use LoadOrStore`
	}
	return sw
}

// getRaw is get on a sync.Map itself, the new one in the Load's variable.
func (s *sweepers) getRaw(tenant string) *sweeper {
	v, ok := s.raw.Load(tenant)
	if !ok {
		v = &sweeper{tenant: tenant}
		s.raw.Store(tenant, v) // want `Store of s.raw after the Load at getorcreate.go:\d+ races with a concurrent caller: both find nothing and both make a new \*sweeper.*use LoadOrStore of the new one`
	}
	return v.(*sweeper)
}

// getLocked checks and makes in two critical sections.
func (s *sweepers) getLocked(tenant string) *sweeper {
	s.mu.Lock()
	sw, ok := s.byKey[tenant]
	s.mu.Unlock()
	if ok {
		return sw
	}
	sw = newSweeper(tenant, s.desc)
	s.mu.Lock()
	s.byKey[tenant] = sw // want `map store of s.byKey after the map read at getorcreate.go:\d+ races with a concurrent caller: both find nothing and both make a new \*sweeper.*use a store in the same critical section`
	s.mu.Unlock()
	return sw
}

// getOnce lets LoadOrStore decide whose sweeper the tenant keeps.
func (s *sweepers) getOnce(tenant string) *sweeper {
	if sw, ok := s.typed.Load(tenant); ok {
		return sw
	}
	sw, _ := s.typed.LoadOrStore(tenant, newSweeper(tenant, s.desc))
	return sw
}

// getOrStore is LoadOrStore alone.
func (s *sweepers) getOrStore(tenant string) *sweeper {
	v, _ := s.raw.LoadOrStore(tenant, newSweeper(tenant, s.desc))
	return v.(*sweeper)
}

// getLockedOnce makes the sweeper in the critical section of its check.
func (s *sweepers) getLockedOnce(tenant string) *sweeper {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw, ok := s.byKey[tenant]
	if !ok {
		sw = newSweeper(tenant, s.desc)
		s.byKey[tenant] = sw
	}
	return sw
}

// planFor fills a cache with a computed plan: two callers that both miss
// hold two equal plans, which is harmless.
func (s *sweepers) planFor(tenant string) *plan {
	v, ok := s.plans.Load(tenant)
	if !ok {
		v = &plan{steps: []string{tenant}}
		s.plans.Store(tenant, v)
	}
	return v.(*plan)
}

// start makes the sweeper but keeps it to itself.
func (s *sweepers) start(tenant string) {
	if _, ok := s.raw.Load(tenant); ok {
		return
	}
	s.raw.Store(tenant, newSweeper(tenant, s.desc))
}

// enlist appends to the list it loaded, reassigned on the way: the
// stored list is still made from what was loaded.
func (s *sweepers) enlist(tenant, job string) bool {
	v, ok := s.lists.Load(tenant)
	if !ok {
		v = []string{}
	}
	jobs := v.([]string)
	if slices.Contains(jobs, job) {
		return false
	}
	jobs = append(jobs, job)
	s.lists.Store(tenant, jobs) // want `Store of s.lists after the Load at getorcreate.go:\d+ races with a concurrent retry: both find the item missing from what they loaded, both go on, and one's update is lost; use CompareAndSwap`
	return true
}
