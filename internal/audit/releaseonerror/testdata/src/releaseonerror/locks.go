package releaseonerror

import (
	"context"
	"errors"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
)

// A redislock lock obtained, then left held by an early return.
func settleAccount(ctx context.Context, locker *redislock.Client, account string) error {
	lock, err := locker.Obtain(ctx, "settle:"+account, time.Minute, nil)
	if errors.Is(err, redislock.ErrNotObtained) {
		return errBusy
	}
	if err != nil {
		return err
	}
	if err := validate(account); err != nil {
		return err // want `this error return leaves the key claimed by Obtain at locks.go:14 held`
	}
	defer lock.Release(context.WithoutCancel(ctx))
	return send(ctx, account)
}

// A redsync mutex locked, and unlocked only on success.
func rotateKeys(ctx context.Context, rs *redsync.Redsync, tenant string) error {
	m := rs.NewMutex("rotate:" + tenant)
	if err := m.LockContext(ctx); err != nil {
		return err
	}
	if err := send(ctx, tenant); err != nil {
		return err // want `this error return leaves the key claimed by LockContext at locks.go:31 held: .* defer its Unlock right after the lock is taken`
	}
	_, err := m.UnlockContext(ctx)
	return err
}

// Negatives: released on every path.
func settleAccountDeferred(ctx context.Context, locker *redislock.Client, account string) error {
	lock, err := locker.Obtain(ctx, "settle:"+account, time.Minute, nil)
	if err != nil {
		return err
	}
	defer lock.Release(context.WithoutCancel(ctx))
	if err := validate(account); err != nil {
		return err
	}
	return send(ctx, account)
}

func rotateKeysDeferred(ctx context.Context, rs *redsync.Redsync, tenant string) error {
	m := rs.NewMutex("rotate:" + tenant)
	if err := m.LockContext(ctx); err != nil {
		return err
	}
	defer m.UnlockContext(context.WithoutCancel(ctx))
	return send(ctx, tenant)
}
