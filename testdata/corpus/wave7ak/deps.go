// Package wave7ak is a shop's billing side on Google Cloud: Pub/Sub push
// endpoints and pull subscribers, a Cloud Tasks target, and the outgoing
// calls they make under idempotency keys, with IDs from nanoid and
// snowflake besides UUIDs.
package wave7ak

import (
	"context"
)

// Payments charges a customer through the payment provider, which drops a
// charge whose key it has seen.
type Payments interface {
	Charge(ctx context.Context, customerID string, amount int64, idempotencyKey string) error
}

// Events publishes domain events; subscribers drop an event ID they have
// seen.
type Events interface {
	PublishEvent(ctx context.Context, eventID string, payload []byte) error
}

// Ledger credits accounts; a credit under a key it has seen is dropped.
type Ledger interface {
	Credit(ctx context.Context, account string, cents int64, idempotencyKey string) error
}
