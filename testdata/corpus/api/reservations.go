package api

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"example.com/corpus/store"
)

// reservation maps store.Reservation onto the reservations table.
type reservation struct {
	bun.BaseModel `bun:"table:reservations"`
	store.Reservation
}

// loyaltyPoints is one line of the loyalty ledger.
type loyaltyPoints struct {
	bun.BaseModel `bun:"table:loyalty_points"`
	ID            int64  `bun:"id,pk,autoincrement"`
	UserID        string `bun:"user_id"`
	Points        int    `bun:"points"`
	Reason        string `bun:"reason"`
}

// HoldSlot holds a bookable slot for the user unless someone holds it.
//
// corpus: bug checkthenact
// modelled on: domgoodwin/bookscan database/user.go (UserExists: NewSelect().Model(...).Where(...).Exists)
func (s *Server) HoldSlot(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	slot := r.PathValue("slot")
	taken, err := s.bdb.NewSelect().Model((*reservation)(nil)).Where("slot_id = ?", slot).Exists(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if taken {
		writeError(w, http.StatusConflict, "slot taken")
		return
	}
	res := &reservation{Reservation: store.Reservation{
		ID: uuid.NewString(), SlotID: slot, UserID: uid, Status: "held", Version: 1, CreatedAt: time.Now(),
	}}
	if _, err := s.bdb.NewInsert().Model(res).Exec(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "hold failed")
		return
	}
	writeJSON(w, http.StatusCreated, res.Reservation)
}

// HoldSlotOnce holds a bookable slot for the user; the insert does
// nothing when the unique index on slot_id has the slot.
//
// corpus: ok checkthenact
// modelled on: tyrm/mcp-dbmem internal/db/bun/common.go (create: NewInsert().Model(...).Exec)
func (s *Server) HoldSlotOnce(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	slot := r.PathValue("slot")
	res := &reservation{Reservation: store.Reservation{
		ID: uuid.NewString(), SlotID: slot, UserID: uid, Status: "held", Version: 1, CreatedAt: time.Now(),
	}}
	out, err := s.bdb.NewInsert().Model(res).On("CONFLICT (slot_id) DO NOTHING").Exec(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "hold failed")
		return
	}
	if n, err := out.RowsAffected(); err != nil || n == 0 {
		writeError(w, http.StatusConflict, "slot taken")
		return
	}
	writeJSON(w, http.StatusCreated, res.Reservation)
}

// BookSlot books a slot for the user in a bun transaction: it scans the
// slot's reservation and inserts one when there is none.
//
// corpus: bug checkthenact
// modelled on: domgoodwin/bookscan database/user.go (GetUserByID: NewSelect().Model(...).Where(...).Scan)
func (s *Server) BookSlot(w http.ResponseWriter, r *http.Request) {
	uid := userID(r)
	slot := r.PathValue("slot")
	var booked store.Reservation
	err := s.bdb.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		var cur reservation
		err := tx.NewSelect().Model(&cur).Where("slot_id = ?", slot).Limit(1).Scan(ctx)
		if err == nil {
			booked = cur.Reservation
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res := &reservation{Reservation: store.Reservation{
			ID: uuid.NewString(), SlotID: slot, UserID: uid, Status: "booked", Version: 1, CreatedAt: time.Now(),
		}}
		if _, err := tx.NewInsert().Model(res).Exec(ctx); err != nil {
			return err
		}
		booked = res.Reservation
		return nil
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "book failed")
		return
	}
	writeJSON(w, http.StatusOK, booked)
}

