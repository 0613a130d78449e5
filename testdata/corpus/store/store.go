// Package store holds the records the HTTP API keeps and the repository
// interfaces its handlers call. Each interface is small and declared here,
// beside the records it moves; the implementations live in the subpackages
// (pgstore on pgx v5, gormstore on GORM, bunstore on bun), each importing
// this package, so the handlers never see a driver.
package store

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned by lookups that match no row.
var ErrNotFound = errors.New("store: not found")

// Grant gives a user one feature of the product (a trial, an add-on).
type Grant struct {
	ID        string
	UserID    string
	Feature   string
	Source    string
	CreatedAt time.Time
}

// Redemption records that a user redeemed a coupon code.
type Redemption struct {
	ID         string `gorm:"primaryKey"`
	CouponCode string `gorm:"index"`
	UserID     string `gorm:"index"`
	AmountOff  int64
	RedeemedAt time.Time
}

// Reservation holds a bookable slot for a user until it is confirmed.
type Reservation struct {
	ID        string    `bun:"id,pk"`
	SlotID    string    `bun:"slot_id"`
	UserID    string    `bun:"user_id"`
	Status    string    `bun:"status"`
	Version   int       `bun:"version"`
	CreatedAt time.Time `bun:"created_at"`
}

// IdempotencyRecord is one row of idempotency_keys: the client's key, the
// request's fingerprint and, once the request has been answered, the answer.
type IdempotencyRecord struct {
	Key          string
	Fingerprint  string
	Status       string
	ResponseCode int
	ResponseBody []byte
	CreatedAt    time.Time
}

// GrantRepository is what the grants endpoints need from storage.
type GrantRepository interface {
	// HasGrant reports whether the user already holds the feature.
	HasGrant(ctx context.Context, userID, feature string) (bool, error)
	// InsertGrant writes a grant row.
	InsertGrant(ctx context.Context, g Grant) error
	// InsertGrantIfAbsent writes the grant unless the user already holds
	// the feature, and reports whether it wrote one.
	InsertGrantIfAbsent(ctx context.Context, g Grant) (bool, error)
}

// RedemptionRepository is what the coupon endpoints need from storage.
type RedemptionRepository interface {
	// FindRedemption returns the user's redemption of code, or ErrNotFound.
	FindRedemption(ctx context.Context, code, userID string) (*Redemption, error)
	// CreateRedemption writes a redemption row.
	CreateRedemption(ctx context.Context, r *Redemption) error
	// CreateRedemptionOnce writes the redemption unless the user already
	// redeemed the code, and reports whether it wrote one.
	CreateRedemptionOnce(ctx context.Context, r *Redemption) (bool, error)
}

// ReservationRepository is what the booking endpoints need from storage.
type ReservationRepository interface {
	// GetReservation returns the reservation holding slotID, or ErrNotFound.
	GetReservation(ctx context.Context, slotID string) (*Reservation, error)
	// CreateReservation writes a reservation row.
	CreateReservation(ctx context.Context, r *Reservation) error
	// UpsertReservation writes the reservation, replacing the user and
	// status of the one already holding its slot.
	UpsertReservation(ctx context.Context, r *Reservation) error
}

// IdempotencyRepository keeps the idempotency_keys table.
type IdempotencyRepository interface {
	// Claim inserts the key in progress and reports whether this call
	// inserted it (false: another request holds or held it).
	Claim(ctx context.Context, key, fingerprint string) (bool, error)
	// Lookup returns the record of key, or ErrNotFound.
	Lookup(ctx context.Context, key string) (*IdempotencyRecord, error)
	// MarkCompleted sets the key's status to completed.
	MarkCompleted(ctx context.Context, key string) error
	// SaveResponse stores the answer and sets the key's status to completed.
	SaveResponse(ctx context.Context, key string, code int, body []byte) error
	// Release deletes the key so that a retry can run the request again.
	Release(ctx context.Context, key string) error
}
