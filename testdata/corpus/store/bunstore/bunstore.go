// Package bunstore implements the store repositories on bun.
package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"example.com/corpus/store"
)

// reservationRow maps store.Reservation onto the reservations table.
type reservationRow struct {
	bun.BaseModel `bun:"table:reservations"`
	store.Reservation
}

// ReservationStore keeps the reservations table.
type ReservationStore struct {
	db bun.IDB
}

// NewReservationStore returns a ReservationStore on db.
func NewReservationStore(db bun.IDB) *ReservationStore { return &ReservationStore{db: db} }

var _ store.ReservationRepository = (*ReservationStore)(nil)

// GetReservation returns the reservation holding slotID.
func (s *ReservationStore) GetReservation(ctx context.Context, slotID string) (*store.Reservation, error) {
	var row reservationRow
	err := s.db.NewSelect().Model(&row).Where("slot_id = ?", slotID).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get reservation: %w", err)
	}
	return &row.Reservation, nil
}

// CreateReservation writes one reservation row.
func (s *ReservationStore) CreateReservation(ctx context.Context, r *store.Reservation) error {
	row := reservationRow{Reservation: *r}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("create reservation: %w", err)
	}
	return nil
}

// UpsertReservation writes the reservation over the slot's current one.
func (s *ReservationStore) UpsertReservation(ctx context.Context, r *store.Reservation) error {
	row := reservationRow{Reservation: *r}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (slot_id) DO UPDATE").
		Set("user_id = EXCLUDED.user_id").
		Set("status = EXCLUDED.status").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("upsert reservation: %w", err)
	}
	return nil
}
