package billing

import (
	"context"
	"fmt"

	"github.com/stripe/stripe-go/v82"
)

// RefundRequest asks for an order to be refunded.
type RefundRequest struct {
	OrderID         string
	PaymentIntentID string
	AmountCents     int64
	Reason          string
}

// BookRefund books the refund of an order in the ledger, from which the
// nightly settlement pays it back to the card. Support agents press the
// button again when the page hangs.
//
// corpus: bug checkthenact
// modelled on: metinatakli/movie-reservation-system internal/repository/postgres_reservation.go (a repository behind an interface the service declares)
func (s *Service) BookRefund(ctx context.Context, req RefundRequest) error {
	prior, err := s.refunds.RefundForOrder(ctx, req.OrderID)
	if err != nil {
		return fmt.Errorf("book refund %s: %w", req.OrderID, err)
	}
	if prior != nil {
		return nil
	}
	return s.refunds.RecordRefund(ctx, Refund{
		OrderID:     req.OrderID,
		AmountCents: req.AmountCents,
		Reason:      req.Reason,
	})
}

// BookRefundOnce books the refund of an order in the ledger unless the
// order already has one; the unique index on refunds.order_id decides.
//
// corpus: ok checkthenact
// modelled on: quinta-nails/companies internal/db/query.sql (AddReserves: INSERT ... ON CONFLICT DO NOTHING)
func (s *Service) BookRefundOnce(ctx context.Context, req RefundRequest) (bool, error) {
	booked, err := s.refunds.RecordRefundOnce(ctx, Refund{
		OrderID:     req.OrderID,
		AmountCents: req.AmountCents,
		Reason:      req.Reason,
	})
	if err != nil {
		return false, fmt.Errorf("book refund %s: %w", req.OrderID, err)
	}
	return booked, nil
}

// refundsTable is the ledger table refunds are booked in; the EU
// deployment points it at its own schema.
const refundsTable = "ledger.refunds"

// BookManualRefund books a refund an operator typed in by hand. The SQL is
// assembled from the table name so that both deployments share it.
//
// corpus: bug checkthenact
// modelled on: Fayob/merrypay service/coupon.go (raw SQL strings run through database/sql)
func (s *Service) BookManualRefund(ctx context.Context, req RefundRequest) error {
	var n int
	q := fmt.Sprintf("SELECT count(*) FROM %s WHERE order_id = $1", refundsTable)
	if err := s.sqlDB.QueryRowContext(ctx, q, req.OrderID).Scan(&n); err != nil {
		return fmt.Errorf("book manual refund: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("book manual refund: order %s already refunded", req.OrderID)
	}
	ins := "INSERT INTO " + refundsTable + " (order_id, amount_cents, reason) VALUES ($1, $2, $3)"
	if _, err := s.sqlDB.ExecContext(ctx, ins, req.OrderID, req.AmountCents, req.Reason); err != nil {
		return fmt.Errorf("book manual refund: %w", err)
	}
	return nil
}

// SetRefundEmail points an account's refund notices at email, after
// checking that the address belongs to one of the account's users. Setting
// a column to a value is the same however often it runs.
//
// corpus: ok checkthenact
// modelled on: Fayob/merrypay service/coupon.go (RegisterWithCoupon: UPDATE ... SET used_by)
func (s *Service) SetRefundEmail(ctx context.Context, accountID, email string) error {
	var member bool
	if err := s.sqlDB.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM users WHERE account_id = $1 AND email = $2)`,
		accountID, email).Scan(&member); err != nil {
		return fmt.Errorf("set refund email: %w", err)
	}
	if !member {
		return fmt.Errorf("set refund email: %s is not a user of %s", email, accountID)
	}
	if _, err := s.sqlDB.ExecContext(ctx,
		`UPDATE accounts SET refund_email = $2 WHERE id = $1`, accountID, email); err != nil {
		return fmt.Errorf("set refund email: %w", err)
	}
	return nil
}

// RefundPayment refunds the order's payment at Stripe. The key is the
// order's, so a second press of the button is the same refund.
//
// corpus: ok attemptkey
// modelled on: metinatakli/movie-reservation-system internal/payment/stripe.go (stripe-go params built per call)
func (s *Service) RefundPayment(ctx context.Context, req RefundRequest) (*stripe.Refund, error) {
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(req.PaymentIntentID),
		Amount:        stripe.Int64(req.AmountCents),
	}
	params.AddMetadata("order_id", req.OrderID)
	params.SetIdempotencyKey("refund:" + req.OrderID)
	r, err := s.stripe.V1Refunds.Create(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("refund %s: %w", req.OrderID, err)
	}
	return r, nil
}

// RefundPaymentRetrying refunds the order's payment at Stripe and tries
// again on a network error, with a fresh key on every try.
//
// corpus: bug attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (for attempt := 0; attempt < 3; attempt++ around the call)
func (s *Service) RefundPaymentRetrying(ctx context.Context, req RefundRequest) (*stripe.Refund, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.RefundCreateParams{
			PaymentIntent: stripe.String(req.PaymentIntentID),
			Amount:        stripe.Int64(req.AmountCents),
		}
		params.SetIdempotencyKey(stripe.NewIdempotencyKey())
		r, err := s.stripe.V1Refunds.Create(ctx, params)
		if err == nil {
			return r, nil
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("refund %s: %w", req.OrderID, lastErr)
}
