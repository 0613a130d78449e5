package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// BundleItem is one SKU of a bundle and how long it lasts.
type BundleItem struct {
	SKU  string
	Days int
}

// GrantWelcomeBundle gives a new user every item of the welcome bundle
// once; the signup flow calls it after the account is created, and again
// when the user confirms the e-mail address.
//
// corpus: bug checkthenact
// modelled on: sibuh/Room-Reservation internal/storage/queries/reservations.sql (GetRoomReservations read, then CreateReservation)
func (s *Store) GrantWelcomeBundle(ctx context.Context, userID string, items []BundleItem) error {
	var has bool
	err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM grants WHERE user_id = $1 AND source = 'welcome')`, userID).Scan(&has)
	if err != nil {
		return fmt.Errorf("check welcome grants: %w", err)
	}
	if has {
		return nil
	}
	now := time.Now()
	for _, it := range items {
		_, err := s.pool.Exec(ctx,
			`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
			 VALUES ($1, $2, $3, 'welcome', $4, $5, 'active')`,
			uuid.NewString(), userID, it.SKU, now, now.AddDate(0, 0, it.Days))
		if err != nil {
			return fmt.Errorf("grant %s: %w", it.SKU, err)
		}
	}
	return nil
}

// AddSeatGrant gives a user of an organisation a seat grant when the
// organisation has seats left. The count and the insert share one
// transaction.
//
// corpus: bug checkthenact
// modelled on: nicolasparada/go-db README.md (repository methods run in one pgx/v5 transaction)
func (s *Store) AddSeatGrant(ctx context.Context, orgID, userID, sku string, seats int) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)

	var used int
	if err := tx.QueryRow(ctx,
		`SELECT count(*) FROM grants WHERE source = $1 AND sku = $2 AND state = 'active'`,
		"org:"+orgID, sku).Scan(&used); err != nil {
		return err
	}
	if used >= seats {
		return fmt.Errorf("organisation %s has no %s seats left", orgID, sku)
	}
	if _, err := tx.Exec(ctx,
		`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
		 VALUES ($1, $2, $3, $4, now(), 'infinity', 'active')`,
		uuid.NewString(), userID, sku, "org:"+orgID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// AddSeatGrantLocked gives a user of an organisation a seat grant when
// the organisation has seats left, holding the organisation's row while it
// counts.
//
// corpus: ok checkthenact
// modelled on: nicolasparada/go-db README.md (repository methods in one pgx/v5 transaction) with SELECT ... FOR UPDATE on the parent row
func (s *Store) AddSeatGrantLocked(ctx context.Context, orgID, userID, sku string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)

	var seats int
	if err := tx.QueryRow(ctx,
		`SELECT seats FROM org_subscriptions WHERE org_id = $1 AND sku = $2 FOR UPDATE`,
		orgID, sku).Scan(&seats); err != nil {
		return err
	}
	var used int
	if err := tx.QueryRow(ctx,
		`SELECT count(*) FROM grants WHERE source = $1 AND sku = $2 AND state = 'active'`,
		"org:"+orgID, sku).Scan(&used); err != nil {
		return err
	}
	if used >= seats {
		return fmt.Errorf("organisation %s has no %s seats left", orgID, sku)
	}
	if _, err := tx.Exec(ctx,
		`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
		 VALUES ($1, $2, $3, $4, now(), 'infinity', 'active')`,
		uuid.NewString(), userID, sku, "org:"+orgID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ExtendOrGrant extends the user's active grant of sku by days, or grants
// sku for days when the user has none. Concurrent calls for one user and
// SKU queue on a transaction-scoped advisory lock.
//
// corpus: ok checkthenact
// modelled on: coder/coder coderd/database/queries/lock.sql (AcquireLock: pg_advisory_xact_lock inside a transaction)
func (s *Store) ExtendOrGrant(ctx context.Context, userID, sku string, days int) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx,
			`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, userID+"/"+sku); err != nil {
			return err
		}
		q := s.q.WithTx(tx)
		g, err := q.GetActiveGrant(ctx, userID, sku)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			now := time.Now()
			_, err = tx.Exec(ctx,
				`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
				 VALUES ($1, $2, $3, 'extension', $4, $5, 'active')`,
				uuid.NewString(), userID, sku, now, now.AddDate(0, 0, days))
			return err
		case err != nil:
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE grants SET ends_at = ends_at + make_interval(days => $2) WHERE id = $1`, g.ID, days)
		return err
	})
}

// ImportGrant copies one grant from the legacy billing system. The import
// is re-run until it completes; rows it copied before are kept.
//
// corpus: ok checkthenact
// modelled on: hizu77/avito-autumn-2025 internal/storage/common/constraint/unique.go (errors.As to *pgconn.PgError, code 23505)
func (s *Store) ImportGrant(ctx context.Context, legacyID, userID, sku string, starts, ends time.Time) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
		 VALUES ($1, $2, $3, 'legacy', $4, $5, 'active')`,
		"legacy-"+legacyID, userID, sku, starts, ends)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return nil
	}
	return err
}

