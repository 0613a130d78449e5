// Package ledgerd is the ledger service: transfers between accounts,
// holds, payouts and settlements, behind an RPC-style API whose requests
// carry the caller's idempotency key.
package ledgerd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Entry is one leg of a double-entry posting.
type Entry struct {
	AccountID string
	Cents     int64 // negative debits, positive credits
}

// Poster posts balanced entries to the account balances service.
type Poster interface {
	Post(ctx context.Context, ref string, entries []Entry) error
}

// TransferRequest is the RPC request for a transfer.
type TransferRequest struct {
	IdempotencyKey string
	From, To       string
	Cents          int64
	Memo           string
}

// TransferReply is the RPC reply.
type TransferReply struct {
	TransferID string    `json:"transfer_id"`
	Status     string    `json:"status"`
	PostedAt   time.Time `json:"posted_at"`
}

// TransferService implements the Transfers RPCs.
type TransferService struct {
	pool   *pgxpool.Pool
	poster Poster
}

// CreateTransfer moves money between two accounts once per idempotency
// key: a repeat gets the original transfer back.
//
// corpus: bug checkthenact
// modelled on: justinndidit/nexus services/ledger/internal/ledger/service.go (transfer service guarded by an idempotency key)
func (s *TransferService) CreateTransfer(ctx context.Context, req *TransferRequest) (*TransferReply, error) {
	var prev TransferReply
	err := s.pool.QueryRow(ctx,
		`SELECT id, status, posted_at FROM transfers WHERE idempotency_key = $1`, req.IdempotencyKey).
		Scan(&prev.TransferID, &prev.Status, &prev.PostedAt)
	if err == nil {
		return &prev, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	id := uuid.NewString()
	if err := s.poster.Post(ctx, id, []Entry{{req.From, -req.Cents}, {req.To, req.Cents}}); err != nil {
		return nil, fmt.Errorf("post %s: %w", id, err)
	}
	reply := &TransferReply{TransferID: id, Status: "posted", PostedAt: time.Now().UTC()}
	_, err = s.pool.Exec(ctx,
		`INSERT INTO transfers (id, idempotency_key, from_account, to_account, cents, status, posted_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		id, req.IdempotencyKey, req.From, req.To, req.Cents, reply.Status, reply.PostedAt)
	if err != nil {
		return nil, err
	}
	return reply, nil
}

// CreateTransferOnce moves money between two accounts once per idempotency
// key. The transfer row is claimed by its key inside the posting
// transaction; a conflict returns the transfer that won.
//
// corpus: ok checkthenact
// modelled on: justinndidit/nexus services/ledger/README.md (duplicate transactions prevented by unique idempotency keys at the database level)
func (s *TransferService) CreateTransferOnce(ctx context.Context, req *TransferRequest) (*TransferReply, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	reply := &TransferReply{TransferID: uuid.NewString(), Status: "posted", PostedAt: time.Now().UTC()}
	var id string
	err = tx.QueryRow(ctx,
		`INSERT INTO transfers (id, idempotency_key, from_account, to_account, cents, status, posted_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)
		 ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
		reply.TransferID, req.IdempotencyKey, req.From, req.To, req.Cents, reply.Status, reply.PostedAt).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		var prev TransferReply
		err = s.pool.QueryRow(ctx,
			`SELECT id, status, posted_at FROM transfers WHERE idempotency_key = $1`, req.IdempotencyKey).
			Scan(&prev.TransferID, &prev.Status, &prev.PostedAt)
		if err != nil {
			return nil, err
		}
		return &prev, nil
	}
	if err != nil {
		return nil, err
	}
	batch := &pgx.Batch{}
	batch.Queue(`UPDATE accounts SET balance_cents = balance_cents - $2 WHERE id = $1`, req.From, req.Cents)
	batch.Queue(`UPDATE accounts SET balance_cents = balance_cents + $2 WHERE id = $1`, req.To, req.Cents)
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return reply, nil
}

// PayoutRequest asks for money to leave the platform to a bank account.
type PayoutRequest struct {
	IdempotencyKey string
	AccountID      string
	Cents          int64
	IBAN           string
}

// PayoutReply is the RPC reply.
type PayoutReply struct {
	PayoutID string `json:"payout_id"`
	Status   string `json:"status"`
	Rail     string `json:"rail"`
}

// Rails sends money out over a bank rail.
type Rails interface {
	Send(ctx context.Context, ref, iban string, cents int64) (rail string, err error)
}

// PayoutService implements the Payouts RPCs.
type PayoutService struct {
	pool  *pgxpool.Pool
	rails Rails
	log   *slog.Logger
}

