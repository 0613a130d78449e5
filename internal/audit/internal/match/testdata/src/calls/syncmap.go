package calls

import "sync"

type dedup struct {
	seen  sync.Map
	inner struct{ m *sync.Map }
	mu    sync.Mutex
	plain map[string]bool
}

var global sync.Map

func syncMaps(s *dedup, id string, v any) {
	s.seen.Load(id)                       // want `access read Load record="syncmap s.seen" keys=<id> dest=<> for-update=false appends=false added=false`
	s.seen.Store(id, true)                // want `access write Store record="syncmap s.seen" keys=<id> dest=<> for-update=false appends=false`
	s.seen.LoadOrStore(id, true)          // want `access claim LoadOrStore record="syncmap s.seen" keys=<id>`
	s.seen.LoadAndDelete(id)              // want `access delete LoadAndDelete record="syncmap s.seen" keys=<id>`
	s.inner.m.Delete(id)                  // want `access delete Delete record="syncmap s.inner.m" keys=<id>`
	s.inner.m.CompareAndSwap(id, v, true) // want `access guarded update CompareAndSwap record="syncmap s.inner.m"`
	global.Swap(id, v)                    // want `access write Swap record="syncmap global" keys=<id>`
}

// cache has sync.Map's method names and is its own type.
type cache struct{}

func (cache) Load(key any) (any, bool) { return nil, false }
func (cache) Store(key, value any)     {}

func syncMapLookAlikes(s *dedup, c cache, id string) {
	c.Load(id)
	c.Store(id, 1)
	s.mu.Lock()
	s.seen.Range(func(k, v any) bool { return true })
	var once sync.Once
	once.Do(func() {})
	s.mu.Unlock()
}
