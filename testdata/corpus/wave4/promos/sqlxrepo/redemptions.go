// Package sqlxrepo keeps the promos redemption log on Postgres through
// sqlx.
package sqlxrepo

import (
	"context"

	"github.com/jmoiron/sqlx"

	"example.com/corpus/wave4/promos"
)

// Redemptions implements promos.RedemptionLog.
type Redemptions struct {
	db *sqlx.DB
}

// NewRedemptions returns the log over db.
func NewRedemptions(db *sqlx.DB) *Redemptions { return &Redemptions{db: db} }

var _ promos.RedemptionLog = (*Redemptions)(nil)

// Redeemed reports whether the customer redeemed the promotion.
func (r *Redemptions) Redeemed(ctx context.Context, promoID, customerID string) (bool, error) {
	var ok bool
	err := r.db.GetContext(ctx, &ok,
		`SELECT EXISTS (SELECT 1 FROM redemptions WHERE promo_id = $1 AND customer_id = $2)`,
		promoID, customerID)
	return ok, err
}

// Append writes one redemption.
func (r *Redemptions) Append(ctx context.Context, red promos.Redemption) error {
	_, err := r.db.NamedExecContext(ctx,
		`INSERT INTO redemptions (id, promo_id, customer_id, order_id, created_at)
		 VALUES (:id, :promo_id, :customer_id, :order_id, now())`, red)
	return err
}

// AppendUnlessRedeemed writes the redemption unless the customer redeemed
// the promotion, and reports whether it wrote it.
func (r *Redemptions) AppendUnlessRedeemed(ctx context.Context, red promos.Redemption) (bool, error) {
	res, err := r.db.NamedExecContext(ctx,
		`INSERT INTO redemptions (id, promo_id, customer_id, order_id, created_at)
		 VALUES (:id, :promo_id, :customer_id, :order_id, now())
		 ON CONFLICT (promo_id, customer_id) DO NOTHING`, red)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
