package billing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cenkalti/backoff/v4"
	"github.com/doug-martin/goqu/v9"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// SchedulePayout books the account's payout for period; the month-end
// job runs it for every account and is re-run by hand when it dies.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_payment.go (payments looked up, then written, through the repository)
func (s *Service) SchedulePayout(ctx context.Context, accountID, period string, amount int64) error {
	_, found, err := s.payouts.FindPayout(ctx, accountID, period)
	if err != nil {
		return fmt.Errorf("schedule payout: %w", err)
	}
	if found {
		return nil
	}
	return s.payouts.InsertPayout(ctx, Payout{AccountID: accountID, Period: period, AmountCents: amount})
}

// SchedulePayoutOnce books the account's payout for period; a payout the
// unique index already holds counts as booked.
//
// corpus: ok checkthenact
// modelled on: hizu77/avito-autumn-2025 internal/storage/common/constraint/unique.go (errors.As to *pgconn.PgError, code 23505)
func (s *Service) SchedulePayoutOnce(ctx context.Context, accountID, period string, amount int64) error {
	if _, found, err := s.payouts.FindPayout(ctx, accountID, period); err != nil {
		return fmt.Errorf("schedule payout: %w", err)
	} else if found {
		return nil
	}
	err := s.payouts.InsertPayout(ctx, Payout{AccountID: accountID, Period: period, AmountCents: amount})
	if errors.Is(err, ErrDuplicatePayout) {
		return nil
	}
	return err
}

// BookPayoutLine books one line of a payout statement straight through
// goqu.
//
// corpus: bug checkthenact
// modelled on: doug-martin/goqu docs/inserting.md (Insert(...).Rows(goqu.Record{...}).Executor())
func (s *Service) BookPayoutLine(ctx context.Context, payoutID, lineRef string, amount int64) error {
	var existing struct {
		ID string `db:"id"`
	}
	found, err := s.gq.From("payout_lines").
		Select("id").
		Where(goqu.Ex{"payout_id": payoutID, "line_ref": lineRef}).
		ScanStructContext(ctx, &existing)
	if err != nil {
		return fmt.Errorf("book payout line: %w", err)
	}
	if found {
		return nil
	}
	_, err = s.gq.Insert("payout_lines").Rows(goqu.Record{
		"payout_id":    payoutID,
		"line_ref":     lineRef,
		"amount_cents": amount,
	}).Executor().ExecContext(ctx)
	if err != nil {
		return fmt.Errorf("book payout line: %w", err)
	}
	return nil
}

// BookPayoutLineOnce books one line of a payout statement; the insert
// skips a line the statement has and says so through RETURNING.
//
// corpus: ok checkthenact
// modelled on: doug-martin/goqu docs/inserting.md (OnConflict(goqu.DoNothing()) and Returning)
func (s *Service) BookPayoutLineOnce(ctx context.Context, payoutID, lineRef string, amount int64) (bool, error) {
	var id string
	inserted, err := s.gq.Insert("payout_lines").Rows(goqu.Record{
		"payout_id":    payoutID,
		"line_ref":     lineRef,
		"amount_cents": amount,
	}).OnConflict(goqu.DoNothing()).Returning("id").Executor().ScanValContext(ctx, &id)
	if err != nil {
		return false, fmt.Errorf("book payout line: %w", err)
	}
	return inserted, nil
}

// payoutBody is the payouts API's request body.
func payoutBody(p Payout) []byte {
	b, _ := json.Marshal(map[string]any{
		"account": p.AccountID, "amount": p.AmountCents, "currency": "eur", "reference": p.Period,
	})
	return b
}

