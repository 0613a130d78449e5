// Package keys is the service's own claim helpers, annotated with idemkit's
// directives. The checks learn what they do in the packages that call them
// through analysis facts, which go vet carries between its runs of the tool
// in vetx files: jobs' findings depend on them.
package keys

import (
	"context"
	"database/sql"
	"log"
)

// Claim takes key for this worker; false when another worker has it.
//
//idemkit:claim
func Claim(ctx context.Context, db *sql.DB, key string) (bool, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO job_claims (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Release gives key back so that a retry can run at once.
//
//idemkit:release
func Release(ctx context.Context, db *sql.DB, key string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM job_claims WHERE key = $1`, key)
	return err
}

// Done records that key's work is finished, with no response to replay.
//
//idemkit:complete
func Done(ctx context.Context, db *sql.DB, key string) error {
	_, err := db.ExecContext(ctx, `UPDATE job_claims SET done = true WHERE key = $1`, key)
	return err
}

// Complete records that key's work is finished and what it answered.
//
//idemkit:complete
func Complete(ctx context.Context, db *sql.DB, key string, response []byte) error {
	_, err := db.ExecContext(ctx, `UPDATE job_claims SET response = $2 WHERE key = $1`, key, response)
	return err
}

// Fatal ends the process; it never returns. go vet learns that through
// ctrlflow's facts: jobs' code after a call to it is unreachable.
func Fatal(err error) {
	log.Fatalf("keys: %v", err)
}
