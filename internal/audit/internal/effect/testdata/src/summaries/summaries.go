// Package summaries holds functions whose effect summaries the test pins.
package summaries

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
)

// Exists reads, keyed by its second parameter, and returns what it found.
func Exists(ctx context.Context, db *sql.DB, id string) (bool, error) { // want Exists:`effects\(read sql event\[2\]\)`
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM events WHERE id = $1", id).Scan(&n)
	return n > 0, err
}

// Mark writes, keyed through a local built from the parameter.
func Mark(ctx context.Context, db *sql.DB, id string) error { // want Mark:`effects\(write sql event\[2\]\)`
	key := strings.ToLower(id)
	_, err := db.ExecContext(ctx, "INSERT INTO events (id) VALUES ($1)", key)
	return err
}

// Touch reads but keeps what it found to itself: only its error leaves.
func Touch(ctx context.Context, db *sql.DB, id string) error {
	var n int
	return db.QueryRowContext(ctx, "SELECT count(*) FROM events WHERE id = $1", id).Scan(&n)
}

// Ensure reads and writes one record, and says whether it was there: its
// callers see the write, not a check.
func Ensure(ctx context.Context, db *sql.DB, id string) (bool, error) { // want Ensure:`effects\(write sql event\[2\]\)`
	ok, err := Exists(ctx, db, id)
	if err != nil || ok {
		return ok, err
	}
	return false, Mark(ctx, db, id)
}

// Notify acts on the world.
func Notify(url string) error { // want Notify:`effects\(external http.Post\)`
	_, err := http.Post(url, "text/plain", nil)
	return err
}
