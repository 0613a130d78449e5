package attemptkey

import (
	"context"
	"time"

	"example.com/shop/ent"
	"github.com/google/uuid"
)

// The payment row's idempotency key is made anew on every try: a retry
// of a failed insert records a second payment.
func recordPayment(ctx context.Context, client *ent.Client, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = client.Payment.Create().
			SetIdempotencyKey(uuid.NewString()). // want `idempotency key made by uuid.NewString .* inside the retry loop`
			SetAmount(amount).
			Save(ctx)
		if err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	return err
}

// The key is made once, before the loop: every try inserts the same row.
func recordPaymentOnce(ctx context.Context, client *ent.Client, amount int64) error {
	key := uuid.NewString()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = client.Payment.Create().
			SetIdempotencyKey(key).
			SetAmount(amount).
			Save(ctx)
		if err == nil || ent.IsConstraintError(err) {
			return nil
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	return err
}
