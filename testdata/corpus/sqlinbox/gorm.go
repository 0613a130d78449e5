package sqlinbox

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Refund is a refund's row, keyed by the provider's refund ID.
type Refund struct {
	ID     string `gorm:"primaryKey"`
	Status string
}

// Refunds issues refunds a webhook asks for.
type Refunds struct {
	db     *gorm.DB
	ledger Ledger
}

// Issue skips a refund already issued, claims its row with an insert
// that does nothing on conflict, and posts the entry only when the insert
// took the row; then it marks the row issued.
//
// corpus: ok checkthenact
// modelled on: Chengxufeng1994/event-driven-arch-in-go internal/outboxstore/gorm/inbox_store.go (a gorm inbox row saved before the handler), with a status read first and clause.OnConflict{DoNothing: true}
func (r *Refunds) Issue(ctx context.Context, refundID string, payload []byte) error {
	var row Refund
	if err := r.db.WithContext(ctx).First(&row, "id = ?", refundID).Error; err == nil && row.Status == "issued" {
		return nil
	}
	res := r.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&Refund{ID: refundID, Status: "issuing"})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return nil
	}
	if err := r.ledger.PostEntry(ctx, refundID, payload); err != nil {
		r.db.WithContext(context.WithoutCancel(ctx)).Delete(&Refund{ID: refundID})
		return err
	}
	return r.db.WithContext(ctx).Model(&Refund{ID: refundID}).Update("status", "issued").Error
}
