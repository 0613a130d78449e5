package checkthenact

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

type snapshot struct {
	accountID string
	amount    int64
	at        time.Time
}

// appendSnapshot keeps a history: it reads the latest snapshot and, when
// one was found with another amount, appends a new one (an extension of
// what was found, not a creation: never reported); when none was found it
// creates the first, which two concurrent callers both do.
func appendSnapshot(ctx context.Context, tx *sql.Tx, s snapshot) error {
	var last snapshot
	found := true
	err := tx.QueryRowContext(ctx, "SELECT account_id, amount, at FROM snapshots WHERE account_id = $1 ORDER BY at DESC LIMIT 1", s.accountID).Scan(&last.accountID, &last.amount, &last.at)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		found = false
	}
	if found && last.at.After(s.at) {
		return nil
	}
	switch {
	case found && last.amount != s.amount:
		_, err = tx.ExecContext(ctx, "INSERT INTO snapshots (account_id, amount, at) VALUES ($1, $2, $3)", s.accountID, s.amount, s.at)
		return err
	case !found:
		_, err = tx.ExecContext(ctx, "INSERT INTO snapshots (account_id, amount, at) VALUES ($1, $2, $3)", s.accountID, s.amount, s.at) // want `INSERT into snapshots after the SELECT at foundflag.go:23 races`
		return err
	}
	return nil
}

// appendIfExists writes only under a condition that needs the record to
// have been found, written as one && chain: never reported.
func appendIfExists(ctx context.Context, db *sql.DB, id string, n int64) error {
	var amount int64
	exists := false
	if err := db.QueryRowContext(ctx, "SELECT amount FROM ledger WHERE id = $1", id).Scan(&amount); err == nil {
		exists = true
	}
	if n > 0 && exists && amount != n {
		_, err := db.ExecContext(ctx, "INSERT INTO ledger (id, amount) VALUES ($1, $2)", id, n)
		return err
	}
	return nil
}

// createUnlessBoth writes when either is missing, an || whose true side
// includes "not found": reported.
func createUnlessBoth(ctx context.Context, db *sql.DB, id string, force bool) error {
	var amount int64
	err := db.QueryRowContext(ctx, "SELECT amount FROM ledger WHERE id = $1", id).Scan(&amount)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) || force {
		_, err := db.ExecContext(ctx, "INSERT INTO ledger (id, amount) VALUES ($1, 0)", id) // want `INSERT into ledger after the SELECT at foundflag.go:63 races`
		return err
	}
	return nil
}

// extendUnlessMissing leaves when nothing was found or there is nothing to
// add, an || whose false side, where it writes, needs the record found:
// never reported.
func extendUnlessMissing(ctx context.Context, db *sql.DB, id string, n int64) error {
	var amount int64
	err := db.QueryRowContext(ctx, "SELECT amount FROM ledger WHERE id = $1", id).Scan(&amount)
	if errors.Is(err, sql.ErrNoRows) || n == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "INSERT INTO ledger (id, amount) VALUES ($1, $2)", id, amount+n)
	return err
}
