package getorcreate

import (
	"context"
	"sync"
	"time"
)

// Reindexer rebuilds one tenant's search index at a time; a request to
// reindex while a rebuild runs asks for one more pass after it.
type Reindexer struct {
	mu      sync.Mutex
	tenant  string
	running bool
	again   bool
	timeout time.Duration
	rebuild func(ctx context.Context, tenant string) error
	ctx     context.Context
	cancel  context.CancelFunc
}

// NewReindexer makes the reindexer of one tenant; Stop ends its passes.
func NewReindexer(tenant string, timeout time.Duration, rebuild func(ctx context.Context, tenant string) error) *Reindexer {
	ctx, cancel := context.WithCancel(context.Background())
	return &Reindexer{tenant: tenant, timeout: timeout, rebuild: rebuild, ctx: ctx, cancel: cancel}
}

// Trigger runs a pass unless one is running, in which case that one goes
// round again when it ends.
func (r *Reindexer) Trigger() {
	r.mu.Lock()
	if r.running {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.running = true
	r.mu.Unlock()
	go r.loop()
}

func (r *Reindexer) loop() {
	for {
		ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
		_ = r.rebuild(ctx, r.tenant)
		cancel()
		r.mu.Lock()
		if !r.again {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.again = false
		r.mu.Unlock()
	}
}

// Stop ends the reindexer's passes.
func (r *Reindexer) Stop() { r.cancel() }

// Pool keeps one Reindexer per tenant, made on first use.
type Pool struct {
	timeout time.Duration
	rebuild func(ctx context.Context, tenant string) error
	byID    Map[string, *Reindexer]
	once    Map[string, *Reindexer]
	quotas  Map[string, Quota]
	plans   map[string]string // tenant -> plan name, set at start
}

// Quota is what a tenant's plan allows in one reindex.
type Quota struct {
	Documents int
	Fields    int
}

// Reindex triggers the tenant's reindexer, making it on first use. Two
// calls that both miss make two reindexers, the map keeps the second, and
// the first runs its rebuild beside the kept one's: two rebuilds of one
// index at once, which one reindexer per tenant is there to prevent.
//
// corpus: bug checkthenact
// modelled on: hatchet-dev/hatchet internal/operation/pool.go (getOperation)
func (p *Pool) Reindex(tenant string) {
	r, ok := p.byID.Load(tenant)
	if !ok {
		r = NewReindexer(tenant, p.timeout, p.rebuild)
		p.byID.Store(tenant, r)
	}
	r.Trigger()
}

// ReindexOnce makes the tenant's reindexer on a miss but lets LoadOrStore
// decide whose the tenant keeps; a caller that lost stops the one it made
// and triggers the kept one.
//
// corpus: ok checkthenact
// modelled on: hatchet-dev/hatchet internal/operation/pool.go (getOperation) with sync.Map's LoadOrStore
func (p *Pool) ReindexOnce(tenant string) {
	r, ok := p.once.Load(tenant)
	if !ok {
		made := NewReindexer(tenant, p.timeout, p.rebuild)
		var loaded bool
		if r, loaded = p.once.LoadOrStore(tenant, made); loaded {
			made.Stop()
		}
	}
	r.Trigger()
}

// Quota works out what the tenant's plan allows, caching it. Two calls
// that both miss work out the same quota and store it twice, which
// leaves what once leaves.
//
// corpus: ok checkthenact
// modelled on: KINGMJ/go-learning demo21/mutex2/mian.go (getCached: a computed value cached after a miss, in the lookup's variable)
func (p *Pool) Quota(tenant string) Quota {
	q, ok := p.quotas.Load(tenant)
	if !ok {
		q = Quota{Documents: 10_000, Fields: 50}
		if p.plans[tenant] == "enterprise" {
			q = Quota{Documents: 1_000_000, Fields: 500}
		}
		p.quotas.Store(tenant, q)
	}
	return q
}
