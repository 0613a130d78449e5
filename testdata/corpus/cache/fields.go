package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// TransferService runs client transfers once per Idempotency-Key; its store
// is whatever Cache it was built with.
type TransferService struct {
	cache    Cache
	payments Payments
}

// NewTransferService returns a TransferService on c.
func NewTransferService(c Cache, p Payments) *TransferService {
	return &TransferService{cache: c, payments: p}
}

const transferTTL = 24 * time.Hour

// Transfer executes the transfer unless the key was seen, and records the
// result under the key. The lookup and the write are two round trips, and
// two retries of the same request both miss.
//
// corpus: bug checkthenact
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (IdempotencyStore Exists checked, the handler, then StoreResult)
func (s *TransferService) Transfer(ctx context.Context, idemKey, from, to string, cents int64) (*Transfer, error) {
	key := "idem:transfer:" + idemKey
	stored, err := s.cache.Get(ctx, key)
	if err == nil {
		var t Transfer
		if err := json.Unmarshal([]byte(stored), &t); err != nil {
			return nil, err
		}
		return &t, nil
	}
	if !errors.Is(err, ErrMiss) {
		return nil, err
	}
	t, err := s.payments.Execute(ctx, from, to, cents)
	if err != nil {
		return nil, err
	}
	if err := s.cache.Set(ctx, key, encode(t), transferTTL); err != nil {
		return nil, err
	}
	return t, nil
}

// TransferClaimed claims the key with SetNX before executing, replays the
// stored transfer to a retry, and gives the key back when the bank fails.
//
// corpus: ok checkthenact
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (Mark as the atomic claim, then StoreResult)
func (s *TransferService) TransferClaimed(ctx context.Context, idemKey, from, to string, cents int64) (*Transfer, error) {
	key := "idem:transfer:" + idemKey
	won, err := s.cache.SetNX(ctx, key, "pending", transferTTL)
	if err != nil {
		return nil, err
	}
	if !won {
		return s.replay(ctx, key)
	}
	t, err := s.payments.Execute(ctx, from, to, cents)
	if err != nil {
		s.cache.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	// The money moved; a failed write costs a retry its replay, not a
	// second transfer.
	_ = s.cache.Set(ctx, key, encode(t), transferTTL)
	return t, nil
}

// TransferLeaky claims the key, but a failed transfer returns with the claim
// still in place: every retry in the next day is told the transfer is in
// progress, and it never runs.
//
// corpus: bug releaseonerror
// modelled on: alsritter/rabbit internal/pkg/qylock/README.md (Set a lock key, the work, Release only at the end)
func (s *TransferService) TransferLeaky(ctx context.Context, idemKey, from, to string, cents int64) (*Transfer, error) {
	key := "idem:transfer:" + idemKey
	won, err := s.cache.SetNX(ctx, key, "pending", transferTTL)
	if err != nil {
		return nil, err
	}
	if !won {
		return s.replay(ctx, key)
	}
	t, err := s.payments.Execute(ctx, from, to, cents)
	if err != nil {
		return nil, fmt.Errorf("execute transfer: %w", err)
	}
	_ = s.cache.Set(ctx, key, encode(t), transferTTL)
	return t, nil
}

// TransferMarked claims the key and, on success, overwrites the claim with
// "done". The caller gets the transfer the first time; a retry finds "done"
// and cannot give the transfer back.
//
// corpus: bug cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (status tracking per key: processing, then completed)
func (s *TransferService) TransferMarked(ctx context.Context, idemKey, from, to string, cents int64) (*Transfer, error) {
	key := "idem:transfer:" + idemKey
	won, err := s.cache.SetNX(ctx, key, "pending", transferTTL)
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, ErrDuplicate
	}
	t, err := s.payments.Execute(ctx, from, to, cents)
	if err != nil {
		s.cache.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	s.cache.Set(ctx, key, "done", transferTTL)
	return t, nil
}

func (s *TransferService) replay(ctx context.Context, key string) (*Transfer, error) {
	stored, err := s.cache.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if stored == "pending" {
		return nil, ErrInProgress
	}
	var t Transfer
	if err := json.Unmarshal([]byte(stored), &t); err != nil {
		return nil, err
	}
	return &t, nil
}
