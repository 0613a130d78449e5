package gormrepo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"example.com/corpus/orders"
)

// WishlistItem is one row of wishlist_items.
type WishlistItem struct {
	ID      uint `gorm:"primaryKey"`
	UserID  string
	SKU     string
	AddedAt time.Time
}

// Direct holds the few operations that use GORM without the generic
// repository.
type Direct struct{ db *gorm.DB }

// NewDirect returns Direct on db.
func NewDirect(db *gorm.DB) *Direct { return &Direct{db: db} }

// AddToWishlist adds a SKU to the user's wishlist once.
//
// corpus: bug checkthenact
// modelled on: x931890193/blog-backend model/entity/like_collect_dao.go (GetOrCreate through FirstOrCreate on article and user)
func (d *Direct) AddToWishlist(ctx context.Context, userID, sku string) (*WishlistItem, error) {
	item := WishlistItem{}
	err := d.db.WithContext(ctx).
		Where(WishlistItem{UserID: userID, SKU: sku}).
		Attrs(WishlistItem{AddedAt: time.Now()}).
		FirstOrCreate(&item).Error
	if err != nil {
		return nil, fmt.Errorf("wishlist: %w", err)
	}
	return &item, nil
}

// CapturePayment records the payment of an order once per order. The
// order's row, which exists, is locked first, so two captures of the same
// order run one after the other.
//
// corpus: ok checkthenact
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (First, then Create or Updates on the result)
func (d *Direct) CapturePayment(ctx context.Context, orderID, providerID string, amount int64) error {
	return d.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var o orders.Order
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", orderID).First(&o).Error; err != nil {
			return fmt.Errorf("lock order: %w", err)
		}
		var p orders.Payment
		err := tx.Where("order_id = ?", orderID).First(&p).Error
		if err == nil {
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("find payment: %w", err)
		}
		if err := tx.Create(&orders.Payment{ID: providerID, OrderID: orderID, ProviderID: providerID, AmountMinor: amount}).Error; err != nil {
			return fmt.Errorf("create payment: %w", err)
		}
		return tx.Model(&o).Update("status", "paid").Error
	})
}
