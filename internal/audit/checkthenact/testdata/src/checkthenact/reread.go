package checkthenact

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

type payTx struct {
	ID             string
	IdempotencyKey string `gorm:"uniqueIndex"`
	Status         string
}

type payTxRepo struct{ db *gorm.DB }

// createOnce looks the key up, and when Create fails reads again: a
// caller that lost the race to the unique index gets the winner's row.
func (r *payTxRepo) createOnce(ctx context.Context, tx *payTx) (*payTx, bool, error) {
	var existing payTx
	err := r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing).Error
	if err == nil {
		return &existing, true, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, false, err
	}
	if err := r.db.WithContext(ctx).Create(tx).Error; err != nil {
		if r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing).Error == nil {
			return &existing, true, nil
		}
		return nil, false, err
	}
	return tx, false, nil
}

// createOnceAssigned is createOnce with the error assigned first.
func (r *payTxRepo) createOnceAssigned(ctx context.Context, tx *payTx) (*payTx, error) {
	var existing payTx
	if r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing).Error == nil {
		return &existing, nil
	}
	err := r.db.WithContext(ctx).Create(tx).Error
	if err != nil {
		if r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing).Error == nil {
			return &existing, nil
		}
		return nil, err
	}
	return tx, nil
}

// createLogged reads again only to log, after the error has already
// been returned for: nothing on the failure path reads the key, and the
// check decided.
func (r *payTxRepo) createLogged(ctx context.Context, tx *payTx) (*payTx, error) {
	var existing payTx
	if r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing).Error == nil {
		return &existing, nil
	}
	if err := r.db.WithContext(ctx).Create(tx).Error; err != nil { // want `Create of payTx after the First`
		return nil, err
	}
	r.db.WithContext(ctx).Where("idempotency_key = ?", tx.IdempotencyKey).First(&existing)
	return tx, nil
}
