package cache

import (
	"context"
	"sync"
	"time"
)

// LocalDedup remembers, in process, the message IDs a single-instance worker
// has handled, so that a redelivery from the queue is dropped.
type LocalDedup struct {
	mu       sync.Mutex
	seen     map[string]time.Time
	notifier Notifier
}

// NewLocalDedup returns an empty LocalDedup.
func NewLocalDedup(n Notifier) *LocalDedup {
	return &LocalDedup{seen: make(map[string]time.Time), notifier: n}
}

// Deliver sends the notification for msgID unless it was delivered before.
// The lock is taken for the check and again for the mark, and let go in
// between, so two goroutines with the same msgID both get past the check.
//
// corpus: bug checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (processed-message map guarded by a mutex)
func (d *LocalDedup) Deliver(ctx context.Context, msgID, userID, template string) error {
	d.mu.Lock()
	_, dup := d.seen[msgID]
	d.mu.Unlock()
	if dup {
		return nil
	}
	if err := d.notifier.Notify(ctx, userID, template, nil); err != nil {
		return err
	}
	d.mu.Lock()
	d.seen[msgID] = time.Now()
	d.mu.Unlock()
	return nil
}

// DeliverLocked marks msgID in the same critical section as the check, so
// one goroutine wins; a failed send unmarks it.
//
// corpus: ok checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (check and mark under one held lock)
func (d *LocalDedup) DeliverLocked(ctx context.Context, msgID, userID, template string) error {
	d.mu.Lock()
	if _, dup := d.seen[msgID]; dup {
		d.mu.Unlock()
		return nil
	}
	d.seen[msgID] = time.Now()
	d.mu.Unlock()

	if err := d.notifier.Notify(ctx, userID, template, nil); err != nil {
		d.mu.Lock()
		delete(d.seen, msgID)
		d.mu.Unlock()
		return err
	}
	return nil
}

// ReceiptPrinter prints receipts at a shop's terminal; the terminal's
// callbacks arrive more than once.
type ReceiptPrinter struct {
	printed sync.Map
	print   func(ctx context.Context, orderID string) error
}

// Print prints an order's receipt once. Load and Store are two steps, and
// two callbacks in flight both Load nothing.
//
// corpus: bug checkthenact
// modelled on: nedlaa/strangerbot id_recorder.go (IsSent by sync.Map Load, SetSent by a separate call)
func (p *ReceiptPrinter) Print(ctx context.Context, orderID string) error {
	if _, ok := p.printed.Load(orderID); ok {
		return nil
	}
	if err := p.print(ctx, orderID); err != nil {
		return err
	}
	p.printed.Store(orderID, time.Now())
	return nil
}

// PrintOnce claims the order with LoadOrStore, which is one atomic step.
//
// corpus: ok checkthenact
// modelled on: nedlaa/strangerbot id_recorder.go (SetSent by LoadOrStore and its loaded result)
func (p *ReceiptPrinter) PrintOnce(ctx context.Context, orderID string) error {
	if _, loaded := p.printed.LoadOrStore(orderID, time.Now()); loaded {
		return nil
	}
	if err := p.print(ctx, orderID); err != nil {
		p.printed.Delete(orderID)
		return err
	}
	return nil
}

// SessionRevoker revokes sessions in the local replica of the session table.
type SessionRevoker struct {
	mu      sync.Mutex
	revoked map[string]bool
	audit   func(sessionID string)
}

// Revoke writes the audit entry for a session's revocation once. The mutex
// is held from the check through the mark, so the audit line is written by
// one caller.
//
// corpus: ok checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (markMessageProcessed holding the lock across check and write)
func (s *SessionRevoker) Revoke(sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revoked[sessionID] {
		return
	}
	s.audit(sessionID)
	s.revoked[sessionID] = true
}
