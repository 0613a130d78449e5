// Package orders consumes order messages. It imports payments, so go vet
// analyses payments both as a dependency (for facts) and as a package of its
// own: the end-to-end test checks that the findings of both are reported.
package orders

import (
	"context"
	"database/sql"

	"example.com/vetmod/payments"
)

// Inbox splits its check and its write into two methods that Handle calls in
// turn: the race is the same as in one function.
type Inbox struct{ db *sql.DB }

func (in *Inbox) seen(ctx context.Context, messageID string) (bool, error) {
	var seen bool
	err := in.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM order_inbox WHERE message_id = $1)`, messageID).Scan(&seen)
	return seen, err
}

func (in *Inbox) mark(ctx context.Context, messageID string) error {
	_, err := in.db.ExecContext(ctx, `INSERT INTO order_inbox (message_id) VALUES ($1)`, messageID)
	return err
}

// Handle processes one message once, or means to.
func (in *Inbox) Handle(ctx context.Context, messageID, paymentEventID string) error {
	seen, err := in.seen(ctx, messageID)
	if err != nil || seen {
		return err
	}
	if err := in.mark(ctx, messageID); err != nil { // finding: checkthenact
		return err
	}
	_, err = payments.RecordEvent(ctx, in.db, paymentEventID)
	return err
}
