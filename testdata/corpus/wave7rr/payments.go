// Package payments keeps payment attempts in Postgres through gorm, one row
// per idempotency key under a unique index.
package payments

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// Attempt is one payment attempt; IdempotencyKey is unique.
type Attempt struct {
	ID             string `gorm:"primaryKey"`
	OrderID        string
	IdempotencyKey string `gorm:"uniqueIndex"`
	Status         string
	CreatedAt      time.Time
}

// Repo stores attempts.
type Repo struct{ db *gorm.DB }

// CreatePending returns the attempt under a's key, making it when there is
// none; a Create that loses the race to the unique index reads the
// winner's row instead of failing.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/repository/transaction.go (CreateIdempotent: First, Create, and a fallback First when Create fails)
func (r *Repo) CreatePending(ctx context.Context, a *Attempt) (*Attempt, bool, error) {
	var found Attempt
	err := r.db.WithContext(ctx).Where("idempotency_key = ?", a.IdempotencyKey).First(&found).Error
	if err == nil {
		return &found, true, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, false, err
	}
	if err := r.db.WithContext(ctx).Create(a).Error; err != nil {
		if r.db.WithContext(ctx).Where("idempotency_key = ?", a.IdempotencyKey).First(&found).Error == nil {
			return &found, true, nil
		}
		return nil, false, err
	}
	return a, false, nil
}

// LegacyAttempt is the table before the unique index was added.
type LegacyAttempt struct {
	ID             string `gorm:"primaryKey"`
	OrderID        string
	IdempotencyKey string `gorm:"index"`
	Status         string
}

// CreateLegacy is the same lookup on the table without the unique index:
// two concurrent requests with one key both find nothing and both add an
// attempt, and both go on to charge.
//
// corpus: bug checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/repository/transaction.go (CreateIdempotent, on a table whose key is not unique)
func (r *Repo) CreateLegacy(ctx context.Context, a *LegacyAttempt) (*LegacyAttempt, bool, error) {
	var found LegacyAttempt
	err := r.db.WithContext(ctx).Where("idempotency_key = ?", a.IdempotencyKey).First(&found).Error
	if err == nil {
		return &found, true, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, false, err
	}
	if err := r.db.WithContext(ctx).Create(a).Error; err != nil {
		return nil, false, err
	}
	return a, false, nil
}
