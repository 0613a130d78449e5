package ledgerd

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Repository is the service's generic data access over gorm.
type Repository[T any] struct {
	db *gorm.DB
}

// NewRepository returns a Repository for T.
func NewRepository[T any](db *gorm.DB) *Repository[T] { return &Repository[T]{db: db} }

// FindOne returns the first T matching where, or gorm.ErrRecordNotFound.
func (r *Repository[T]) FindOne(ctx context.Context, where string, args ...any) (*T, error) {
	var t T
	if err := r.db.WithContext(ctx).Where(where, args...).First(&t).Error; err != nil {
		return nil, err
	}
	return &t, nil
}

// Create inserts t.
func (r *Repository[T]) Create(ctx context.Context, t *T) error {
	return r.db.WithContext(ctx).Create(t).Error
}

// CreateIfAbsent inserts t unless a row with the same value in the
// conflict columns exists; it reports whether t was inserted.
func (r *Repository[T]) CreateIfAbsent(ctx context.Context, t *T, conflict ...string) (bool, error) {
	cols := make([]clause.Column, len(conflict))
	for i, c := range conflict {
		cols[i] = clause.Column{Name: c}
	}
	res := r.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: cols, DoNothing: true}).Create(t)
	return res.RowsAffected == 1, res.Error
}

// Hold reserves funds on an account for a pending card authorisation.
type Hold struct {
	ID        uint   `gorm:"primaryKey"`
	Reference string `gorm:"uniqueIndex"`
	AccountID string
	Cents     int64
	ExpiresAt time.Time
}

// HoldRequest is the RPC request; Reference is the card network's
// authorisation reference, repeated when the network retries.
type HoldRequest struct {
	Reference string
	AccountID string
	Cents     int64
}

// HoldService implements the Holds RPCs.
type HoldService struct {
	holds *Repository[Hold]
}

// PlaceHold reserves funds for an authorisation, once per reference.
//
// corpus: bug checkthenact
// modelled on: mathin94/shipping-gateway internal/repository/repository.go (generic Repository[T] over gorm with FindByID and Create)
func (s *HoldService) PlaceHold(ctx context.Context, req HoldRequest) (*Hold, error) {
	existing, err := s.holds.FindOne(ctx, "reference = ?", req.Reference)
	if err == nil {
		return existing, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	h := &Hold{Reference: req.Reference, AccountID: req.AccountID, Cents: req.Cents, ExpiresAt: time.Now().Add(7 * 24 * time.Hour)}
	if err := s.holds.Create(ctx, h); err != nil {
		return nil, err
	}
	return h, nil
}

// PlaceHoldOnce reserves funds for an authorisation, once per reference:
// the insert skips a reference that exists and the winner's hold is
// returned.
//
// corpus: ok checkthenact
// modelled on: mathin94/shipping-gateway internal/repository/repository.go (generic Repository[T] over gorm with FindByID and Create)
func (s *HoldService) PlaceHoldOnce(ctx context.Context, req HoldRequest) (*Hold, error) {
	existing, err := s.holds.FindOne(ctx, "reference = ?", req.Reference)
	if err == nil {
		return existing, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	h := &Hold{Reference: req.Reference, AccountID: req.AccountID, Cents: req.Cents, ExpiresAt: time.Now().Add(7 * 24 * time.Hour)}
	created, err := s.holds.CreateIfAbsent(ctx, h, "reference")
	if err != nil {
		return nil, err
	}
	if !created {
		return s.holds.FindOne(ctx, "reference = ?", req.Reference)
	}
	return h, nil
}
