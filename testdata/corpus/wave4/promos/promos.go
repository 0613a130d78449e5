// Package promos runs coupons, vouchers and referral rewards: a coupon
// may be used once per customer, a voucher once per order, a referral
// pays its reward once. Coupons live in GORM models; vouchers and the
// redemption log are written through query builders and sqlx.
package promos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/doug-martin/goqu/v9"
	_ "github.com/doug-martin/goqu/v9/dialect/postgres"
	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Coupon is a discount code with a limited number of uses.
type Coupon struct {
	ID          string `gorm:"primaryKey"`
	Code        string `gorm:"uniqueIndex"`
	PercentOff  int
	MaxUses     int
	ExpiresAt   time.Time
	UsesCounted int
}

// CouponUse records that a customer used a coupon on an order.
type CouponUse struct {
	ID         string `gorm:"primaryKey"`
	CouponID   string `gorm:"uniqueIndex:idx_coupon_customer"`
	CustomerID string `gorm:"uniqueIndex:idx_coupon_customer"`
	OrderID    string
	CreatedAt  time.Time
}

// ReferralReward is the credit paid to a referrer for one referred signup.
type ReferralReward struct {
	ID          string `gorm:"primaryKey"`
	ReferralID  string `gorm:"uniqueIndex"`
	ReferrerID  string
	AmountCents int64
	CreatedAt   time.Time
}

// ErrCouponUsed means the customer used the coupon before.
var ErrCouponUsed = errors.New("promos: coupon already used")

// ErrCouponExhausted means the coupon has no uses left.
var ErrCouponExhausted = errors.New("promos: coupon exhausted")

// Redemption is one entry of the redemption log.
type Redemption struct {
	ID         string    `db:"id"`
	PromoID    string    `db:"promo_id"`
	CustomerID string    `db:"customer_id"`
	OrderID    string    `db:"order_id"`
	CreatedAt  time.Time `db:"created_at"`
}

// RedemptionLog keeps the redemption log; promos/sqlxrepo implements it.
type RedemptionLog interface {
	Redeemed(ctx context.Context, promoID, customerID string) (bool, error)
	Append(ctx context.Context, r Redemption) error
	AppendUnlessRedeemed(ctx context.Context, r Redemption) (bool, error)
}

// Credits pays store credit to customers.
type Credits interface {
	Add(ctx context.Context, customerID string, cents int64, memo string) error
}

// Service runs promotions.
type Service struct {
	gdb     *gorm.DB
	db      *sql.DB
	log     RedemptionLog
	credits Credits
}

// New returns a Service.
func New(gdb *gorm.DB, db *sql.DB, log RedemptionLog, credits Credits) *Service {
	return &Service{gdb: gdb, db: db, log: log, credits: credits}
}

// UseCoupon applies coupon code to the customer's order.
//
// corpus: bug checkthenact
// modelled on: veetech-ai/fc-kiosk-server services/coupon_used.js (count of uses by user and coupon, then create)
func (s *Service) UseCoupon(ctx context.Context, code, customerID, orderID string) (*Coupon, error) {
	var c Coupon
	if err := s.gdb.WithContext(ctx).Where("code = ?", code).First(&c).Error; err != nil {
		return nil, err
	}
	var used int64
	if err := s.gdb.WithContext(ctx).Model(&CouponUse{}).
		Where("coupon_id = ? AND customer_id = ?", c.ID, customerID).
		Count(&used).Error; err != nil {
		return nil, err
	}
	if used > 0 {
		return nil, ErrCouponUsed
	}
	use := CouponUse{ID: uuid.NewString(), CouponID: c.ID, CustomerID: customerID, OrderID: orderID}
	if err := s.gdb.WithContext(ctx).Create(&use).Error; err != nil {
		return nil, err
	}
	return &c, nil
}

// UseCouponOnce applies coupon code to the customer's order.
//
// corpus: ok checkthenact
// modelled on: farellandr/Spoticket internal/models/coupon.go (user_coupons keyed by user and coupon) with clause.OnConflict{DoNothing: true}
func (s *Service) UseCouponOnce(ctx context.Context, code, customerID, orderID string) (*Coupon, error) {
	var c Coupon
	if err := s.gdb.WithContext(ctx).Where("code = ?", code).First(&c).Error; err != nil {
		return nil, err
	}
	use := CouponUse{ID: uuid.NewString(), CouponID: c.ID, CustomerID: customerID, OrderID: orderID}
	res := s.gdb.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&use)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrCouponUsed
	}
	return &c, nil
}

