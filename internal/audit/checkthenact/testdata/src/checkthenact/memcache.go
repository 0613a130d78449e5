package checkthenact

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	gocache "github.com/patrickmn/go-cache"
)

// webhooks remembers, in an in-process cache, the deliveries it has handled.
type webhooks struct {
	handled *gocache.Cache
	recent  *lru.Cache[string, bool]
	pages   *gocache.Cache
	client  *http.Client
	notify  func(ctx context.Context, id string) error
}

// deliver looks the delivery up, notifies, and remembers it: two
// deliveries of one webhook both miss and both notify.
func (w *webhooks) deliver(ctx context.Context, id string) error {
	if _, found := w.handled.Get(id); found {
		return nil
	}
	if err := w.notify(ctx, id); err != nil {
		return err
	}
	w.handled.Set(id, true, time.Hour) // want `Set of w.handled after the Get at memcache.go:\d+ races with a concurrent retry; use the cache's Add, which fails when the key is there`
	return nil
}

// deliverAdded claims the delivery with Add, which fails for a key the
// cache holds.
func (w *webhooks) deliverAdded(ctx context.Context, id string) error {
	if err := w.handled.Add(id, true, time.Hour); err != nil {
		return nil
	}
	if err := w.notify(ctx, id); err != nil {
		w.handled.Delete(id)
		return err
	}
	return nil
}

// deliverLRU checks an LRU with Contains and adds after the work.
func (w *webhooks) deliverLRU(ctx context.Context, id string) error {
	if w.recent.Contains(id) {
		return nil
	}
	if err := w.notify(ctx, id); err != nil {
		return err
	}
	w.recent.Add(id, true) // want `Add of w.recent after the Contains at memcache.go:\d+ races with a concurrent retry; use the cache's ContainsOrAdd`
	return nil
}

// deliverClaimed adds to the LRU and checks in one step.
func (w *webhooks) deliverClaimed(ctx context.Context, id string) error {
	if seen, _ := w.recent.ContainsOrAdd(id, true); seen {
		return nil
	}
	return w.notify(ctx, id)
}

// page is a read-through cache of a GET: fetching a page twice harms
// nothing.
func (w *webhooks) page(ctx context.Context, url string) (json.RawMessage, error) {
	if v, ok := w.pages.Get(url); ok {
		return v.(json.RawMessage), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return nil, err
	}
	w.pages.Set(url, v, time.Minute)
	return v, nil
}

// forward POSTs the delivery on after the Get missed: the receiver gets
// it twice.
func (w *webhooks) forward(ctx context.Context, id, url string) error {
	if _, found := w.handled.Get(id); found {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	w.handled.Set(id, true, time.Hour) // want `Set of w.handled after the Get at memcache.go:\d+ races with a concurrent retry: both find nothing and both run http.Do first`
	return nil
}
