package wave7cta

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PaymentService takes payments for orders.
type PaymentService struct {
	db       *sql.DB
	psp      Provider
	gateway  Provider
	payments PaymentRepository
	charges  ChargeLog
	bookings Bookings
}

// Pay looks for a payment of the order and, finding none, creates one at
// the provider and records it. Two retries of the checkout both find none
// and both open a payment at the provider.
//
// corpus: bug checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/service/payment.go (an order's payment created at the gateway after an idempotency step)
func (s *PaymentService) Pay(ctx context.Context, orderID string, paisa int64) (string, error) {
	seen, err := s.payments.Exists(ctx, orderID)
	if err != nil {
		return "", err
	}
	if seen {
		return "", nil
	}
	p, err := s.psp.CreatePayment(ctx, orderID, paisa)
	if err != nil {
		return "", fmt.Errorf("gateway error: %w", err)
	}
	if err := s.payments.Save(ctx, orderID, p.ID); err != nil {
		return "", err
	}
	return p.ID, nil
}

// PayClaimed claims the order's row first, with its key, and only the
// caller whose row is new opens the payment at the provider.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/service/payment.go (CreateIdempotent before the gateway's CreatePayment)
func (s *PaymentService) PayClaimed(ctx context.Context, orderID string, paisa int64) (string, error) {
	rowID, existed, err := s.payments.CreateIdempotent(ctx, orderID, paisa)
	if err != nil {
		return "", err
	}
	if existed {
		return rowID, nil
	}
	p, err := s.psp.CreatePayment(ctx, orderID, paisa)
	if err != nil {
		return "", err
	}
	return p.ID, s.payments.Save(ctx, orderID, p.ID)
}

// ChargeInvoice looks up the invoice's charge and, on not-found, charges
// the saved card and logs the charge: a retry racing it charges again.
//
// corpus: bug checkthenact
// modelled on: PithomLabs/restate-tutorial claude/tutorials/07-idempotency/02-hands-on.md (a gateway charge after the duplicate-request lookup)
func (s *PaymentService) ChargeInvoice(ctx context.Context, invoiceID, customerID string, paisa int64) (string, error) {
	prev, err := s.charges.GetCharge(ctx, invoiceID)
	if err == nil {
		return prev, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	chargeID, err := s.gateway.CreateCharge(ctx, customerID, paisa)
	if err != nil {
		return "", err
	}
	return chargeID, s.charges.Save(ctx, invoiceID, chargeID)
}

// RecordPending writes a pending payment row and its key through the one
// repository: its own rows, no call out of the service between.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/service/payment.go (a pending transaction row kept through its repository)
func (s *PaymentService) RecordPending(ctx context.Context, orderID string, paisa int64) (string, error) {
	p, err := s.payments.FindByOrder(ctx, orderID)
	if err == nil {
		return p.ID, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	return "", s.payments.Save(ctx, orderID, "pending:"+orderID)
}

// Book checks, creates and records a booking inside one serializable
// transaction: the writes commit together or not at all, and a
// concurrent retry's transaction fails.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/service/payment.go (order-scoped writes kept in one store)
func (s *PaymentService) Book(ctx context.Context, orderID string, seats int) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	seen, err := s.bookings.Exists(ctx, tx, orderID)
	if err != nil || seen {
		return err
	}
	id, err := s.bookings.CreateBooking(ctx, tx, orderID, seats)
	if err != nil {
		return err
	}
	if err := s.bookings.Save(ctx, tx, orderID, id); err != nil {
		return err
	}
	return tx.Commit()
}
