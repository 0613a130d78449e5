package checkthenact

import (
	"slices"
	"sync"
)

// inboxes keeps, per account, the IDs of the events already credited.
type inboxes struct {
	seen   sync.Map // account -> []string
	state  sync.Map // event ID -> *delivery
	mu     sync.Mutex
	byUser map[string][]string
	credit func(account string, cents int64) error
}

type delivery struct {
	done bool
	resp string
}

// loadThenAppend checks the list it loaded and stores it with the event
// appended: two deliveries both miss, both credit, and one ID is lost.
func (b *inboxes) loadThenAppend(account, eventID string, cents int64) error {
	v, _ := b.seen.Load(account)
	ids, _ := v.([]string)
	if slices.Contains(ids, eventID) {
		return nil
	}
	if err := b.credit(account, cents); err != nil {
		return err
	}
	b.seen.Store(account, append(ids, eventID)) // want `Store of b.seen after the Load at syncmaplost.go:\d+ races with a concurrent retry: both find the item missing from what they loaded.*use CompareAndSwap`
	return nil
}

// loadOrStoreThenAppend makes sure the entry exists with LoadOrStore,
// then checks and stores as two steps all the same.
func (b *inboxes) loadOrStoreThenAppend(account, eventID string, cents int64) error {
	actual, _ := b.seen.LoadOrStore(account, []string{})
	ids := actual.([]string)
	if slices.Contains(ids, eventID) {
		return nil
	}
	if err := b.credit(account, cents); err != nil {
		return err
	}
	b.seen.Store(account, append(ids, eventID)) // want `Store of b.seen after the LoadOrStore at syncmaplost.go:\d+ races with a concurrent retry: both find the item missing`
	return nil
}

// loadOrStoreState moves the loaded entry on and stores it back: the
// caller that lost the LoadOrStore finds it not done too.
func (b *inboxes) loadOrStoreState(eventID string, cents int64) error {
	v, _ := b.state.LoadOrStore(eventID, &delivery{})
	d := v.(*delivery)
	if d.done {
		return nil
	}
	if err := b.credit(eventID, cents); err != nil {
		return err
	}
	b.state.Store(eventID, &delivery{done: true, resp: d.resp}) // want `Store of b.state after the LoadOrStore`
	return nil
}

// casLoop appends with CompareAndSwap and credits only after its swap won.
func (b *inboxes) casLoop(account, eventID string, cents int64) error {
	for {
		v, _ := b.seen.Load(account)
		ids, _ := v.([]string)
		if slices.Contains(ids, eventID) {
			return nil
		}
		next := append(slices.Clone(ids), eventID)
		if v == nil {
			if _, loaded := b.seen.LoadOrStore(account, next); !loaded {
				break
			}
			continue
		}
		if b.seen.CompareAndSwap(account, v, next) {
			break
		}
	}
	return b.credit(account, cents)
}

// perEvent claims the event's own key with LoadOrStore.
func (b *inboxes) perEvent(account, eventID string, cents int64) error {
	if _, loaded := b.seen.LoadOrStore(account+":"+eventID, true); loaded {
		return nil
	}
	return b.credit(account, cents)
}

// claimThenComplete claims with LoadOrStore, and stores the finished
// delivery, not made from what it loaded, when the credit succeeds.
func (b *inboxes) claimThenComplete(eventID string, cents int64) (string, error) {
	v, loaded := b.state.LoadOrStore(eventID, &delivery{})
	if loaded {
		return v.(*delivery).resp, nil
	}
	if err := b.credit(eventID, cents); err != nil {
		b.state.Delete(eventID)
		return "", err
	}
	b.state.Store(eventID, &delivery{done: true, resp: "credited"})
	return "credited", nil
}

// mutexTwoSections reads and appends in two critical sections.
func (b *inboxes) mutexTwoSections(user, eventID string, cents int64) error {
	b.mu.Lock()
	ids := b.byUser[user]
	b.mu.Unlock()
	if slices.Contains(ids, eventID) {
		return nil
	}
	if err := b.credit(user, cents); err != nil {
		return err
	}
	b.mu.Lock()
	b.byUser[user] = append(ids, eventID) // want `map store of b.byUser after the map read at syncmaplost.go:\d+ races with a concurrent retry: both find the item missing.*one critical section`
	b.mu.Unlock()
	return nil
}

// mutexOneSection checks and appends under one lock.
func (b *inboxes) mutexOneSection(user, eventID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slices.Contains(b.byUser[user], eventID) {
		return false
	}
	b.byUser[user] = append(b.byUser[user], eventID)
	return true
}
