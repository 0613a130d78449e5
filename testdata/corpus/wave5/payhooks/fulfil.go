package payhooks

import (
	"context"
	"fmt"
)

// ShipPaidOrder is the worker step behind payment_intent.succeeded: it
// marks the order paid and hands it to the warehouse. A processing row
// keyed by the event keeps a redelivered event from shipping twice.
//
// corpus: bug releaseonerror
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys row with PENDING / IN_PROGRESS / COMPLETED status)
func (rc *Receiver) ShipPaidOrder(ctx context.Context, eventID, orderID string, amount int64) error {
	res, err := rc.db.ExecContext(ctx,
		`INSERT INTO webhook_jobs (event_id, status, started_at) VALUES ($1, 'processing', now())
		 ON CONFLICT (event_id) DO NOTHING`, eventID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := rc.orders.MarkPaid(ctx, orderID, amount); err != nil {
		_, _ = rc.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM webhook_jobs WHERE event_id = $1`, eventID)
		return fmt.Errorf("mark paid %s: %w", orderID, err)
	}
	if err := rc.orders.MarkShipped(ctx, orderID); err != nil {
		return fmt.Errorf("ship %s: %w", orderID, err)
	}
	if _, uerr := rc.db.ExecContext(ctx, `UPDATE webhook_jobs SET status = 'done', finished_at = now() WHERE event_id = $1`, eventID); uerr != nil {
		rc.log.WarnContext(ctx, "finish webhook job", "event", eventID, "err", uerr)
	}
	return nil
}

// ShipPaidOrderReleasing is the worker step behind
// payment_intent.succeeded: it marks the order paid and hands it to the
// warehouse. A processing row keyed by the event keeps a redelivered event
// from shipping twice, and is dropped whenever the step fails.
//
// corpus: ok releaseonerror
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys row with PENDING / IN_PROGRESS / COMPLETED status)
func (rc *Receiver) ShipPaidOrderReleasing(ctx context.Context, eventID, orderID string, amount int64) (err error) {
	res, err := rc.db.ExecContext(ctx,
		`INSERT INTO webhook_jobs (event_id, status, started_at) VALUES ($1, 'processing', now())
		 ON CONFLICT (event_id) DO NOTHING`, eventID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	defer func() {
		if err != nil {
			_, _ = rc.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM webhook_jobs WHERE event_id = $1`, eventID)
		}
	}()
	if err = rc.orders.MarkPaid(ctx, orderID, amount); err != nil {
		return fmt.Errorf("mark paid %s: %w", orderID, err)
	}
	if err = rc.orders.MarkShipped(ctx, orderID); err != nil {
		return fmt.Errorf("ship %s: %w", orderID, err)
	}
	if _, uerr := rc.db.ExecContext(ctx, `UPDATE webhook_jobs SET status = 'done', finished_at = now() WHERE event_id = $1`, eventID); uerr != nil {
		rc.log.WarnContext(ctx, "finish webhook job", "event", eventID, "err", uerr)
	}
	return nil
}
