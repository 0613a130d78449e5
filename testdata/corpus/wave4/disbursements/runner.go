package disbursements

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lib/pq"
)

// claimPayout moves a queued payout to processing; false means another
// runner has it or it is not queued.
func (s *Service) claimPayout(ctx context.Context, id string) (Payout, bool, error) {
	var p Payout
	err := s.db.QueryRowContext(ctx,
		`UPDATE payouts SET status = 'processing', claimed_at = now()
		  WHERE id = $1 AND status = 'queued'
		  RETURNING id, seller_id, account_id, bank_account, amount_cents, currency, period`, id).
		Scan(&p.ID, &p.SellerID, &p.AccountID, &p.BankAccount, &p.AmountCents, &p.Currency, &p.Period)
	if errors.Is(err, sql.ErrNoRows) {
		return Payout{}, false, nil
	}
	return p, err == nil, err
}

// RunQueuedPayout pays one queued payout; the runner picks queued ids off
// the payouts table every minute.
//
// corpus: bug releaseonerror
// modelled on: Matltin/Bilitioo-Backend db/queries/reservation.sql (status moved with UPDATE ... WHERE status = ...)
func (s *Service) RunQueuedPayout(ctx context.Context, id string) error {
	p, ok, err := s.claimPayout(ctx, id)
	if err != nil || !ok {
		return err
	}
	po, err := s.PayOutKeyed(ctx, p)
	if err != nil {
		return fmt.Errorf("payout %s: %w", p.ID, err)
	}
	_, err = s.db.ExecContext(ctx,
		`UPDATE payouts SET status = 'paid', stripe_payout_id = $2 WHERE id = $1`, p.ID, po.ID)
	return err
}

// RunQueuedPayoutRequeueing pays one queued payout; the runner picks
// queued ids off the payouts table every minute. A payout that fails goes
// back to the queue.
//
// corpus: ok releaseonerror
// modelled on: Matltin/Bilitioo-Backend db/queries/reservation.sql (CancelReservation puts the status back)
func (s *Service) RunQueuedPayoutRequeueing(ctx context.Context, id string) error {
	p, ok, err := s.claimPayout(ctx, id)
	if err != nil || !ok {
		return err
	}
	po, err := s.PayOutKeyed(ctx, p)
	if err != nil {
		if _, uerr := s.db.ExecContext(context.WithoutCancel(ctx),
			`UPDATE payouts SET status = 'queued', attempts = attempts + 1, last_error = $2 WHERE id = $1`,
			p.ID, err.Error()); uerr != nil {
			s.log.ErrorContext(ctx, "requeue payout", "payout", p.ID, "err", uerr)
		}
		return fmt.Errorf("payout %s: %w", p.ID, err)
	}
	_, err = s.db.ExecContext(ctx,
		`UPDATE payouts SET status = 'paid', stripe_payout_id = $2 WHERE id = $1`, p.ID, po.ID)
	return err
}

// QueuePayout books the seller's payout for the period; the month-end
// job books every seller and is re-run when it dies half way.
//
// corpus: ok checkthenact
// modelled on: lib/pq error.go (pq.Error and its Code, 23505 unique_violation)
func (s *Service) QueuePayout(ctx context.Context, p Payout) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO payouts (id, seller_id, account_id, bank_account, amount_cents, currency, period, status)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued')`,
		p.ID, p.SellerID, p.AccountID, p.BankAccount, p.AmountCents, p.Currency, p.Period)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		s.log.InfoContext(ctx, "payout already queued", "seller", p.SellerID, "period", p.Period)
		return nil
	}
	return err
}

// QueuePayoutChecked books the seller's payout for the period; the
// month-end job books every seller and is re-run when it dies half way.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_payment.go (payment looked up, then written)
func (s *Service) QueuePayoutChecked(ctx context.Context, p Payout) error {
	var n int
	if err := s.db.QueryRowContext(ctx,
		`SELECT count(*) FROM payouts WHERE seller_id = $1 AND period = $2`, p.SellerID, p.Period).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO payouts (id, seller_id, account_id, bank_account, amount_cents, currency, period, status)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued')`,
		p.ID, p.SellerID, p.AccountID, p.BankAccount, p.AmountCents, p.Currency, p.Period)
	return err
}
