package checkthenact

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// quoteBroker charges for the quotes it sells.
type quoteBroker interface {
	Charge(ctx context.Context, id string) (string, error)
}

// quotes caches each quote it buys, in process, and in Redis.
type quotes struct {
	flight singleflight.Group
	bought sync.Map
	rdb    *redis.Client
	broker quoteBroker
}

// quote runs under singleflight for its key: calls with that key share
// one run, and the next finds what it stored.
func (q *quotes) quote(ctx context.Context, id string) (string, error) {
	v, err, _ := q.flight.Do(id, func() (any, error) {
		if v, ok := q.bought.Load(id); ok {
			return v, nil
		}
		quote, err := q.broker.Charge(ctx, id)
		if err != nil {
			return nil, err
		}
		q.bought.Store(id, quote)
		return quote, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// quoteShared keeps the record in Redis, which other processes share:
// singleflight holds back the calls of this process only.
func (q *quotes) quoteShared(ctx context.Context, id string) (string, error) {
	v, err, _ := q.flight.Do("quote:"+id, func() (any, error) {
		if v, err := q.rdb.Get(ctx, "quote:"+id).Result(); err == nil {
			return v, nil
		}
		quote, err := q.broker.Charge(ctx, id)
		if err != nil {
			return nil, err
		}
		q.rdb.Set(ctx, "quote:"+id, quote, 0) // want `SET of "quote:" \+ id after the GET at inflight.go:\d+ races with a concurrent retry`
		return quote, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// quoteOther runs under singleflight for another key than its record's.
func (q *quotes) quoteOther(ctx context.Context, id, batch string) (string, error) {
	v, err, _ := q.flight.Do(batch, func() (any, error) {
		if v, ok := q.bought.Load(id); ok {
			return v, nil
		}
		quote, err := q.broker.Charge(ctx, id)
		if err != nil {
			return nil, err
		}
		q.bought.Store(id, quote) // want `Store of q.bought after the Load at inflight.go:\d+ races with a concurrent retry`
		return quote, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}