// UseLimitedCoupon applies a coupon with a cap on total uses to the
// customer's order.
//
// corpus: ok checkthenact
// modelled on: LYTiT/Server app/models/coupon.rb (claimers counted against the coupon's supply, then a claimer created) inside a transaction holding the coupon row
func (s *Service) UseLimitedCoupon(ctx context.Context, code, customerID, orderID string) error {
	return s.gdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var c Coupon
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("code = ?", code).First(&c).Error; err != nil {
			return err
		}
		if c.UsesCounted >= c.MaxUses {
			return ErrCouponExhausted
		}
		if err := tx.Create(&CouponUse{ID: uuid.NewString(), CouponID: c.ID, CustomerID: customerID, OrderID: orderID}).Error; err != nil {
			return err
		}
		return tx.Model(&c).Update("uses_counted", gorm.Expr("uses_counted + 1")).Error
	})
}

// PayReferral pays the referrer's reward for one referred signup. The
// signup webhook that calls it is delivered at least once.
//
// corpus: bug checkthenact
// modelled on: helloyoucan/cleaner-serve internal/dao/userCoupon.go (DB.Find then DB.Create of user coupons)
func (s *Service) PayReferral(ctx context.Context, referralID, referrerID string, cents int64) error {
	var prev ReferralReward
	err := s.gdb.WithContext(ctx).Where("referral_id = ?", referralID).First(&prev).Error
	if err == nil {
		return nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return err
	}
	reward := ReferralReward{ID: uuid.NewString(), ReferralID: referralID, ReferrerID: referrerID, AmountCents: cents}
	if err := s.gdb.WithContext(ctx).Create(&reward).Error; err != nil {
		return err
	}
	return s.credits.Add(ctx, referrerID, cents, "referral "+referralID)
}

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// ApplyVoucher applies a voucher to an order; a voucher applies once per
// order.
//
// corpus: bug checkthenact
// modelled on: Masterminds/squirrel README.md (Select ... From ... Where(sq.Eq{...}) and Insert ... Columns ... Values, RunWith(db))
func (s *Service) ApplyVoucher(ctx context.Context, voucher, orderID string, cents int64) error {
	var n int
	err := psql.Select("count(*)").From("voucher_applications").
		Where(sq.Eq{"voucher": voucher, "order_id": orderID}).
		RunWith(s.db).QueryRowContext(ctx).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("voucher %s already on order %s", voucher, orderID)
	}
	_, err = psql.Insert("voucher_applications").
		Columns("id", "voucher", "order_id", "amount_cents").
		Values(uuid.NewString(), voucher, orderID, cents).
		RunWith(s.db).ExecContext(ctx)
	return err
}

// ApplyVoucherOnce applies a voucher to an order; a voucher applies once
// per order.
//
// corpus: ok checkthenact
// modelled on: doug-martin/goqu docs/inserting.md (Insert(...).Rows(goqu.Record{...}).OnConflict(goqu.DoNothing()))
func (s *Service) ApplyVoucherOnce(ctx context.Context, voucher, orderID string, cents int64) (bool, error) {
	q, args, err := goqu.Dialect("postgres").Insert("voucher_applications").
		Rows(goqu.Record{"id": uuid.NewString(), "voucher": voucher, "order_id": orderID, "amount_cents": cents}).
		OnConflict(goqu.DoNothing()).
		Prepared(true).
		ToSQL()
	if err != nil {
		return false, err
	}
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// RedeemPromo records that the customer redeemed a one-per-customer
// promotion on an order and credits the promotion's value.
//
// corpus: bug checkthenact
// modelled on: veetech-ai/fc-kiosk-server services/coupon_used.js (isExists then create, behind a service)
func (s *Service) RedeemPromo(ctx context.Context, promoID, customerID, orderID string, cents int64) error {
	done, err := s.log.Redeemed(ctx, promoID, customerID)
	if err != nil {
		return err
	}
	if done {
		return ErrCouponUsed
	}
	if err := s.log.Append(ctx, Redemption{ID: uuid.NewString(), PromoID: promoID, CustomerID: customerID, OrderID: orderID}); err != nil {
		return err
	}
	return s.credits.Add(ctx, customerID, cents, "promo "+promoID)
}

// RedeemPromoOnce records that the customer redeemed a one-per-customer
// promotion on an order and credits the promotion's value.
//
// corpus: ok checkthenact
// modelled on: veetech-ai/fc-kiosk-server services/coupon_used.js (redemption recorded per user and coupon) with the unique key deciding
func (s *Service) RedeemPromoOnce(ctx context.Context, promoID, customerID, orderID string, cents int64) error {
	added, err := s.log.AppendUnlessRedeemed(ctx, Redemption{ID: uuid.NewString(), PromoID: promoID, CustomerID: customerID, OrderID: orderID})
	if err != nil {
		return err
	}
	if !added {
		return ErrCouponUsed
	}
	return s.credits.Add(ctx, customerID, cents, "promo "+promoID)
}
