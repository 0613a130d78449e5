package effects

import (
	"context"
	"database/sql"
	"slices"
	"sync"
)

// OrderKeys is a store of processed orders, declared where it is used.
type OrderKeys interface {
	Exists(ctx context.Context, orderID string) (bool, error)
	Save(ctx context.Context, orderID, paymentID string) error
}

// PSP is a payment provider: CreatePayment makes a payment there.
type PSP interface {
	CreatePayment(ctx context.Context, orderID string, cents int) (string, error)
}

// Workflows starts a workflow run.
type Workflows interface {
	Trigger(ctx context.Context, name, input string) error
}

// OrderRepository keeps orders and their keys.
type OrderRepository interface {
	Exists(ctx context.Context, orderID string) (bool, error)
	CreateOrder(ctx context.Context, orderID string, cents int) (string, error)
	SaveKey(ctx context.Context, orderID, value string) error
}

// Bookkeeper writes entries inside the caller's transaction.
type Bookkeeper interface {
	CreateEntry(ctx context.Context, tx *sql.Tx, orderID string, cents int) (string, error)
}

// TxKeys keeps keys inside the caller's transaction.
type TxKeys interface {
	Exists(ctx context.Context, tx *sql.Tx, orderID string) (bool, error)
	Save(ctx context.Context, tx *sql.Tx, orderID, value string) error
}

type checkout struct {
	keys     OrderKeys
	psp      PSP
	flows    Workflows
	orders   OrderRepository
	journal  Bookkeeper
	txKeys   TxKeys
	payments OrderRepository
}

// A payment created at the provider between the check and the save of
// the order's key: two concurrent retries both pay.
func (c *checkout) pay(ctx context.Context, orderID string) error {
	seen, err := c.keys.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	id, err := c.psp.CreatePayment(ctx, orderID, 1000)
	if err != nil {
		return err
	}
	return c.keys.Save(ctx, orderID, id) // want `Save of c.keys after the Exists at outward.go:57 races with a concurrent retry: both find nothing and both run CreatePayment first`
}

// A workflow triggered between the check and the save runs twice.
func (c *checkout) start(ctx context.Context, orderID string) error {
	seen, err := c.keys.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	if err := c.flows.Trigger(ctx, "fulfil", orderID); err != nil {
		return err
	}
	return c.keys.Save(ctx, orderID, "started") // want `Save of c.keys after the Exists at outward.go:70 races with a concurrent retry: both find nothing and both run Trigger first`
}

// The repository's own second write, on the receiver checked: its rows,
// not the world's. The create itself races with the check, as any
// insert after a lookup does; the key saved after it is not reported
// again for running CreateOrder first.
func (c *checkout) place(ctx context.Context, orderID string) error {
	seen, err := c.orders.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	id, err := c.orders.CreateOrder(ctx, orderID, 1000) // want `CreateOrder of c.orders after the Exists at outward.go:85 races with a concurrent retry: both find nothing and both go on`
	if err != nil {
		return err
	}
	return c.orders.SaveKey(ctx, orderID, id)
}

// Another repository's create, not the world's: a store's row.
func (c *checkout) placeElsewhere(ctx context.Context, orderID string) error {
	seen, err := c.keys.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	id, err := c.payments.CreateOrder(ctx, orderID, 1000)
	if err != nil {
		return err
	}
	return c.keys.Save(ctx, orderID, id)
}

// Writes one transaction keeps together: the ledger entry and the key
// commit or roll back as one.
func (c *checkout) book(ctx context.Context, db *sql.DB, orderID string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	seen, err := c.txKeys.Exists(ctx, tx, orderID)
	if err != nil || seen {
		return err
	}
	id, err := c.journal.CreateEntry(ctx, tx, orderID, 1000)
	if err != nil {
		return err
	}
	if err := c.txKeys.Save(ctx, tx, orderID, id); err != nil {
		return err
	}
	return tx.Commit()
}

// Pusher pushes a notification to a user's devices.
type Pusher interface {
	Push(ctx context.Context, userID, text string) error
}

type notifier struct {
	keys   OrderKeys
	pusher Pusher
	queue  stack
	mu     sync.Mutex
	sent   map[string][]string
}

// stack is an in-memory stack: its Push is no call out of the process.
type stack struct{ items []string }

func (s *stack) Push(v string) { s.items = append(s.items, v) }

// A push between the check and the save: both retries notify.
func (n *notifier) notify(ctx context.Context, orderID, userID string) error {
	seen, err := n.keys.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	if err := n.pusher.Push(ctx, userID, "shipped"); err != nil {
		return err
	}
	return n.keys.Save(ctx, orderID, userID) // want `Save of n.keys after the Exists at outward.go:151 races with a concurrent retry: both find nothing and both run Push first`
}

// A stack's Push is no outward call: the save is reported for what it
// stores, not for running Push first.
func (n *notifier) stackUp(ctx context.Context, orderID, userID string) error {
	seen, err := n.keys.Exists(ctx, orderID)
	if err != nil || seen {
		return err
	}
	n.queue.Push(userID)
	return n.keys.Save(ctx, orderID, userID) // want `Save of n.keys after the Exists at outward.go:164 races with a concurrent retry: both find nothing and both go on`
}

// The order is added to the user's list under the lock before the push,
// and taken out under it when the push fails: the store in the failure
// branch undoes the mark for a push that did not happen.
func (n *notifier) notifyMarked(ctx context.Context, orderID, userID string) error {
	n.mu.Lock()
	if slices.Contains(n.sent[userID], orderID) {
		n.mu.Unlock()
		return nil
	}
	n.sent[userID] = append(n.sent[userID], orderID)
	n.mu.Unlock()
	if err := n.pusher.Push(ctx, userID, "shipped"); err != nil {
		n.mu.Lock()
		n.sent[userID] = slices.DeleteFunc(n.sent[userID], func(id string) bool { return id == orderID })
		n.mu.Unlock()
		return err
	}
	return nil
}
