// Package disbursements pays sellers: Stripe payouts and transfers to
// connected accounts, bank transfers through the partner bank's HTTP API,
// and refunds of buyers. Calls to both providers are retried on transient
// failures.
package disbursements

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
	"github.com/stripe/stripe-go/v82"
)

// Payout is one payout of a seller's balance.
type Payout struct {
	ID          string
	SellerID    string
	AccountID   string // the seller's connected Stripe account
	BankAccount string
	AmountCents int64
	Currency    string
	Period      string // e.g. 2026-11
}

// Service pays sellers.
type Service struct {
	sc       *stripe.Client
	http     *http.Client
	bankURL  string
	db       *sql.DB
	rdb      *redis.Client
	log      *slog.Logger
	attempts uint
}

// New returns a Service.
func New(sc *stripe.Client, hc *http.Client, bankURL string, db *sql.DB, rdb *redis.Client, log *slog.Logger) *Service {
	return &Service{sc: sc, http: hc, bankURL: bankURL, db: db, rdb: rdb, log: log, attempts: 5}
}

// retryable reports whether a Stripe error is worth another attempt.
func retryable(err error) bool {
	var se *stripe.Error
	if errors.As(err, &se) {
		return se.HTTPStatusCode == 0 || se.HTTPStatusCode == http.StatusTooManyRequests || se.HTTPStatusCode >= 500
	}
	return true
}

// PayOut sends p to the seller's bank account from the platform balance.
//
// corpus: bug attemptkey
// modelled on: avast/retry-go README.md (retry.Do around the call, Attempts and Context options)
func (s *Service) PayOut(ctx context.Context, p Payout) (*stripe.Payout, error) {
	var out *stripe.Payout
	err := retry.Do(func() error {
		params := &stripe.PayoutCreateParams{
			Amount:      stripe.Int64(p.AmountCents),
			Currency:    stripe.String(p.Currency),
			Destination: stripe.String(p.BankAccount),
			Metadata:    map[string]string{"payout_id": p.ID, "seller_id": p.SellerID},
		}
		params.SetIdempotencyKey(uuid.NewString())
		po, err := s.sc.V1Payouts.Create(ctx, params)
		if err != nil {
			return err
		}
		out = po
		return nil
	},
		retry.Context(ctx),
		retry.Attempts(s.attempts),
		retry.RetryIf(retryable),
		retry.LastErrorOnly(true),
	)
	return out, err
}

// PayOutKeyed sends p to the seller's bank account from the platform
// balance.
//
// corpus: ok attemptkey
// modelled on: avast/retry-go README.md (retry.Do around the call, Attempts and Context options)
func (s *Service) PayOutKeyed(ctx context.Context, p Payout) (*stripe.Payout, error) {
	key := "payout-" + p.ID
	return retry.DoWithData(func() (*stripe.Payout, error) {
		params := &stripe.PayoutCreateParams{
			Amount:      stripe.Int64(p.AmountCents),
			Currency:    stripe.String(p.Currency),
			Destination: stripe.String(p.BankAccount),
			Metadata:    map[string]string{"payout_id": p.ID, "seller_id": p.SellerID},
		}
		params.SetIdempotencyKey(key)
		return s.sc.V1Payouts.Create(ctx, params)
	},
		retry.Context(ctx),
		retry.Attempts(s.attempts),
		retry.RetryIf(retryable),
	)
}

