package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// Beginner starts transactions: *pgxpool.Pool, *pgx.Conn and pgx.Tx (as a savepoint) have it.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// ConsumeOnce processes a queue message at most once: in one transaction it claims messageID,
// runs work with that transaction, and records the message as done, so the record and the work
// commit together or not at all. A message already recorded is a redelivery: work does not run
// and ConsumeOnce returns false, nil — acknowledge it. If work fails, everything rolls back and
// the message is not recorded, so the broker's redelivery runs it again. A duplicate delivered
// concurrently waits for the first transaction and then sees it done.
//
// fingerprint identifies the payload (idem.Fingerprint of it, or a hash): the same ID with a
// different payload is refused with idem.ErrFingerprintMismatch rather than skipped silently.
// ttl is how long the ID is remembered: longer than the broker can redeliver.
func (s *Store) ConsumeOnce(ctx context.Context, db Beginner, messageID, fingerprint string, ttl time.Duration, work func(ctx context.Context, tx pgx.Tx) error) (ran bool, err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return false, idem.Unavailable(ctx, "pgstore: consume: begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // a no-op once committed
	// The transaction is the lease: it ends with the work, so its length is the TTL.
	c, err := s.ClaimTx(ctx, tx, messageID, fingerprint, ttl, ttl)
	if err != nil {
		return false, err
	}
	switch c.Outcome {
	case idem.Replay:
		return false, nil
	case idem.Mismatch:
		return false, &idem.MismatchError{Key: messageID, Stored: c.Record.Fingerprint, Got: fingerprint}
	case idem.InProgress:
		// Only a claim made outside a transaction (Claim rather than ConsumeOnce) leaves an
		// in-progress row behind for another to see.
		return false, &idem.InProgressError{Key: messageID, RetryAfter: c.RetryAfter}
	}
	if err := work(ctx, tx); err != nil {
		return false, err
	}
	if err := s.CompleteTx(ctx, tx, messageID, c.Token, idem.Response{}, ttl); err != nil {
		return false, err
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("pgstore: consume %q: commit: %w", messageID, err)
	}
	return true, nil
}