// SendPayout instructs the partner bank to pay p, retrying transient
// failures. Each attempt goes out under a new key.
//
// corpus: bug attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (retry loop with exponential backoff around the request)
func (s *Service) SendPayout(ctx context.Context, p Payout) error {
	body := payoutBody(p)
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		err = s.postPayout(ctx, body, uuid.New().String())
		if err == nil || !errors.Is(err, errRetryable) {
			return err
		}
		if berr := pause(ctx, attempt); berr != nil {
			return berr
		}
	}
	return fmt.Errorf("send payout %s: %w", p.ID, err)
}

// SendPayoutKeyed instructs the partner bank to pay p, retrying
// transient failures under the payout's own key.
//
// corpus: ok attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (retry loop with exponential backoff around the request)
func (s *Service) SendPayoutKeyed(ctx context.Context, p Payout) error {
	body := payoutBody(p)
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		err = s.postPayout(ctx, body, "payout-"+p.ID)
		if err == nil || !errors.Is(err, errRetryable) {
			return err
		}
		if berr := pause(ctx, attempt); berr != nil {
			return berr
		}
	}
	return fmt.Errorf("send payout %s: %w", p.ID, err)
}

// SendPayoutWithBackoff instructs the partner bank to pay p under
// cenkalti/backoff; the operation draws its key each time it runs.
//
// corpus: bug attemptkey
// modelled on: go-tk/backoff README.md (an HTTP call retried under an exponential backoff policy)
func (s *Service) SendPayoutWithBackoff(ctx context.Context, p Payout) error {
	body := payoutBody(p)
	op := func() error {
		key := ulid.Make().String()
		err := s.postPayout(ctx, body, key)
		if err != nil && !errors.Is(err, errRetryable) {
			return backoff.Permanent(err)
		}
		return err
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// SendPayoutWithBackoffKeyed instructs the partner bank to pay p under
// cenkalti/backoff, every try under the key stored with the payout.
//
// corpus: ok attemptkey
// modelled on: go-tk/backoff README.md (an HTTP call retried under an exponential backoff policy)
func (s *Service) SendPayoutWithBackoffKeyed(ctx context.Context, p Payout) error {
	body := payoutBody(p)
	key := p.IdempotencyKey
	op := func() error {
		err := s.postPayout(ctx, body, key)
		if err != nil && !errors.Is(err, errRetryable) {
			return backoff.Permanent(err)
		}
		return err
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// SendTopUp asks the partner bank to move funds into the account's
// float, retrying with a random token as the key of each try.
//
// corpus: bug attemptkey
// modelled on: appleboy/go-httpretry README.md (a POST retried with backoff by the client)
func (s *Service) SendTopUp(ctx context.Context, accountID string, amount int64) error {
	body, _ := json.Marshal(map[string]any{"account": accountID, "amount": amount})
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		buf := make([]byte, 16)
		if _, rerr := rand.Read(buf); rerr != nil {
			return rerr
		}
		err = s.postPayout(ctx, body, hex.EncodeToString(buf))
		if err == nil || !errors.Is(err, errRetryable) {
			return err
		}
		if berr := pause(ctx, attempt); berr != nil {
			return berr
		}
	}
	return fmt.Errorf("top up %s: %w", accountID, err)
}

// SendMonthlyTopUp asks the partner bank to move the month's funds into
// the account's float; the key is a digest of the account and the month,
// so every try and every re-run of the job names the same top-up.
//
// corpus: ok attemptkey
// modelled on: appleboy/go-httpretry README.md (a POST retried with backoff by the client)
func (s *Service) SendMonthlyTopUp(ctx context.Context, accountID, month string, amount int64) error {
	body, _ := json.Marshal(map[string]any{"account": accountID, "amount": amount, "month": month})
	sum := sha256.Sum256([]byte(accountID + "|" + month))
	key := hex.EncodeToString(sum[:])
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = s.postPayout(ctx, body, key)
		if err == nil || !errors.Is(err, errRetryable) {
			return err
		}
		if berr := pause(ctx, attempt); berr != nil {
			return berr
		}
	}
	return fmt.Errorf("top up %s: %w", accountID, err)
}
