package checkthenact

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// The shape of hookdeck/outpost's alert pipeline: an attempt is checked
// under its own key, the events it owes are planned from the entry, each
// is sent inside a suppression window under a key of its own (claim,
// emit, mark processed), and the attempt is marked processed last. The
// window's mark and the attempt's mark end in the same helper, but the
// window's key is an event's, not the attempt's.

type chainEntry struct {
	AttemptID string
	TenantID  string
	DestID    string
}

type chainEvent struct {
	body        string
	suppressKey string
}

type chainEmitter interface {
	Emit(ctx context.Context, body string) error
}

type chainDisabler interface {
	DisableDestination(ctx context.Context, tenantID, destID string) error
}

type chainPipeline struct {
	rdb *redis.Client
	em  chainEmitter
	dis chainDisabler
}

func (p *chainPipeline) markProcessed(ctx context.Context, idempotencyKey string) error {
	return p.rdb.Set(ctx, idempotencyKey, "processed", time.Hour).Err()
}

func (p *chainPipeline) processed(ctx context.Context, key string) (bool, error) {
	s, err := p.rdb.Get(ctx, key).Result()
	if err == redis.Nil {
		return false, nil
	}
	return s == "processed", err
}

// exec claims key, runs emit and marks key processed.
func (p *chainPipeline) exec(ctx context.Context, key string, emit func(context.Context) error) error {
	ok, err := p.rdb.SetNX(ctx, key, "processing", time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	if err := emit(ctx); err != nil {
		p.rdb.Del(ctx, key)
		return err
	}
	return p.markProcessed(ctx, key)
}

func (p *chainPipeline) plan(ctx context.Context, e *chainEntry) ([]chainEvent, error) {
	if err := p.dis.DisableDestination(ctx, e.TenantID, e.DestID); err != nil {
		return nil, err
	}
	return []chainEvent{{body: e.AttemptID, suppressKey: "exhausted:" + e.TenantID + ":" + e.DestID}}, nil
}

func (p *chainPipeline) sendAll(ctx context.Context, events []chainEvent) error {
	for _, ev := range events {
		if err := p.exec(ctx, ev.suppressKey, func(ctx context.Context) error { return p.em.Emit(ctx, ev.body) }); err != nil {
			return err
		}
	}
	return nil
}

// sendAll writes each event's window key, which plan made: not the key
// processed read. Only the attempt's own mark is a check-then-act.
func (p *chainPipeline) Handle(ctx context.Context, e *chainEntry) error {
	key := "attempt:" + e.AttemptID
	done, err := p.processed(ctx, key)
	if err != nil || done {
		return err
	}
	events, err := p.plan(ctx, e)
	if err != nil {
		return err
	}
	if err := p.sendAll(ctx, events); err != nil {
		return err
	}
	return p.markProcessed(ctx, key) // want `SET of idempotencyKey \(by markProcessed, at helperchain.go:\d+\) after the GET in processed at helperchain.go:\d+, called at helperchain.go:\d+ races with a concurrent retry: both find nothing and both run Emit first`
}
