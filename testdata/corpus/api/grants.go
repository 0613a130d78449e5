package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"example.com/corpus/db"
	"example.com/corpus/store"
)

// grantRequest is the body of the grant endpoints.
type grantRequest struct {
	Feature string `json:"feature"`
	Source  string `json:"source"`
}

// GrantTrial starts the user's free trial of a feature, once.
//
// corpus: bug checkthenact
// modelled on: tkoleo84119/nail-salon-backend internal/repository/sqlc/customer_coupon.sql (CheckCustomerCouponExists: SELECT EXISTS before the create)
func (s *Server) GrantTrial(w http.ResponseWriter, r *http.Request) {
	var req grantRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var exists bool
	if err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`,
		uid, req.Feature).Scan(&exists); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if exists {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, 'trial')`,
		uid, req.Feature); err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"status": "granted"})
}

// GrantTrialOnce starts the user's free trial of a feature, once; the
// unique index on (user_id, feature) decides which request grants it.
//
// corpus: ok checkthenact
// modelled on: quinta-nails/companies internal/db/query.sql (AddReserves: INSERT ... ON CONFLICT DO NOTHING)
func (s *Server) GrantTrialOnce(w http.ResponseWriter, r *http.Request) {
	var req grantRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	tag, err := s.pool.Exec(r.Context(),
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, 'trial')
		 ON CONFLICT (user_id, feature) DO NOTHING`, userID(r), req.Feature)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	if tag.RowsAffected() == 0 {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"status": "granted"})
}

// GrantAddon gives the user a purchased add-on; the store's purchase
// webhook calls it and redelivers on timeouts.
//
// corpus: bug checkthenact
// modelled on: Fayob/merrypay service/coupon.go (raw SQL strings run through database/sql)
func (s *Server) GrantAddon(w http.ResponseWriter, r *http.Request) {
	var req grantRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var n int
	if err := s.sqlDB.QueryRowContext(ctx,
		`SELECT count(*) FROM grants WHERE user_id = $1 AND feature = $2`, uid, req.Feature).Scan(&n); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n == 0 {
		if _, err := s.sqlDB.ExecContext(ctx,
			`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)`,
			uid, req.Feature, req.Source); err != nil {
			writeError(w, http.StatusInternalServerError, "grant failed")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// GrantAddonUnique gives the user a purchased add-on. The lookup only
// saves a write in the common case; the unique index settles a race, and
// its duplicate error means the add-on is granted.
//
// corpus: ok checkthenact
// modelled on: Sazzo/sazztv backend/util/is-unique-constraint-error.go (a unique violation recognised by its SQLSTATE)
func (s *Server) GrantAddonUnique(w http.ResponseWriter, r *http.Request) {
	var req grantRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var n int
	if err := s.sqlDB.QueryRowContext(ctx,
		`SELECT count(*) FROM grants WHERE user_id = $1 AND feature = $2`, uid, req.Feature).Scan(&n); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n == 0 {
		_, err := s.sqlDB.ExecContext(ctx,
			`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)`,
			uid, req.Feature, req.Source)
		var pqErr *pq.Error
		if err != nil && !(errors.As(err, &pqErr) && pqErr.Code == "23505") {
			writeError(w, http.StatusInternalServerError, "grant failed")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// GrantReferralBonus gives the referrer the referral bonus feature.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (a repository behind an interface the service declares)
func (s *Server) GrantReferralBonus(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	has, err := s.grants.HasGrant(ctx, uid, "referral_bonus")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if has {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	if err := s.grants.InsertGrant(ctx, store.Grant{UserID: uid, Feature: "referral_bonus", Source: "referral"}); err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"status": "granted"})
}

// GrantReferralBonusOnce gives the referrer the referral bonus feature
// through the repository's conditional insert.
//
// corpus: ok checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (a repository behind an interface the service declares)
func (s *Server) GrantReferralBonusOnce(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	inserted, err := s.grants.InsertGrantIfAbsent(ctx, store.Grant{UserID: uid, Feature: "referral_bonus", Source: "referral"})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	if !inserted {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"status": "granted"})
}

// GrantBeta enrols the user in the beta of a feature through the sqlc
// queries.
//
// corpus: bug checkthenact
// modelled on: tkoleo84119/nail-salon-backend internal/repository/sqlc/customer_coupon.sql (CheckCustomerCouponExists: SELECT EXISTS before the create)
func (s *Server) GrantBeta(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	feature := r.PathValue("feature")
	exists, err := s.q.GrantExists(ctx, db.GrantExistsParams{UserID: uid, Feature: feature})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if !exists {
		if err := s.q.InsertGrant(ctx, db.InsertGrantParams{UserID: uid, Feature: feature, Source: "beta"}); err != nil {
			writeError(w, http.StatusInternalServerError, "grant failed")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// GrantBetaOnce enrols the user in the beta of a feature through the
// sqlc conditional insert.
//
// corpus: ok checkthenact
// modelled on: quinta-nails/companies internal/db/query.sql (AddReserves: INSERT ... ON CONFLICT DO NOTHING)
func (s *Server) GrantBetaOnce(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	feature := r.PathValue("feature")
	n, err := s.q.InsertGrantIfAbsent(ctx, db.InsertGrantIfAbsentParams{UserID: uid, Feature: feature, Source: "beta"})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	code := http.StatusCreated
	if n == 0 {
		code = http.StatusOK
	}
	writeJSON(w, code, map[string]bool{"granted": n == 1})
}

// alreadyGranted reports whether the user holds the feature.
func (s *Server) alreadyGranted(ctx context.Context, uid, feature string) (bool, error) {
	var ok bool
	err := s.sqlDB.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`, uid, feature).Scan(&ok)
	return ok, err
}

