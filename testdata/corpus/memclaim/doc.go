// Package memclaim holds services that keep their idempotency and dedup
// records in process memory: maps behind a sync.Mutex or sync.RWMutex,
// and sync.Map. A check and a write in two critical sections, or a
// sync.Map Load followed by a Store, are two steps; a write in the same
// critical section as its check, or a LoadOrStore, is one.
package memclaim

import "context"

// Courier hands out couriers and messages them.
type Courier interface {
	Page(ctx context.Context, courierID, orderID string) error
}

// CourierPool hands out free couriers.
type CourierPool interface {
	Next(ctx context.Context) (string, error)
}

// Mailer sends mail.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Ledger books money.
type Ledger interface {
	Credit(ctx context.Context, account string, cents int64) error
}