// RenewGrants renews every grant in ids whose renewal for period was not
// booked yet. The batch inserts with ON CONFLICT DO NOTHING and reads the
// renewals back in the same round trip.
//
// corpus: ok checkthenact
// modelled on: jackc/pgx batch_test.go (SendBatch with queued INSERT and SELECT, results read in order)
func (s *Store) RenewGrants(ctx context.Context, period string, ids []string) (map[string]string, error) {
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue(`INSERT INTO grant_renewals (grant_id, period, renewal_id) VALUES ($1, $2, $3)
		         ON CONFLICT (grant_id, period) DO NOTHING`, id, period, uuid.NewString())
	}
	b.Queue(`SELECT grant_id, renewal_id FROM grant_renewals WHERE period = $1 AND grant_id = ANY($2)`, period, ids)

	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	for range ids {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string, len(ids))
	for rows.Next() {
		var gid, rid string
		if err := rows.Scan(&gid, &rid); err != nil {
			return nil, err
		}
		out[gid] = rid
	}
	return out, rows.Err()
}

// ReconcileUser rewrites the user's grants from the billing system's view.
// Reconciliations of one user must not overlap, so it holds a
// session-level advisory lock on a pooled connection.
//
// corpus: bug releaseonerror
// modelled on: cristalhq/dbump dbump_pgx/pgx.go (pg_advisory_lock on a connection, pg_advisory_unlock after the work)
func (s *Store) ReconcileUser(ctx context.Context, userID string, want []BundleItem) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()

	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, "reconcile/"+userID); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx,
		`UPDATE grants SET state = 'revoked' WHERE user_id = $1 AND source = 'billing'`, userID); err != nil {
		return fmt.Errorf("revoke billing grants: %w", err)
	}
	for _, it := range want {
		if _, err := conn.Exec(ctx,
			`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
			 VALUES ($1, $2, $3, 'billing', now(), now() + make_interval(days => $4), 'active')`,
			uuid.NewString(), userID, it.SKU, it.Days); err != nil {
			return fmt.Errorf("grant %s: %w", it.SKU, err)
		}
	}
	_, err = conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, "reconcile/"+userID)
	return err
}

// ReconcileUserUnlocking rewrites the user's grants from the billing
// system's view under a session-level advisory lock, which it gives back
// however it returns.
//
// corpus: ok releaseonerror
// modelled on: allisson/go-pglock README.md (session-level advisory lock on a dedicated connection, unlocked when done)
func (s *Store) ReconcileUserUnlocking(ctx context.Context, userID string, want []BundleItem) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()

	lockKey := "reconcile/" + userID
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, lockKey).Scan(&got); err != nil {
		return err
	}
	if !got {
		return fmt.Errorf("reconcile %s: already running", userID)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, lockKey)
	}()

	if _, err := conn.Exec(ctx,
		`UPDATE grants SET state = 'revoked' WHERE user_id = $1 AND source = 'billing'`, userID); err != nil {
		return fmt.Errorf("revoke billing grants: %w", err)
	}
	for _, it := range want {
		if _, err := conn.Exec(ctx,
			`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
			 VALUES ($1, $2, $3, 'billing', now(), now() + make_interval(days => $4), 'active')`,
			uuid.NewString(), userID, it.SKU, it.Days); err != nil {
			return fmt.Errorf("grant %s: %w", it.SKU, err)
		}
	}
	return nil
}

// StartTrialLocked starts the user's trial of sku unless the user has
// one; the lookup takes row locks so that two signups of one user wait
// for each other.
//
// corpus: bug checkthenact
// modelled on: nicolasparada/go-db README.md (repository methods in one pgx/v5 transaction) with SELECT ... FOR UPDATE on the rows being looked for
func (s *Store) StartTrialLocked(ctx context.Context, userID, sku string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)

	var id string
	err = tx.QueryRow(ctx,
		`SELECT id FROM grants WHERE user_id = $1 AND sku = $2 AND source = 'trial' FOR UPDATE`,
		userID, sku).Scan(&id)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	now := time.Now()
	if _, err := tx.Exec(ctx,
		`INSERT INTO grants (id, user_id, sku, source, starts_at, ends_at, state)
		 VALUES ($1, $2, $3, 'trial', $4, $5, 'active')`,
		uuid.NewString(), userID, sku, now, now.AddDate(0, 0, 14)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
