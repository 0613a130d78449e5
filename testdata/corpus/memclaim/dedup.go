package memclaim

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Dispatch assigns couriers to orders in one process per city.
type Dispatch struct {
	assigned sync.Map // order ID -> courier ID
	vouchers sync.Map // user ID -> voucher code
	routes   sync.Map // zone -> route plan

	courier Courier
	mailer  Mailer
	pool    CourierPool
	mint    func() string
	plan    func(ctx context.Context, zone string) ([]string, error)
}

// Assign gives an order the next free courier and pages them; a repeat
// pages the courier the order already has. Two calls that both miss take
// two couriers, and the order keeps the second.
//
// corpus: bug checkthenact
// modelled on: dhanapala-id/go-kit idempotency/README.md (an in-memory record checked before the work) with a sync.Map
func (d *Dispatch) Assign(ctx context.Context, orderID string) error {
	if v, ok := d.assigned.Load(orderID); ok {
		return d.courier.Page(ctx, v.(string), orderID)
	}
	courierID, err := d.pool.Next(ctx)
	if err != nil {
		return err
	}
	d.assigned.Store(orderID, courierID)
	return d.courier.Page(ctx, courierID, orderID)
}

// AssignOnce gives an order the next free courier; LoadOrStore decides in one step
// which caller's courier the order keeps, and every caller pages that one.
//
// corpus: ok checkthenact
// modelled on: dhanapala-id/go-kit idempotency/README.md (an in-memory record claimed before the work) with sync.Map's LoadOrStore
func (d *Dispatch) AssignOnce(ctx context.Context, orderID string) error {
	if v, ok := d.assigned.Load(orderID); ok {
		return d.courier.Page(ctx, v.(string), orderID)
	}
	courierID, err := d.pool.Next(ctx)
	if err != nil {
		return err
	}
	v, _ := d.assigned.LoadOrStore(orderID, courierID)
	return d.courier.Page(ctx, v.(string), orderID)
}

// SendVoucher mails a user their welcome voucher, minting one the first
// time.
//
// corpus: bug checkthenact
// modelled on: nedlaa/strangerbot id_recorder.go (IsSent by sync.Map Load, SetSent by a separate Store)
func (d *Dispatch) SendVoucher(ctx context.Context, userID, email string) error {
	code, ok := d.vouchers.Load(userID)
	if !ok {
		code = d.mint()
		d.vouchers.Store(userID, code)
	}
	return d.mailer.Send(ctx, email, "Your voucher", fmt.Sprint(code))
}

// RoutePlan returns a zone's route plan, working it out the first time;
// two callers that miss at once both work out the same plan.
//
// corpus: ok checkthenact
// modelled on: fco-gt/gopotency README.md (in-memory storage backend) used as a read-through cache
func (d *Dispatch) RoutePlan(ctx context.Context, zone string) ([]string, error) {
	if v, ok := d.routes.Load(zone); ok {
		return v.([]string), nil
	}
	plan, err := d.plan(ctx, zone)
	if err != nil {
		return nil, err
	}
	d.routes.Store(zone, plan)
	return plan, nil
}

// Payouts credits couriers' end-of-shift payouts, once per shift.
type Payouts struct {
	mu     sync.RWMutex
	paid   map[string]time.Time // shift ID -> when it was paid
	ledger Ledger
}

// PayShift credits a courier's shift. The read lock is let go before the
// credit and the write lock taken after it, so two calls for one shift
// both credit it.
//
// corpus: bug checkthenact
// modelled on: glimte/mmate-docs advanced/idempotency.md (processed message IDs in a map behind a sync.RWMutex, checked and marked in two critical sections)
func (p *Payouts) PayShift(ctx context.Context, shiftID, courierID string, cents int64) error {
	p.mu.RLock()
	_, done := p.paid[shiftID]
	p.mu.RUnlock()
	if done {
		return nil
	}
	if err := p.ledger.Credit(ctx, courierID, cents); err != nil {
		return err
	}
	p.mu.Lock()
	p.paid[shiftID] = time.Now()
	p.mu.Unlock()
	return nil
}

// PayShiftOnce credits a courier's shift. The fast path reads under the
// read lock; the write lock is taken and the map checked again before the
// shift is marked, so one caller wins.
//
// corpus: ok checkthenact
// modelled on: glimte/mmate-docs advanced/idempotency.md (processed message IDs behind a sync.RWMutex) with a second check under the write lock
func (p *Payouts) PayShiftOnce(ctx context.Context, shiftID, courierID string, cents int64) error {
	p.mu.RLock()
	_, done := p.paid[shiftID]
	p.mu.RUnlock()
	if done {
		return nil
	}
	p.mu.Lock()
	if _, done := p.paid[shiftID]; done {
		p.mu.Unlock()
		return nil
	}
	p.paid[shiftID] = time.Now()
	p.mu.Unlock()
	if err := p.ledger.Credit(ctx, courierID, cents); err != nil {
		p.mu.Lock()
		delete(p.paid, shiftID)
		p.mu.Unlock()
		return err
	}
	return nil
}

// Tips credits tips as they come in from the card terminal.
type Tips struct {
	mu       sync.Mutex
	credited map[string]bool
	ledger   Ledger
}

// CreditTip credits a tip. It checks the map without the lock and takes
// the lock only to mark the tip, so two deliveries both credit it.
//
// corpus: bug checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (processed-message map guarded by a mutex) read without the mutex
func (t *Tips) CreditTip(ctx context.Context, tipID, courierID string, cents int64) error {
	if t.credited[tipID] {
		return nil
	}
	if err := t.ledger.Credit(ctx, courierID, cents); err != nil {
		return err
	}
	t.mu.Lock()
	t.credited[tipID] = true
	t.mu.Unlock()
	return nil
}

// CreditTipOnce credits a tip, marking it under the same lock that
// checked it.
//
// corpus: ok checkthenact
// modelled on: sipeed/picoclaw pkg/channels/wecom_dedupe.go (markMessageProcessed holding the lock across check and write)
func (t *Tips) CreditTipOnce(ctx context.Context, tipID, courierID string, cents int64) error {
	t.mu.Lock()
	if t.credited[tipID] {
		t.mu.Unlock()
		return nil
	}
	t.credited[tipID] = true
	t.mu.Unlock()
	if err := t.ledger.Credit(ctx, courierID, cents); err != nil {
		t.mu.Lock()
		delete(t.credited, tipID)
		t.mu.Unlock()
		return err
	}
	return nil
}