// ConfirmReservation confirms a held reservation and awards its loyalty
// points. The update names the version it read, and only the request whose
// update matched awards the points.
//
// corpus: ok checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (UPDATE ... SET status = 'completed' in a transaction)
func (s *Server) ConfirmReservation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.bdb.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		var cur reservation
		if err := tx.NewSelect().Model(&cur).Where("id = ?", id).Scan(ctx); err != nil {
			return err
		}
		if cur.Status != "held" {
			return nil
		}
		out, err := tx.NewUpdate().Model((*reservation)(nil)).
			Set("status = ?", "confirmed").
			Set("version = version + 1").
			Where("id = ?", id).
			Where("version = ?", cur.Version).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := out.RowsAffected(); err != nil || n != 1 {
			return err
		}
		_, err = tx.NewInsert().Model(&loyaltyPoints{UserID: cur.UserID, Points: 50, Reason: "reservation:" + id}).Exec(ctx)
		return err
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "confirm failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ConfirmReservationBlind confirms a held reservation and awards its
// loyalty points; the update does not say what status it expects.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (UPDATE ... SET status = 'completed' in a transaction)
func (s *Server) ConfirmReservationBlind(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.bdb.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		var cur reservation
		if err := tx.NewSelect().Model(&cur).Where("id = ?", id).Scan(ctx); err != nil {
			return err
		}
		if cur.Status != "held" {
			return nil
		}
		if _, err := tx.NewUpdate().Model((*reservation)(nil)).
			Set("status = ?", "confirmed").
			Where("id = ?", id).
			Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&loyaltyPoints{UserID: cur.UserID, Points: 50, Reason: "reservation:" + id}).Exec(ctx)
		return err
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "confirm failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ReserveTable reserves a restaurant table's slot through the
// reservation repository.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (a repository behind an interface the service declares)
func (s *Server) ReserveTable(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	slot := r.PathValue("slot")
	cur, err := s.reservations.GetReservation(ctx, slot)
	if err == nil {
		if cur.UserID == uid {
			writeJSON(w, http.StatusOK, cur)
			return
		}
		writeError(w, http.StatusConflict, "slot taken")
		return
	}
	if !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	res := &store.Reservation{ID: uuid.NewString(), SlotID: slot, UserID: uid, Status: "held", Version: 1, CreatedAt: time.Now()}
	if err := s.reservations.CreateReservation(ctx, res); err != nil {
		writeError(w, http.StatusInternalServerError, "reserve failed")
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

// ReassignTable hands a slot to another user, as the host stand does; it
// reads the current holder for the answer and upserts the new one.
//
// corpus: ok checkthenact
// modelled on: bigzhu/gobz modelsbz/update_or_create.go (update or create; here one upsert instead of two statements)
func (s *Server) ReassignTable(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	slot := r.PathValue("slot")
	var req struct {
		UserID string `json:"user_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	previous := ""
	if cur, err := s.reservations.GetReservation(ctx, slot); err == nil {
		previous = cur.UserID
	} else if !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	res := &store.Reservation{ID: uuid.NewString(), SlotID: slot, UserID: req.UserID, Status: "held", Version: 1, CreatedAt: time.Now()}
	if err := s.reservations.UpsertReservation(ctx, res); err != nil {
		writeError(w, http.StatusInternalServerError, "reassign failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"slot": slot, "previous": previous, "holder": req.UserID})
}

// waitlistEntry is a user waiting for a slot to free up.
type waitlistEntry struct {
	bun.BaseModel `bun:"table:waitlist"`
	SlotID        string    `bun:"slot_id,pk"`
	UserID        string    `bun:"user_id,pk"`
	JoinedAt      time.Time `bun:"joined_at"`
}

// JoinWaitlist puts the user on a slot's waitlist, reporting whether
// they were on it already; the insert upserts on the primary key.
//
// corpus: ok checkthenact
// modelled on: tyrm/mcp-dbmem internal/db/bun/common.go (create: NewInsert().Model(...).Exec)
func (s *Server) JoinWaitlist(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	slot := r.PathValue("slot")
	already, err := s.bdb.NewSelect().Model((*waitlistEntry)(nil)).
		Where("slot_id = ? AND user_id = ?", slot, uid).Exists(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	entry := &waitlistEntry{SlotID: slot, UserID: uid, JoinedAt: time.Now()}
	if _, err := s.bdb.NewInsert().Model(entry).
		On("CONFLICT (slot_id, user_id) DO UPDATE").
		Set("joined_at = LEAST(waitlist.joined_at, EXCLUDED.joined_at)").
		Exec(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "join failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"already_waiting": already})
}
