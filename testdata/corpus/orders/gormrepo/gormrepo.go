// Package gormrepo implements the orders repositories, unit of work and
// key store on GORM.
package gormrepo

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"example.com/corpus/orders"
)

// Repo is a Repository[T] on one *gorm.DB (a pool or a transaction).
type Repo[T any] struct {
	db *gorm.DB
}

// NewRepo returns a Repo on db.
func NewRepo[T any](db *gorm.DB) *Repo[T] { return &Repo[T]{db: db} }

var _ orders.Repository[orders.Order] = (*Repo[orders.Order])(nil)

// FindOne implements orders.Repository.
func (r *Repo[T]) FindOne(ctx context.Context, where string, args ...any) (*T, error) {
	var v T
	err := r.db.WithContext(ctx).Where(where, args...).First(&v).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, orders.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// FindAll implements orders.Repository.
func (r *Repo[T]) FindAll(ctx context.Context, where string, args ...any) ([]T, error) {
	var vs []T
	err := r.db.WithContext(ctx).Where(where, args...).Find(&vs).Error
	return vs, err
}

// Count implements orders.Repository.
func (r *Repo[T]) Count(ctx context.Context, where string, args ...any) (int64, error) {
	var n int64
	err := r.db.WithContext(ctx).Model(new(T)).Where(where, args...).Count(&n).Error
	return n, err
}

// Create implements orders.Repository.
func (r *Repo[T]) Create(ctx context.Context, v *T) error {
	return r.db.WithContext(ctx).Create(v).Error
}

// CreateIfAbsent implements orders.Repository.
func (r *Repo[T]) CreateIfAbsent(ctx context.Context, v *T, uniqueCols ...string) (bool, error) {
	cols := make([]clause.Column, len(uniqueCols))
	for i, c := range uniqueCols {
		cols[i] = clause.Column{Name: c}
	}
	res := r.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: cols, DoNothing: true}).Create(v)
	return res.RowsAffected == 1, res.Error
}

// Upsert implements orders.Repository.
func (r *Repo[T]) Upsert(ctx context.Context, v *T, keyCols, updateCols []string) error {
	cols := make([]clause.Column, len(keyCols))
	for i, c := range keyCols {
		cols[i] = clause.Column{Name: c}
	}
	return r.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: cols, DoUpdates: clause.AssignmentColumns(updateCols)}).Create(v).Error
}

// UpdateWhere implements orders.Repository.
func (r *Repo[T]) UpdateWhere(ctx context.Context, values map[string]any, where string, args ...any) (int64, error) {
	res := r.db.WithContext(ctx).Model(new(T)).Where(where, args...).Updates(values)
	return res.RowsAffected, res.Error
}

// txRepos binds the repositories to one transaction.
type txRepos struct{ db *gorm.DB }

func (t txRepos) Orders() orders.Repository[orders.Order]     { return NewRepo[orders.Order](t.db) }
func (t txRepos) Lines() orders.Repository[orders.OrderLine]  { return NewRepo[orders.OrderLine](t.db) }
func (t txRepos) Payments() orders.Repository[orders.Payment] { return NewRepo[orders.Payment](t.db) }

// UnitOfWork implements orders.UnitOfWork with db.Transaction.
type UnitOfWork struct{ db *gorm.DB }

// NewUnitOfWork returns a UnitOfWork on db.
func NewUnitOfWork(db *gorm.DB) *UnitOfWork { return &UnitOfWork{db: db} }

// Do implements orders.UnitOfWork.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context, tx orders.Tx) error) error {
	return u.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(ctx, txRepos{db: tx})
	})
}

// idempotencyRecord is one row of order_idempotency.
type idempotencyRecord struct {
	Key          string `gorm:"primaryKey"`
	Fingerprint  string
	Status       string
	ResponseCode int
	ResponseBody []byte
	CreatedAt    time.Time
}

func (idempotencyRecord) TableName() string { return "order_idempotency" }

// Keys implements orders.Keys.
type Keys struct{ db *gorm.DB }

// NewKeys returns Keys on db.
func NewKeys(db *gorm.DB) *Keys { return &Keys{db: db} }

var _ orders.Keys = (*Keys)(nil)

// Claim implements orders.Keys.
func (k *Keys) Claim(ctx context.Context, key, fingerprint string) (bool, error) {
	res := k.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).
		Create(&idempotencyRecord{Key: key, Fingerprint: fingerprint, Status: "in_progress", CreatedAt: time.Now()})
	return res.RowsAffected == 1, res.Error
}

// Release implements orders.Keys.
func (k *Keys) Release(ctx context.Context, key string) error {
	return k.db.WithContext(ctx).Where("key = ? AND status = ?", key, "in_progress").Delete(&idempotencyRecord{}).Error
}

// Complete implements orders.Keys.
func (k *Keys) Complete(ctx context.Context, key string, code int, body []byte) error {
	return k.db.WithContext(ctx).Model(&idempotencyRecord{}).Where("key = ?", key).
		Updates(map[string]any{"status": "completed", "response_code": code, "response_body": body}).Error
}

// Answer implements orders.Keys.
func (k *Keys) Answer(ctx context.Context, key string) (int, []byte, bool, error) {
	var rec idempotencyRecord
	if err := k.db.WithContext(ctx).Where("key = ?", key).First(&rec).Error; err != nil {
		return 0, nil, false, err
	}
	return rec.ResponseCode, rec.ResponseBody, rec.Status == "completed", nil
}