// claim inserts the key as started; false means it exists already.
func (s *PayoutService) claim(ctx context.Context, key string) (bool, error) {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (idempotency_key, status, created_at, expires_at)
		 VALUES ($1, 'started', now(), now() + interval '24 hours')
		 ON CONFLICT (idempotency_key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s *PayoutService) release(ctx context.Context, key string) {
	_, _ = s.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM idempotency_keys WHERE idempotency_key = $1`, key)
}

// ErrInProgress tells the caller to retry later.
var ErrInProgress = errors.New("a request with this idempotency key is in progress")

// ErrAlreadyProcessed tells the caller the key was used before.
var ErrAlreadyProcessed = errors.New("request already processed")

// CreatePayout sends a payout once per idempotency key.
//
// corpus: bug cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and a response JSONB column for replay)
func (s *PayoutService) CreatePayout(ctx context.Context, req *PayoutRequest) (*PayoutReply, error) {
	fresh, err := s.claim(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		var status string
		if err := s.pool.QueryRow(ctx, `SELECT status FROM idempotency_keys WHERE idempotency_key = $1`,
			req.IdempotencyKey).Scan(&status); err != nil {
			return nil, err
		}
		if status == "succeeded" {
			return nil, ErrAlreadyProcessed
		}
		return nil, ErrInProgress
	}
	id := uuid.NewString()
	rail, err := s.rails.Send(ctx, id, req.IBAN, req.Cents)
	if err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	reply := &PayoutReply{PayoutID: id, Status: "sent", Rail: rail}
	if _, err := s.pool.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'succeeded', completed_at = now() WHERE idempotency_key = $1`,
		req.IdempotencyKey); err != nil {
		s.log.WarnContext(ctx, "complete idempotency key", "key", req.IdempotencyKey, "err", err)
	}
	return reply, nil
}

// CreatePayoutReplaying sends a payout once per idempotency key; the reply
// is kept with the key and a repeat gets it back.
//
// corpus: ok cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and a response JSONB column for replay)
func (s *PayoutService) CreatePayoutReplaying(ctx context.Context, req *PayoutRequest) (*PayoutReply, error) {
	fresh, err := s.claim(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		var status string
		var stored []byte
		if err := s.pool.QueryRow(ctx, `SELECT status, response FROM idempotency_keys WHERE idempotency_key = $1`,
			req.IdempotencyKey).Scan(&status, &stored); err != nil {
			return nil, err
		}
		if status != "succeeded" {
			return nil, ErrInProgress
		}
		var prev PayoutReply
		if err := json.Unmarshal(stored, &prev); err != nil {
			return nil, err
		}
		return &prev, nil
	}
	id := uuid.NewString()
	rail, err := s.rails.Send(ctx, id, req.IBAN, req.Cents)
	if err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	reply := &PayoutReply{PayoutID: id, Status: "sent", Rail: rail}
	body, _ := json.Marshal(reply)
	if _, err := s.pool.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'succeeded', response = $2, completed_at = now() WHERE idempotency_key = $1`,
		req.IdempotencyKey, body); err != nil {
		s.log.WarnContext(ctx, "complete idempotency key", "key", req.IdempotencyKey, "err", err)
	}
	return reply, nil
}

// ReversePayout reverses a payout that bounced, once per idempotency key.
//
// corpus: bug cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys row created PENDING and moved to COMPLETED)
func (s *PayoutService) ReversePayout(ctx context.Context, req *PayoutRequest) (*PayoutReply, error) {
	fresh, err := s.claim(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		return nil, ErrInProgress
	}
	id := uuid.NewString()
	if _, err := s.pool.Exec(ctx,
		`UPDATE accounts SET balance_cents = balance_cents + $2 WHERE id = $1`, req.AccountID, req.Cents); err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	return &PayoutReply{PayoutID: id, Status: "reversed"}, nil
}

// ReversePayoutRecorded reverses a payout that bounced, once per
// idempotency key; the reply is recorded with the key.
//
// corpus: ok cacheresponse
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys row created PENDING and moved to COMPLETED with its response)
func (s *PayoutService) ReversePayoutRecorded(ctx context.Context, req *PayoutRequest) (*PayoutReply, error) {
	fresh, err := s.claim(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		var stored []byte
		err := s.pool.QueryRow(ctx,
			`SELECT response FROM idempotency_keys WHERE idempotency_key = $1 AND status = 'succeeded'`,
			req.IdempotencyKey).Scan(&stored)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, ErrInProgress
		}
		if err != nil {
			return nil, err
		}
		var prev PayoutReply
		return &prev, json.Unmarshal(stored, &prev)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	defer tx.Rollback(ctx)
	reply := &PayoutReply{PayoutID: uuid.NewString(), Status: "reversed"}
	body, _ := json.Marshal(reply)
	if _, err := tx.Exec(ctx,
		`UPDATE accounts SET balance_cents = balance_cents + $2 WHERE id = $1`, req.AccountID, req.Cents); err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	if _, err := tx.Exec(ctx,
		`UPDATE idempotency_keys SET status = 'succeeded', response = $2, completed_at = now() WHERE idempotency_key = $1`,
		req.IdempotencyKey, body); err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		s.release(ctx, req.IdempotencyKey)
		return nil, err
	}
	return reply, nil
}
