package checkthenact

import (
	"context"
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Repo is a service's generic data access over gorm.
type Repo[T any] struct{ db *gorm.DB }

func (r *Repo[T]) FindOne(ctx context.Context, where string, args ...any) (*T, error) {
	var t T
	if err := r.db.WithContext(ctx).Where(where, args...).First(&t).Error; err != nil {
		return nil, err
	}
	return &t, nil
}

func (r *Repo[T]) Create(ctx context.Context, t *T) error {
	return r.db.WithContext(ctx).Create(t).Error
}

func (r *Repo[T]) CreateIfAbsent(ctx context.Context, t *T) (bool, error) {
	res := r.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(t)
	return res.RowsAffected == 1, res.Error
}

type Hold struct {
	Reference string
	Cents     int64
}

type HoldAudit struct {
	Reference string
}

type Holds struct {
	holds  *Repo[Hold]
	audits *Repo[HoldAudit]
}

// A lookup through the generic repository, then its Create of the same
// model: two retries both find nothing and both hold the funds.
func (s *Holds) place(ctx context.Context, ref string, cents int64) (*Hold, error) {
	h, err := s.holds.FindOne(ctx, "reference = ?", ref)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	h = &Hold{Reference: ref, Cents: cents}
	if err := s.holds.Create(ctx, h); err != nil { // want `Create of Hold \(by Create, at generic.go:\d+\) after the First in FindOne`
		return nil, err
	}
	return h, nil
}

// The insert-if-absent in the write's place.
func (s *Holds) placeOnce(ctx context.Context, ref string, cents int64) (*Hold, error) {
	h, err := s.holds.FindOne(ctx, "reference = ?", ref)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	h = &Hold{Reference: ref, Cents: cents}
	if _, err := s.holds.CreateIfAbsent(ctx, h); err != nil {
		return nil, err
	}
	return h, nil
}

// Another instance of the repository is another table: the audit row
// written after a lookup of holds checks nothing.
func (s *Holds) note(ctx context.Context, ref string) error {
	if _, err := s.holds.FindOne(ctx, "reference = ?", ref); err == nil {
		return nil
	}
	return s.audits.Create(ctx, &HoldAudit{Reference: ref})
}
