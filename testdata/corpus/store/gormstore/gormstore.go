// Package gormstore implements the store repositories on GORM.
package gormstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"example.com/corpus/store"
)

// RedemptionStore keeps the redemptions table.
type RedemptionStore struct {
	db *gorm.DB
}

// NewRedemptionStore returns a RedemptionStore on db.
func NewRedemptionStore(db *gorm.DB) *RedemptionStore { return &RedemptionStore{db: db} }

var _ store.RedemptionRepository = (*RedemptionStore)(nil)

// FindRedemption returns the user's redemption of code.
func (s *RedemptionStore) FindRedemption(ctx context.Context, code, userID string) (*store.Redemption, error) {
	var r store.Redemption
	err := s.db.WithContext(ctx).
		Where("coupon_code = ? AND user_id = ?", code, userID).
		First(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("find redemption: %w", err)
	}
	return &r, nil
}

// CreateRedemption writes one redemption row.
func (s *RedemptionStore) CreateRedemption(ctx context.Context, r *store.Redemption) error {
	if err := s.db.WithContext(ctx).Create(r).Error; err != nil {
		return fmt.Errorf("create redemption: %w", err)
	}
	return nil
}

// CreateRedemptionOnce writes the redemption unless the unique index on
// (coupon_code, user_id) already holds one.
func (s *RedemptionStore) CreateRedemptionOnce(ctx context.Context, r *store.Redemption) (bool, error) {
	res := s.db.WithContext(ctx).
		Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "coupon_code"}, {Name: "user_id"}}, DoNothing: true}).
		Create(r)
	if res.Error != nil {
		return false, fmt.Errorf("create redemption: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// Coupon is a code with a number of uses left.
type Coupon struct {
	ID       int64
	Code     string `gorm:"uniqueIndex"`
	UsesLeft int
	PerUser  int
}

// CouponUse is one use of a coupon by a user on an order.
type CouponUse struct {
	ID       int64
	CouponID int64
	UserID   string
	OrderID  string
	UsedAt   time.Time
}

// CouponStore applies coupons to orders.
type CouponStore struct {
	db *gorm.DB
}

// NewCouponStore returns a CouponStore on db.
func NewCouponStore(db *gorm.DB) *CouponStore { return &CouponStore{db: db} }

// ErrCouponUsed means the user has used up the coupon.
var ErrCouponUsed = errors.New("coupon already used")

// UseCoupon records one use of code by userID on orderID. It holds the
// coupon's own row, which exists, locked from the count to the insert, so
// two uses of one coupon (a request and its retry) run one at a time.
//
// corpus: ok checkthenact
// modelled on: PrairieLearn/PrairieLearn lib/named-locks.sql (lock an existing row FOR UPDATE, then work under it)
func (s *CouponStore) UseCoupon(ctx context.Context, code, userID, orderID string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var c Coupon
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("code = ?", code).First(&c).Error; err != nil {
			return fmt.Errorf("use coupon %s: %w", code, err)
		}
		var used int64
		if err := tx.Model(&CouponUse{}).
			Where("coupon_id = ? AND user_id = ?", c.ID, userID).
			Count(&used).Error; err != nil {
			return err
		}
		if int(used) >= c.PerUser {
			return ErrCouponUsed
		}
		use := CouponUse{CouponID: c.ID, UserID: userID, OrderID: orderID, UsedAt: time.Now()}
		return tx.Create(&use).Error
	})
}

// UseCouponOnce records the single use a one-per-customer coupon allows.
// It locks the use row it is about to create, which does not exist yet.
//
// corpus: bug checkthenact
// modelled on: enumerate1/wager-api internal/repositories/common.go (a FOR UPDATE suffix added to the lookup)
func (s *CouponStore) UseCouponOnce(ctx context.Context, couponID int64, userID, orderID string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var prior CouponUse
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("coupon_id = ? AND user_id = ?", couponID, userID).
			Take(&prior).Error
		if err == nil {
			return ErrCouponUsed
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		use := CouponUse{CouponID: couponID, UserID: userID, OrderID: orderID, UsedAt: time.Now()}
		return tx.Create(&use).Error
	})
}
