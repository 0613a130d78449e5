package billing

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrRunLocked means another worker holds the account's payout run.
var ErrRunLocked = errors.New("billing: payout run in progress")

// lockAccountRun takes the session advisory lock of the account's payout
// run on a connection of its own and returns the function that unlocks it
// and gives the connection back.
func (s *Service) lockAccountRun(ctx context.Context, accountID string) (func(), error) {
	h := fnv.New64a()
	h.Write([]byte("payout-run:" + accountID))
	id := int64(h.Sum64())
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, id).Scan(&ok); err != nil {
		conn.Release()
		return nil, err
	}
	if !ok {
		conn.Release()
		return nil, ErrRunLocked
	}
	return func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, id); err != nil {
			slog.ErrorContext(ctx, "advisory unlock", "account", accountID, "err", err)
		}
		conn.Release()
	}, nil
}

// pendingPayouts lists the account's payouts still to send.
func (s *Service) pendingPayouts(ctx context.Context, accountID string) ([]Payout, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT id, account_id, period, amount_cents, status, idempotency_key FROM payouts
		 WHERE account_id = $1 AND status = 'pending' ORDER BY period`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Payout
	for rows.Next() {
		var p Payout
		if err := rows.Scan(&p.ID, &p.AccountID, &p.Period, &p.AmountCents, &p.Status, &p.IdempotencyKey); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// RunAccountPayouts sends the account's pending payouts while holding
// the account's run lock. A failed listing returns with the lock held.
//
// corpus: bug releaseonerror
// modelled on: PrairieLearn/PrairieLearn lib/named-locks.sql (a named lock taken before the work and released after it)
func (s *Service) RunAccountPayouts(ctx context.Context, accountID string) error {
	unlock, err := s.lockAccountRun(ctx, accountID)
	if err != nil {
		return err
	}
	payouts, err := s.pendingPayouts(ctx, accountID)
	if err != nil {
		return fmt.Errorf("run payouts %s: %w", accountID, err)
	}
	for _, p := range payouts {
		if err := s.SendPayoutKeyed(ctx, p); err != nil {
			unlock()
			return fmt.Errorf("run payouts %s: %w", accountID, err)
		}
	}
	unlock()
	return nil
}

// RunAccountPayoutsGuarded sends the account's pending payouts while
// holding the account's run lock, released by a defer registered as soon
// as the lock is taken.
//
// corpus: ok releaseonerror
// modelled on: PrairieLearn/PrairieLearn lib/named-locks.sql (a named lock taken before the work and released after it)
func (s *Service) RunAccountPayoutsGuarded(ctx context.Context, accountID string) error {
	unlock, err := s.lockAccountRun(ctx, accountID)
	if err != nil {
		return err
	}
	defer unlock()
	payouts, err := s.pendingPayouts(ctx, accountID)
	if err != nil {
		return fmt.Errorf("run payouts %s: %w", accountID, err)
	}
	for _, p := range payouts {
		if err := s.SendPayoutKeyed(ctx, p); err != nil {
			return fmt.Errorf("run payouts %s: %w", accountID, err)
		}
	}
	return nil
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// markPaymentSeen records a payment notification's ID and reports whether
// it had been recorded before (true: a redelivery).
func markPaymentSeen(ctx context.Context, db execer, notificationID string) (bool, error) {
	tag, err := db.Exec(ctx,
		`INSERT INTO payment_notifications (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, notificationID)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 0, nil
}

// paymentSeen reports whether a payment notification's ID is recorded.
func (s *Service) paymentSeen(ctx context.Context, notificationID string) (bool, error) {
	var seen bool
	err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM payment_notifications WHERE id = $1)`, notificationID).Scan(&seen)
	return seen, err
}

// recordPaymentSeen records a payment notification's ID.
func (s *Service) recordPaymentSeen(ctx context.Context, notificationID string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO payment_notifications (id) VALUES ($1)`, notificationID)
	return err
}

// creditInvoice books an incoming bank payment against an invoice.
func creditInvoice(ctx context.Context, db execer, invoiceID string, amount int64) error {
	_, err := db.Exec(ctx,
		`UPDATE invoices SET paid_cents = paid_cents + $2 WHERE id = $1`, invoiceID, amount)
	return err
}

// BankPayment is the bank partner's notice of an incoming payment.
type BankPayment struct {
	NotificationID string
	InvoiceID      string
	AmountCents    int64
}

// OnBankPayment books a bank payment the partner notified; the partner
// sends each notice at least once. In one transaction the notice is
// recorded and, when the seen flag says it is new, booked.
//
// corpus: ok checkthenact
// modelled on: stepanleas/event-driven-go exercise.md (deduplicating deliveries by a key carried in the event)
func (s *Service) OnBankPayment(ctx context.Context, n BankPayment) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		seen, err := markPaymentSeen(ctx, tx, n.NotificationID)
		if err != nil || seen {
			return err
		}
		return creditInvoice(ctx, tx, n.InvoiceID, n.AmountCents)
	})
	if err != nil {
		return fmt.Errorf("bank payment: %w", err)
	}
	return nil
}

// OnBankPaymentChecked books a bank payment the partner notified; it
// looks the notice up, books it, then records it.
//
// corpus: bug checkthenact
// modelled on: stepanleas/event-driven-go exercise.md (deduplicating deliveries by a key carried in the event)
func (s *Service) OnBankPaymentChecked(ctx context.Context, n BankPayment) error {
	seen, err := s.paymentSeen(ctx, n.NotificationID)
	if err != nil {
		return fmt.Errorf("bank payment: %w", err)
	}
	if seen {
		return nil
	}
	if err := creditInvoice(ctx, s.pool, n.InvoiceID, n.AmountCents); err != nil {
		return fmt.Errorf("bank payment: %w", err)
	}
	return s.recordPaymentSeen(ctx, n.NotificationID)
}
