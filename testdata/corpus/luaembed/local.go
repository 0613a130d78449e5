package luaembed

import (
	"context"
	"slices"
	"sync"
)

// Nudges sends at most one push notification per order to each user. It
// runs beside Redis in process: the orders a user was nudged about are
// kept in memory.
type Nudges struct {
	pusher Pusher
	sent   sync.Map // user -> []string of order IDs

	mu     sync.Mutex
	byUser map[string][]string
}

// Pusher sends push notifications.
type Pusher interface {
	Push(ctx context.Context, user, text string) error
}

// Nudge makes sure the user's list exists, checks it for the order,
// pushes, and stores the list with the order appended: two deliveries
// that both load the list without the order both push, and one append
// is lost.
//
// corpus: bug checkthenact
// modelled on: yspreen/go-days go/main.go (a list kept in a sync.Map read with LoadOrStore and stored back with one more item)
func (n *Nudges) Nudge(ctx context.Context, user, orderID, text string) error {
	v, _ := n.sent.LoadOrStore(user, []string{})
	orders := v.([]string)
	if slices.Contains(orders, orderID) {
		return nil
	}
	if err := n.pusher.Push(ctx, user, text); err != nil {
		return err
	}
	n.sent.Store(user, append(orders, orderID))
	return nil
}

// NudgeLocked checks the user's orders and records the order in one
// critical section before it pushes, and forgets it when the push fails.
//
// corpus: ok checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (a processed-message map checked and marked under one lock)
func (n *Nudges) NudgeLocked(ctx context.Context, user, orderID, text string) error {
	n.mu.Lock()
	if slices.Contains(n.byUser[user], orderID) {
		n.mu.Unlock()
		return nil
	}
	n.byUser[user] = append(n.byUser[user], orderID)
	n.mu.Unlock()
	if err := n.pusher.Push(ctx, user, text); err != nil {
		n.mu.Lock()
		n.byUser[user] = slices.DeleteFunc(n.byUser[user], func(id string) bool { return id == orderID })
		n.mu.Unlock()
		return err
	}
	return nil
}
