// Package effects pairs reads and writes by what they do, not by their
// names: through a repository in another package, through interfaces, on
// tables and keys that say nothing of idempotency.
package effects

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"grants"
)

type Service struct {
	grants *grants.Repo
	cache  Cache
	pay    Payments
	pool   *pgxpool.Pool
	mu     sync.Mutex
}

// Cache is declared where it is used; under go vet its implementation is
// out of sight and the methods' shape stands in.
type Cache interface {
	Get(ctx context.Context, key string) (string, error)
	Set(ctx context.Context, key, value string) error
}

// Payments moves money.
type Payments interface {
	Charge(ctx context.Context, customer string, cents int) (string, error)
}

// The check and the act are a repository's, in another package.
func (s *Service) grantPromo(ctx context.Context, userID, promo string) error {
	granted, err := s.grants.AlreadyGranted(ctx, userID, promo)
	if err != nil {
		return err
	}
	if granted {
		return nil
	}
	return s.grants.RecordGrant(ctx, userID, promo, 500) // want `INSERT into grants \(by RecordGrant, at grants.go:23\) after the SELECT in AlreadyGranted at grants.go:17, called at effects.go:40 races`
}

// The same repository, claiming first: nothing to report.
func (s *Service) grantPromoClaimed(ctx context.Context, userID, promo string) error {
	ok, err := s.grants.ClaimGrant(ctx, userID, promo)
	if err != nil || !ok {
		return err
	}
	return nil
}

// A different promotion is a different record.
func (s *Service) grantOther(ctx context.Context, userID, promo, other string) error {
	granted, err := s.grants.AlreadyGranted(ctx, userID, promo)
	if err != nil || granted {
		return err
	}
	return s.grants.RecordGrant(ctx, other, other, 500)
}

// A GET through an interface gates a charge and a SET of the same key.
func (s *Service) chargeOnce(ctx context.Context, key, customer string) (string, error) {
	if prev, err := s.cache.Get(ctx, key); err == nil && prev != "" {
		return prev, nil
	}
	id, err := s.pay.Charge(ctx, customer, 1000)
	if err != nil {
		return "", err
	}
	return id, s.cache.Set(ctx, key, id) // want `Set of s.cache after the Get at effects.go:70 races with a concurrent retry: both find nothing and both run Charge first; claim in the check.s place`
}

// Cache-aside: the miss recomputes a value, which is harmless twice.
func (s *Service) profile(ctx context.Context, userID string) (string, error) {
	if v, err := s.cache.Get(ctx, userID); err == nil {
		return v, nil
	}
	v := render(userID)
	return v, s.cache.Set(ctx, userID, v)
}

func render(id string) string { return "<" + id + ">" }

// An error check after a read decides nothing about the record; the
// UPDATE overwrites with what the caller gave.
func (s *Service) rename(ctx context.Context, db *sql.DB, id, name string) error {
	var old string
	if err := db.QueryRowContext(ctx, "SELECT name FROM accounts WHERE id = $1", id).Scan(&old); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "UPDATE accounts SET name = $2 WHERE id = $1", id, name)
	return err
}

// The write is atomic, but the fulfilment runs between the check and it:
// two deliveries both fulfil.
func (s *Service) fulfil(ctx context.Context, db *sql.DB, orderID string) error {
	var seen bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM shipments WHERE order_id = $1)", orderID).Scan(&seen); err != nil {
		return err
	}
	if seen {
		return nil
	}
	if _, err := http.Post("https://warehouse.example/ship", "application/json", bytes.NewBufferString(orderID)); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "INSERT INTO shipments (order_id) VALUES ($1) ON CONFLICT DO NOTHING", orderID) // want `http.Post runs after the SELECT of shipments at effects.go:106 found nothing and before the INSERT of shipments claims it`
	return err
}

// An advisory lock held across the check and the act makes them one step.
func (s *Service) redeemLocked(ctx context.Context, db *sql.Tx, code string) error {
	if _, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", code); err != nil {
		return err
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM redemptions WHERE code = $1", code).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO redemptions (code) VALUES ($1)", code)
	return err
}

// So does a mutex, in one process.
func (s *Service) reserveLocked(ctx context.Context, db *sql.DB, seat string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM reservations WHERE seat = $1", seat).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO reservations (seat) VALUES ($1)", seat)
	return err
}

// Without the lock, the reservation races.
func (s *Service) reserve(ctx context.Context, db *sql.DB, seat string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM reservations WHERE seat = $1", seat).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO reservations (seat) VALUES ($1)", seat) // want `INSERT into reservations after the SELECT at effects.go:153 races`
	return err
}

// A duplicate-key error handled after the INSERT: the constraint decides.
func (s *Service) redeemUnique(ctx context.Context, db *sql.DB, code string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM redemptions WHERE code = $1", code).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO redemptions (code) VALUES ($1)", code)
	if isUniqueViolation(err) {
		return nil
	}
	return err
}

func isUniqueViolation(err error) bool { return err != nil }

// A consumer loop: `continue` goes round to the next message.
func (s *Service) drain(ctx context.Context, ids []string) error {
	for _, id := range ids {
		var n int
		if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM payouts WHERE transfer_id = $1", id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := s.pool.Exec(ctx, "INSERT INTO payouts (transfer_id) VALUES ($1)", id); err != nil { // want `INSERT into payouts after the SELECT at effects.go:185 races`
			return err
		}
	}
	return nil
}

// A SERIALIZABLE transaction fails one of two concurrent retries.
func (s *Service) redeemSerializable(ctx context.Context, db *sql.DB, code string) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM redemptions WHERE code = $1", code).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO redemptions (code) VALUES ($1)", code); err != nil {
		return err
	}
	return tx.Commit()
}

// An append-only ledger reads the last entry and appends the next: the
// read's error check decides nothing about whether the entry exists.
func (s *Service) appendEntry(ctx context.Context, account string, cents int) error {
	var balance int
	if err := s.pool.QueryRow(ctx, "SELECT balance FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT 1", account).Scan(&balance); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, "INSERT INTO ledger_entries (account_id, balance) VALUES ($1, $2)", account, balance+cents)
	return err
}