type bankTransfer struct {
	Reference   string `json:"reference"`
	Account     string `json:"account"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

func (s *Service) postBank(ctx context.Context, path string, body []byte, hdr http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.bankURL+path, bytes.NewReader(body))
	if err != nil {
		return backoff.Permanent(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("bank: %s", resp.Status)
	case resp.StatusCode >= 400:
		return backoff.Permanent(fmt.Errorf("bank: %s", resp.Status))
	}
	return nil
}

// SendBankTransfer pays p out through the partner bank.
//
// corpus: bug attemptkey
// modelled on: cenkalti/backoff README.md (backoff.Retry(operation, backoff.NewExponentialBackOff()))
func (s *Service) SendBankTransfer(ctx context.Context, p Payout) error {
	body, err := json.Marshal(bankTransfer{Reference: p.ID, Account: p.BankAccount, AmountCents: p.AmountCents, Currency: p.Currency})
	if err != nil {
		return err
	}
	op := func() error {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", ulid.Make().String())
		return s.postBank(ctx, "/v2/transfers", body, hdr)
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// SendBankTransferKeyed pays p out through the partner bank as part of
// the nightly batch.
//
// corpus: ok attemptkey
// modelled on: cenkalti/backoff README.md (backoff.RetryNotify with a notify func logging each failed attempt)
func (s *Service) SendBankTransferKeyed(ctx context.Context, batchID string, p Payout) error {
	body, err := json.Marshal(bankTransfer{Reference: p.ID, Account: p.BankAccount, AmountCents: p.AmountCents, Currency: p.Currency})
	if err != nil {
		return err
	}
	key := batchID + ":" + p.SellerID
	op := func() error {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", key)
		return s.postBank(ctx, "/v2/transfers", body, hdr)
	}
	notify := func(err error, wait time.Duration) {
		s.log.WarnContext(ctx, "bank transfer failed, retrying", "payout", p.ID, "wait", wait, "err", err)
	}
	b := backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 6)
	return backoff.RetryNotify(op, backoff.WithContext(b, ctx), notify)
}

// PushInstantPayout pays p to the seller's debit card through the bank's
// instant rail.
//
// corpus: bug attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (hand-written retry loop with exponential backoff around the request)
func (s *Service) PushInstantPayout(ctx context.Context, p Payout) error {
	body, err := json.Marshal(bankTransfer{Reference: p.ID, Account: p.BankAccount, AmountCents: p.AmountCents, Currency: p.Currency})
	if err != nil {
		return err
	}
	wait := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", ksuid.New().String())
		hdr.Set("X-Attempt", fmt.Sprint(attempt))
		err = s.postBank(ctx, "/v2/instant", body, hdr)
		var perm *backoff.PermanentError
		if err == nil || errors.As(err, &perm) || attempt == 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// payoutNamespace names the UUIDv5 space payout request keys live in.
var payoutNamespace = uuid.MustParse("6f1c8a52-2d7e-4c55-9d0f-8c1b7e0a4b31")

// PushInstantPayoutDerived pays p to the seller's debit card through the
// bank's instant rail.
//
// corpus: ok attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (hand-written retry loop) with a name-based UUID for the key
func (s *Service) PushInstantPayoutDerived(ctx context.Context, p Payout) error {
	body, err := json.Marshal(bankTransfer{Reference: p.ID, Account: p.BankAccount, AmountCents: p.AmountCents, Currency: p.Currency})
	if err != nil {
		return err
	}
	wait := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", uuid.NewSHA1(payoutNamespace, []byte("instant/"+p.ID)).String())
		err = s.postBank(ctx, "/v2/instant", body, hdr)
		var perm *backoff.PermanentError
		if err == nil || errors.As(err, &perm) || attempt == 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// TransferToSeller moves the seller's share to the connected account.
//
// corpus: bug attemptkey
// modelled on: stripe/stripe-go README.md (TransferParams with Destination to a connected account)
func (s *Service) TransferToSeller(ctx context.Context, p Payout) (*stripe.Transfer, error) {
	var lastErr error
	for i := 0; i < int(s.attempts); i++ {
		params := &stripe.TransferCreateParams{
			Amount:      stripe.Int64(p.AmountCents),
			Currency:    stripe.String(p.Currency),
			Destination: stripe.String(p.AccountID),
			Metadata:    map[string]string{"period": p.Period},
		}
		params.IdempotencyKey = stripe.String(fmt.Sprintf("%s-%d", p.AccountID, time.Now().UnixNano()))
		tr, err := s.sc.V1Transfers.Create(ctx, params)
		if err == nil {
			return tr, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(i+1) * 500 * time.Millisecond)
	}
	return nil, fmt.Errorf("transfer to %s: %w", p.AccountID, lastErr)
}

// TransferToSellerKeyed moves the seller's share for the period to the
// connected account.
//
// corpus: ok attemptkey
// modelled on: stripe/stripe-go README.md (TransferParams with Destination to a connected account)
func (s *Service) TransferToSellerKeyed(ctx context.Context, p Payout) (*stripe.Transfer, error) {
	var lastErr error
	for i := 0; i < int(s.attempts); i++ {
		params := &stripe.TransferCreateParams{
			Amount:      stripe.Int64(p.AmountCents),
			Currency:    stripe.String(p.Currency),
			Destination: stripe.String(p.AccountID),
			Metadata:    map[string]string{"period": p.Period},
		}
		params.IdempotencyKey = stripe.String("transfer:" + p.AccountID + ":" + p.Period)
		// A fresh request ID per attempt lets support find each attempt
		// in the logs.
		params.Headers = http.Header{"X-Request-Id": []string{uuid.NewString()}}
		tr, err := s.sc.V1Transfers.Create(ctx, params)
		if err == nil {
			return tr, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(i+1) * 500 * time.Millisecond)
	}
	return nil, fmt.Errorf("transfer to %s: %w", p.AccountID, lastErr)
}

// withRetry runs fn up to attempts times, sleeping between attempts,
// until it succeeds or fails with an error that is not retryable.
func withRetry(ctx context.Context, attempts int, fn func(context.Context) error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(ctx); err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1<<i) * 100 * time.Millisecond):
		}
	}
	return err
}

// RefundRequest asks for part of a charge to go back to the buyer.
type RefundRequest struct {
	RequestID   string
	ChargeID    string
	AmountCents int64
	Reason      string
}

// RefundBuyer refunds part of a charge.
//
// corpus: bug attemptkey
// modelled on: stripe/stripe-go README.md (refund.New with RefundParams)
func (s *Service) RefundBuyer(ctx context.Context, r RefundRequest) (*stripe.Refund, error) {
	var out *stripe.Refund
	err := withRetry(ctx, 4, func(ctx context.Context) error {
		params := &stripe.RefundCreateParams{
			Charge: stripe.String(r.ChargeID),
			Amount: stripe.Int64(r.AmountCents),
			Reason: stripe.String(r.Reason),
		}
		params.SetIdempotencyKey("refund_" + xid.New().String())
		ref, err := s.sc.V1Refunds.Create(ctx, params)
		out = ref
		return err
	})
	return out, err
}

// RefundBuyerKeyed refunds part of a charge.
//
// corpus: ok attemptkey
// modelled on: stripe/stripe-go README.md (refund.New with RefundParams)
func (s *Service) RefundBuyerKeyed(ctx context.Context, r RefundRequest) (*stripe.Refund, error) {
	var out *stripe.Refund
	err := withRetry(ctx, 4, func(ctx context.Context) error {
		params := &stripe.RefundCreateParams{
			Charge: stripe.String(r.ChargeID),
			Amount: stripe.Int64(r.AmountCents),
			Reason: stripe.String(r.Reason),
		}
		params.SetIdempotencyKey("refund_" + r.RequestID)
		ref, err := s.sc.V1Refunds.Create(ctx, params)
		out = ref
		return err
	})
	return out, err
}
