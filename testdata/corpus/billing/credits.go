package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	pgx4 "github.com/jackc/pgx/v4"
)

// Credit is an amount taken off an invoice.
type Credit struct {
	InvoiceID   string
	Reason      string
	AmountCents int64
}

// ApplyCredit takes a goodwill credit off an invoice, once per reason.
// The support tool calls it again when an agent double-clicks.
//
// corpus: bug checkthenact
// modelled on: enumerate1/wager-api internal/repositories/common.go (pgx v4 repositories reading rows before writing)
func (s *Service) ApplyCredit(ctx context.Context, c Credit) error {
	var one int
	err := s.pool4.QueryRow(ctx,
		`SELECT 1 FROM credits WHERE invoice_id = $1 AND reason = $2`,
		c.InvoiceID, c.Reason).Scan(&one)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, pgx4.ErrNoRows):
		return fmt.Errorf("apply credit: %w", err)
	}
	if _, err := s.pool4.Exec(ctx,
		`INSERT INTO credits (invoice_id, reason, amount_cents) VALUES ($1, $2, $3)`,
		c.InvoiceID, c.Reason, c.AmountCents); err != nil {
		return fmt.Errorf("apply credit: %w", err)
	}
	return nil
}

// ApplyCreditLocked takes a goodwill credit off an invoice, once per
// reason, holding the invoice's row (which exists) locked from the check
// to the insert, so that a double-click's two requests run one at a time.
//
// corpus: ok checkthenact
// modelled on: DaniellaMagalhaesSiqueira/golang_coder sql/transacao/transacao.go (a pgx transaction with rollback on error)
func (s *Service) ApplyCreditLocked(ctx context.Context, c Credit) error {
	return s.pool4.BeginFunc(ctx, func(tx pgx4.Tx) error {
		var status string
		if err := tx.QueryRow(ctx,
			`SELECT status FROM invoices WHERE id = $1 FOR UPDATE`, c.InvoiceID).Scan(&status); err != nil {
			return fmt.Errorf("apply credit: lock invoice: %w", err)
		}
		if status != "open" {
			return fmt.Errorf("apply credit: invoice %s is %s", c.InvoiceID, status)
		}
		var n int
		if err := tx.QueryRow(ctx,
			`SELECT count(*) FROM credits WHERE invoice_id = $1 AND reason = $2`,
			c.InvoiceID, c.Reason).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO credits (invoice_id, reason, amount_cents) VALUES ($1, $2, $3)`,
			c.InvoiceID, c.Reason, c.AmountCents)
		return err
	})
}

// payoutRequestState answers a repeated payout request: nil once the
// first one sent the payout, ErrInProgress while it runs.
func (s *Service) payoutRequestState(ctx context.Context, key string) error {
	var status string
	if err := s.pool4.QueryRow(ctx, `SELECT status FROM payout_requests WHERE key = $1`, key).Scan(&status); err != nil {
		return fmt.Errorf("request payout: %w", err)
	}
	if status != "sent" {
		return ErrInProgress
	}
	return nil
}

// RequestPayout runs a payout request the partner portal sent under key:
// the key is claimed in payout_requests, the payout sent, the request
// marked sent. The portal only wants to know it went through.
//
// corpus: bug releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) RequestPayout(ctx context.Context, key string, p Payout) error {
	tag, err := s.pool4.Exec(ctx,
		`INSERT INTO payout_requests (key, payout_id, status) VALUES ($1, $2, 'in_progress')
		 ON CONFLICT (key) DO NOTHING`, key, p.ID)
	if err != nil {
		return fmt.Errorf("request payout: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return s.payoutRequestState(ctx, key)
	}
	if err := s.SendPayoutKeyed(ctx, p); err != nil {
		return fmt.Errorf("request payout %s: %w", p.ID, err)
	}
	if _, err := s.pool4.Exec(ctx,
		`UPDATE payout_requests SET status = 'sent' WHERE key = $1`, key); err != nil {
		slog.ErrorContext(ctx, "mark payout request sent", "key", key, "err", err)
	}
	return nil
}

// RequestPayoutGuarded runs a payout request the partner portal sent
// under key; when the payout fails, the deferred func gives the key back.
//
// corpus: ok releaseonerror
// modelled on: goesbams/idempotency-key-pattern README.md (claim the key, run the operation, record completion)
func (s *Service) RequestPayoutGuarded(ctx context.Context, key string, p Payout) (err error) {
	tag, err := s.pool4.Exec(ctx,
		`INSERT INTO payout_requests (key, payout_id, status) VALUES ($1, $2, 'in_progress')
		 ON CONFLICT (key) DO NOTHING`, key, p.ID)
	if err != nil {
		return fmt.Errorf("request payout: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return s.payoutRequestState(ctx, key)
	}
	defer func() {
		if err != nil {
			if _, derr := s.pool4.Exec(context.WithoutCancel(ctx),
				`DELETE FROM payout_requests WHERE key = $1`, key); derr != nil {
				slog.ErrorContext(ctx, "release payout request", "key", key, "err", derr)
			}
		}
	}()
	if err = s.SendPayoutKeyed(ctx, p); err != nil {
		return fmt.Errorf("request payout %s: %w", p.ID, err)
	}
	if _, uerr := s.pool4.Exec(ctx,
		`UPDATE payout_requests SET status = 'sent' WHERE key = $1`, key); uerr != nil {
		slog.ErrorContext(ctx, "mark payout request sent", "key", key, "err", uerr)
	}
	return nil
}