// recordGrant writes a grant row.
func (s *Server) recordGrant(ctx context.Context, uid, feature, source string) error {
	_, err := s.sqlDB.ExecContext(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, $3)`, uid, feature, source)
	return err
}

// GrantBundle gives the user every feature of a bundle they bought.
//
// corpus: bug checkthenact
// modelled on: go-zoox/gormx find_one_or_create.go (FindOneOrCreate: a lookup helper, then a create helper)
func (s *Server) GrantBundle(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	var req struct {
		Features []string `json:"features"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	for _, f := range req.Features {
		has, err := s.alreadyGranted(ctx, uid, f)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "lookup failed")
			return
		}
		if has {
			continue
		}
		if err := s.recordGrant(ctx, uid, f, "bundle"); err != nil {
			writeError(w, http.StatusInternalServerError, "grant failed")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// ShowGrant shows the user's grant of a feature and notes when the user
// last looked at their grants.
//
// corpus: ok checkthenact
// modelled on: timdin/vfs model/user.go (a lookup by name before a write)
func (s *Server) ShowGrant(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	var g store.Grant
	err := s.pool.QueryRow(ctx,
		`SELECT id, user_id, feature, source, created_at FROM grants WHERE user_id = $1 AND feature = $2`,
		uid, r.PathValue("feature")).Scan(&g.ID, &g.UserID, &g.Feature, &g.Source, &g.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		writeError(w, http.StatusNotFound, "no such grant")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if _, err := s.pool.Exec(ctx, `UPDATE users SET grants_seen_at = now() WHERE id = $1`, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "update failed")
		return
	}
	writeJSON(w, http.StatusOK, g)
}

// GrantSeat gives the user a seat of a team plan in a transaction, locking
// the grant row first. The row does not exist yet the first time, and
// FOR UPDATE locks nothing then.
//
// corpus: bug checkthenact
// modelled on: enumerate1/wager-api internal/repositories/common.go (a FOR UPDATE suffix added to the lookup)
func (s *Server) GrantSeat(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "begin failed")
		return
	}
	defer tx.Rollback(ctx)
	var id string
	err = tx.QueryRow(ctx,
		`SELECT id FROM grants WHERE user_id = $1 AND feature = 'team_seat' FOR UPDATE`, uid).Scan(&id)
	if err == nil {
		writeJSON(w, http.StatusOK, map[string]string{"grant_id": id})
		return
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if err := tx.QueryRow(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, 'team_seat', 'team') RETURNING id`,
		uid).Scan(&id); err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	if err := tx.Commit(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "commit failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"grant_id": id})
}

// GrantSeatLocked gives the user a seat of a team plan in a transaction
// that first locks the user's account row, which exists, so that a request
// and its retry check and insert one after the other.
//
// corpus: ok checkthenact
// modelled on: chrimora/go-ddd internal/common/dbtx.go (sqlc's DBTX with Begin, so queries run in the caller's transaction)
func (s *Server) GrantSeatLocked(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if _, err := q.LockAccount(ctx, uid); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		exists, err := q.GrantExists(ctx, db.GrantExistsParams{UserID: uid, Feature: "team_seat"})
		if err != nil || exists {
			return err
		}
		return q.InsertGrant(ctx, db.InsertGrantParams{UserID: uid, Feature: "team_seat", Source: "team"})
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// GrantPromo gives the user a promotional feature under a transaction-
// scoped advisory lock on the (user, feature) pair, held from the check to
// the insert.
//
// corpus: ok checkthenact
// modelled on: PrairieLearn/PrairieLearn lib/named-locks.sql (a named lock serialising the work on one name)
func (s *Server) GrantPromo(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	feature := r.PathValue("feature")
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "grant:"+uid+":"+feature); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx,
			`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`, uid, feature).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, 'promo')`, uid, feature)
		return err
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// GrantGift gives the user a feature a friend gifted them. A gift is
// granted once: the insert returns the new row's ID, and the unique
// index's violation means an earlier request granted it.
//
// corpus: ok checkthenact
// modelled on: hizu77/avito-autumn-2025 internal/storage/common/constraint/unique.go (errors.As to *pgconn.PgError, code 23505)
func (s *Server) GrantGift(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	feature := r.PathValue("feature")
	var has bool
	if err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND feature = $2)`, uid, feature).Scan(&has); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if has {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	var id string
	err := s.pool.QueryRow(ctx,
		`INSERT INTO grants (user_id, feature, source) VALUES ($1, $2, 'gift') RETURNING id`, uid, feature).Scan(&id)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already_granted"})
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "grant failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"grant_id": id})
}
