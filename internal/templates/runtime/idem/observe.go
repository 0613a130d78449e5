package idem

import (
	"context"
	"time"
)

// Hooks are callbacks on what a store answers, for metrics and alerts: Observe calls them around
// every operation of the store it wraps. Nil fields are skipped. They run on the caller's
// goroutine, inside its request, so they must be quick and must not block.
type Hooks struct {
	// OnClaim is called for every claim the store answered, with its outcome: Claimed,
	// TakenOver, Replay, InProgress (a conflict) or Mismatch.
	OnClaim func(ctx context.Context, key string, outcome Outcome)
	// OnTakeover is called, after OnClaim, when a claim took the key over from a holder whose
	// lease ran out: a holder crashed or stalled, and may have done part of the work.
	OnTakeover func(ctx context.Context, t Takeover)
	// OnCall is called after every operation, with how long it took and its error: nil, a
	// refusal (ErrLeaseLost, ErrNotFound, ErrInvalid) or a failure of the store, which matches
	// ErrStoreUnavailable.
	OnCall func(ctx context.Context, op Op, took time.Duration, err error)
}

// Takeover is a claim that ended a lapsed lease.
type Takeover struct {
	Key string
	// Previous is the token of the holder whose lease ran out; it is dead.
	Previous string
	// Token is the new holder's.
	Token string
}

// Op names a Store operation.
type Op string

// The operations of a Store.
const (
	OpClaim    Op = "claim"
	OpComplete Op = "complete"
	OpRelease  Op = "release"
	OpExtend   Op = "extend"
	OpGet      Op = "get"
)

// Observe returns s with h called around each of its operations. Give the observed store to
// every Keeper and middleware, so that each request's store calls are counted once. A backend's
// own methods beyond Store (a Postgres claim inside a transaction) are not observed.
func Observe(s Store, h Hooks) Store { return &observed{s: s, h: h} }

type observed struct {
	s Store
	h Hooks
}

func (o *observed) call(ctx context.Context, op Op, start time.Time, err error) {
	if o.h.OnCall != nil {
		o.h.OnCall(ctx, op, time.Since(start), err)
	}
}

// Claim implements Store.
//
//idemkit:claim
func (o *observed) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (Claim, error) {
	start := time.Now()
	c, err := o.s.Claim(ctx, key, fingerprint, lease, ttl)
	o.call(ctx, OpClaim, start, err)
	if err != nil {
		return c, err
	}
	if o.h.OnClaim != nil {
		o.h.OnClaim(ctx, key, c.Outcome)
	}
	if c.Outcome == TakenOver && o.h.OnTakeover != nil {
		o.h.OnTakeover(ctx, Takeover{Key: key, Previous: c.Previous, Token: c.Token})
	}
	return c, nil
}

// Complete implements Store.
//
//idemkit:complete
func (o *observed) Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error {
	start := time.Now()
	err := o.s.Complete(ctx, key, token, resp, ttl)
	o.call(ctx, OpComplete, start, err)
	return err
}

// Release implements Store.
//
//idemkit:release
func (o *observed) Release(ctx context.Context, key, token string) error {
	start := time.Now()
	err := o.s.Release(ctx, key, token)
	o.call(ctx, OpRelease, start, err)
	return err
}

// Extend implements Store.
func (o *observed) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	start := time.Now()
	err := o.s.Extend(ctx, key, token, lease)
	o.call(ctx, OpExtend, start, err)
	return err
}

// Get implements Store.
func (o *observed) Get(ctx context.Context, key string) (Record, error) {
	start := time.Now()
	r, err := o.s.Get(ctx, key)
	o.call(ctx, OpGet, start, err)
	return r, err
}
