package effects

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// A ledger whose release step runs only under the caller's lock on the
// accounts involved: two retries of one transfer take the same locks, so
// the check and the insert in releaseOnce are one step to each other.
type ledger struct {
	w  *wrapped
	mu sync.Mutex
}

func (l *ledger) acquireAccountLocks(ctx context.Context, ids []string) (func(), error) {
	return func() {}, nil
}

func (l *ledger) releaseOnce(ctx context.Context, ref string) error {
	var one int
	err := l.w.queryRow(ctx, `SELECT 1 FROM releases WHERE ref = $1`, ref).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return l.w.exec(ctx, `INSERT INTO releases (ref) VALUES ($1)`, ref)
}

// Transfer holds the accounts' locks around the release.
func (l *ledger) Transfer(ctx context.Context, ref string, accounts []string) error {
	unlock, err := l.acquireAccountLocks(ctx, accounts)
	if err != nil {
		return err
	}
	defer unlock()
	return l.releaseOnce(ctx, ref)
}

// Retry takes the mutex around it.
func (l *ledger) Retry(ctx context.Context, ref string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.releaseOnce(ctx, ref)
}

// grantOnce is called once without any lock: the race is real.
func (l *ledger) grantOnce(ctx context.Context, ref string) error {
	var one int
	err := l.w.queryRow(ctx, `SELECT 1 FROM grants WHERE ref = $1`, ref).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return l.w.exec(ctx, `INSERT INTO grants (ref) VALUES ($1)`, ref) // want `INSERT into grants \(by exec, at wrappers.go:\d+\) after the SELECT`
}

func (l *ledger) Grant(ctx context.Context, ref string, accounts []string) error {
	unlock, err := l.acquireAccountLocks(ctx, accounts)
	if err != nil {
		return err
	}
	unlock()
	return l.grantOnce(ctx, ref)
}

func (l *ledger) GrantLocked(ctx context.Context, ref string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.grantOnce(ctx, ref)
}

func (l *ledger) prepare(ctx context.Context, ref string) (int, error) {
	var n int
	err := l.w.queryRow(ctx, `SELECT count(*) FROM postings WHERE ref = $1`, ref).Scan(&n)
	return n, err
}

// Post reads postings only to warn when it cannot, then always writes:
// the read's error branch decides nothing, and the later err is the
// lock's, not the read's.
func (l *ledger) Post(ctx context.Context, ref string, accounts []string) error {
	n, err := l.prepare(ctx, ref)
	if err != nil {
		println("prepare failed:", err.Error())
	} else {
		accounts = append(accounts, string(rune('0'+n)))
	}
	_, err = l.acquireAccountLocks(ctx, accounts)
	if err != nil {
		return err
	}
	return l.w.exec(ctx, `INSERT INTO postings (ref) VALUES ($1)`, ref)
}
