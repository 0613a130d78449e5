package checkthenact

import "context"

// Generated-style service clients, each wrapped in a struct of its own
// whose field has the same name.
type tripService interface {
	GetTrip(ctx context.Context, id string) (string, error)
}

type paymentService interface {
	CreatePayment(ctx context.Context, orderID string) (string, error)
	GetPayment(ctx context.Context, orderID string) (string, error)
}

type tripClient struct{ client tripService }

func (c *tripClient) trip(ctx context.Context, id string) (string, error) {
	return c.client.GetTrip(ctx, id)
}

type payClient struct{ client paymentService }

func (c *payClient) pay(ctx context.Context, orderID string) (string, error) {
	return c.client.CreatePayment(ctx, orderID)
}

func (c *payClient) payment(ctx context.Context, orderID string) (string, error) {
	return c.client.GetPayment(ctx, orderID)
}

type booking struct {
	trips    *tripClient
	payments *payClient
}

// book reads a trip from the catalog and creates a payment: c.client is
// the catalog's client in one wrapper and the payment service's in the
// other, two services and not one record.
func (b *booking) book(ctx context.Context, id string) (string, error) {
	t, err := b.trips.trip(ctx, id)
	if err != nil {
		return "", err
	}
	if t == "" {
		return "", nil // no such trip
	}
	return b.payments.pay(ctx, id)
}

// payOnce asks the payment service whether the order has a payment and
// creates one when it has none: one record, read and then written.
func (b *booking) payOnce(ctx context.Context, id string) (string, error) {
	if p, err := b.payments.payment(ctx, id); err == nil && p != "" {
		return p, nil
	}
	return b.payments.pay(ctx, id) // want `CreatePayment of c.client .*after the GetPayment`
}
