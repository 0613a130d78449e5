package cache

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrDuplicate tells a caller the operation already ran for this key.
var ErrDuplicate = errors.New("duplicate request")

// ErrInProgress tells a caller an earlier request with this key is still
// running.
var ErrInProgress = errors.New("request in progress")

// Ledger moves money between accounts; every call moves it again.
type Ledger interface {
	Credit(ctx context.Context, account string, cents int64, memo string) error
	Debit(ctx context.Context, account string, cents int64, memo string) error
}

// Notifier sends a message to a user.
type Notifier interface {
	Notify(ctx context.Context, userID, template string, data map[string]string) error
}

// Inventory holds stock for time slots.
type Inventory interface {
	Hold(ctx context.Context, slotID, userID string) error
}

// Rates fetches exchange rates from the upstream provider.
type Rates interface {
	Fetch(ctx context.Context, base, quote string) (float64, error)
}

// Transfer is the outcome of a transfer a client asked for.
type Transfer struct {
	ID        string    `json:"id"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Cents     int64     `json:"cents"`
	CreatedAt time.Time `json:"created_at"`
}

// Payments executes transfers at the bank.
type Payments interface {
	Execute(ctx context.Context, from, to string, cents int64) (*Transfer, error)
}

// Refund is the outcome of a refund.
type Refund struct {
	ID     string `json:"id"`
	Charge string `json:"charge"`
	Cents  int64  `json:"cents"`
}

// Refunds issues refunds at the processor.
type Refunds interface {
	Issue(ctx context.Context, chargeID string, cents int64) (*Refund, error)
}

func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
