// Package jobs runs jobs under the claims of package keys.
package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"example.com/vetmod/keys"
)

func send(ctx context.Context, id string) error { return ctx.Err() }

// Run forgets the claim when send fails: every retry of the job is refused
// until the claim expires.
func Run(ctx context.Context, db *sql.DB, id string) error {
	ok, err := keys.Claim(ctx, db, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		return fmt.Errorf("job %s: %w", id, err) // finding: releaseonerror
	}
	return keys.Release(ctx, db, id)
}

// RunOrDie ends the process when send fails: keys.Fatal never returns, so
// the return after it is unreachable and leaks nothing.
func RunOrDie(ctx context.Context, db *sql.DB, id string) error {
	ok, err := keys.Claim(ctx, db, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		keys.Fatal(err)
		return err
	}
	return keys.Release(ctx, db, id)
}

// RunOnce releases the claim on every error path.
func RunOnce(ctx context.Context, db *sql.DB, id string) error {
	ok, err := keys.Claim(ctx, db, id)
	if err != nil || !ok {
		return err
	}
	defer keys.Release(ctx, db, id)
	return send(ctx, id)
}

// Retry claims under a key made anew for each attempt, so no attempt ever
// finds the claim of the one before.
func Retry(ctx context.Context, db *sql.DB) error {
	for attempt := 0; attempt < 3; attempt++ {
		key := strconv.FormatInt(time.Now().UnixNano(), 10)
		ok, err := keys.Claim(ctx, db, key) // finding: attemptkey
		if err != nil || !ok {
			continue
		}
		defer keys.Release(ctx, db, key)
		return send(ctx, key)
	}
	return fmt.Errorf("no attempt succeeded")
}

// Report marks the job done without what it answered: a retry cannot get
// the report back.
func Report(ctx context.Context, db *sql.DB, id string) ([]byte, error) {
	ok, err := keys.Claim(ctx, db, id)
	if err != nil || !ok {
		return nil, err
	}
	defer keys.Release(ctx, db, id)
	out := []byte("report " + id)
	return out, keys.Done(ctx, db, id) // finding: cacheresponse
}

// ReportOnce records the report with the key.
func ReportOnce(ctx context.Context, db *sql.DB, id string) ([]byte, error) {
	ok, err := keys.Claim(ctx, db, id)
	if err != nil || !ok {
		return nil, err
	}
	defer keys.Release(ctx, db, id)
	out := []byte("report " + id)
	return out, keys.Complete(ctx, db, id, out)
}
