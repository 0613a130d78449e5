// Package pgstore keeps idempotency records in Postgres, in a table with the key as primary key.
//
// A claim is one statement, one round trip: it reads the key's row and writes only when the key
// is free — an INSERT ... ON CONFLICT DO NOTHING when there is no row, a fenced UPDATE of a row
// that expired or whose lease ran out — and otherwise answers from what it read. Replays, live
// leases and mismatches are reads: they lock nothing and write no WAL, so a hot key's replays do
// not queue on its row. Every later write is an UPDATE or DELETE fenced by the claim's token.
// Times come from the server's clock (clock_timestamp(), not the transaction's now(), so a claim
// inside a long transaction still gets a full lease). Expired rows are ignored by every statement,
// so correctness never waits for the sweeper, which only gives the space back.
//
// ClaimTx and CompleteTx run inside the caller's transaction, so the claim, the business writes
// and the stored response commit or roll back together. A concurrent claim of the same key waits
// for that transaction and then sees its outcome: nothing to release if the work fails.
package pgstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DefaultTable is the table name when Options.Table is empty.
const DefaultTable = "idempotency_keys"

// DB is what the store needs of a connection: *pgxpool.Pool, *pgx.Conn and pgx.Tx all have it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Options configures a Store.
type Options struct {
	// Schema holds the table; empty means the connection's search_path. Migrate creates it.
	Schema string
	// Table is the table's name. Default DefaultTable.
	Table string
}

// Store is an idem.Store on Postgres.
type Store struct {
	db  DB
	sql statements
}

var _ idem.Store = (*Store)(nil)

// New returns a Store over db, usually a *pgxpool.Pool. Call Migrate once before use.
func New(db DB, opts Options) *Store {
	if opts.Table == "" {
		opts.Table = DefaultTable
	}
	return &Store{db: db, sql: newStatements(opts)}
}

//go:embed schema.sql
var schemaSQL string

// statements are the store's SQL with the table name filled in.
type statements struct {
	migrate, claim, complete, release, extend, get, sweep string
}

func newStatements(opts Options) statements {
	r, migrate := tableSQL(opts.Schema, opts.Table, "_expires_at_idx", schemaSQL)
	return statements{
		migrate:  migrate,
		claim:    r.Replace(claimSQL),
		complete: r.Replace(completeSQL),
		release:  r.Replace(releaseSQL),
		extend:   r.Replace(extendSQL),
		get:      r.Replace(getSQL),
		sweep:    r.Replace(sweepSQL),
	}
}

// tableSQL is what the statements of a table need: the replacer of {{table}} by the table's
// quoted name in schema (the search_path when empty), and of {{index}} by the name of its index
// (the table's name and indexSuffix), and the migration that creates the schema when set and then
// runs ddl. The migration is one simple-protocol batch, one implicit transaction, so the advisory
// lock it takes first is held until everything exists: concurrent Migrate calls do not race on
// CREATE.
func tableSQL(schema, table, indexSuffix, ddl string) (*strings.Replacer, string) {
	ident := pgx.Identifier{table}
	var createSchema string
	if schema != "" {
		ident = pgx.Identifier{schema, table}
		createSchema = "CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{schema}.Sanitize() + ";\n"
	}
	r := strings.NewReplacer("{{table}}", ident.Sanitize(), "{{index}}", pgx.Identifier{table + indexSuffix}.Sanitize())
	return r, "SELECT pg_advisory_xact_lock(hashtext('idemkit pgstore migrate'));\n" + createSchema + r.Replace(ddl)
}

// Migrate creates the schema (when Options.Schema is set), the table and its index if they are
// missing. It is safe to run from every instance at start-up, concurrently.
func (s *Store) Migrate(ctx context.Context) error {
	if _, err := s.db.Exec(ctx, s.sql.migrate); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return nil
}

// claimSQL: $1 key, $2 fingerprint, $3 token, $4 lease, $5 ttl. It reads before it writes, so
// that the answers that change nothing — a replay, a live lease, a mismatch — take no row lock and
// write no WAL, and replays of one hot key run side by side instead of queueing on its row.
//
// cur is the row in the statement's snapshot, with whether a claim may take it (free: expired, or
// in progress for this fingerprint with its lease run out). When there is none, inserted writes
// one; when it is free, taken updates it, fenced twice: by the row still holding the token read
// (so taken knows whose lease it ended), and by the lease or expiry checked again on the row as it
// is now, which Postgres re-reads after waiting for a concurrent writer's lock. A row committed by
// a concurrent claim after the snapshot defeats both writes; then no row comes back and the claim
// runs again with a new snapshot (see claim).
const claimSQL = `
WITH now AS (SELECT clock_timestamp() AS t),
cur AS (
    SELECT r.fingerprint, r.state, r.token, r.lease_expires_at, r.expires_at, r.status, r.headers, r.body,
           r.expires_at <= now.t
               OR (r.state = 'in_progress' AND r.fingerprint = $2 AND r.lease_expires_at <= now.t) AS free
    FROM {{table}} r, now
    WHERE r.key = $1
),
inserted AS (
    INSERT INTO {{table}} (key, fingerprint, state, token, lease_expires_at, expires_at, claimed_at)
    SELECT $1, $2, 'in_progress', $3, t + $4::interval, t + greatest($4::interval, $5::interval), t
    FROM now
    WHERE NOT EXISTS (SELECT FROM cur)
    ON CONFLICT (key) DO NOTHING
    RETURNING lease_expires_at, expires_at
),
taken AS (
    UPDATE {{table}} r SET
        fingerprint = $2, state = 'in_progress', token = $3,
        lease_expires_at = clock_timestamp() + $4::interval,
        expires_at = clock_timestamp() + greatest($4::interval, $5::interval),
        claimed_at = clock_timestamp(), taken_over = r.expires_at > clock_timestamp(),
        status = NULL, headers = NULL, body = NULL
    FROM cur
    WHERE r.key = $1 AND cur.free AND r.token IS NOT DISTINCT FROM cur.token
      AND (r.expires_at <= clock_timestamp()
           OR (r.state = 'in_progress' AND r.fingerprint = $2 AND r.lease_expires_at <= clock_timestamp()))
    RETURNING r.taken_over, cur.token AS previous, r.lease_expires_at, r.expires_at
)
SELECT 'claimed', $2, 'in_progress', lease_expires_at, expires_at,
       NULL::text, NULL::bigint, NULL::integer, NULL::json, NULL::bytea
FROM inserted
UNION ALL
SELECT CASE WHEN taken_over THEN 'taken' ELSE 'claimed' END, $2, 'in_progress', lease_expires_at, expires_at,
       CASE WHEN taken_over THEN previous END, NULL, NULL, NULL, NULL
FROM taken
UNION ALL
SELECT CASE WHEN fingerprint <> $2 THEN 'mismatch' WHEN state = 'completed' THEN 'replay' ELSE 'busy' END,
       fingerprint, state, lease_expires_at, expires_at, NULL,
       ceil(extract(epoch FROM lease_expires_at - now.t) * 1000)::bigint,
       CASE WHEN fingerprint = $2 THEN status END,
       CASE WHEN fingerprint = $2 THEN headers END,
       CASE WHEN fingerprint = $2 THEN body END
FROM cur, now
WHERE NOT free`

// completeSQL: $1 key, $2 token, $3 status, $4 headers, $5 body, $6 ttl.
const completeSQL = `
UPDATE {{table}} SET state = 'completed', token = NULL, lease_expires_at = NULL,
       status = $3, headers = $4::json, body = $5, expires_at = clock_timestamp() + $6::interval
WHERE key = $1 AND token = $2 AND state = 'in_progress' AND expires_at > clock_timestamp()`

// releaseSQL: $1 key, $2 token.
const releaseSQL = `
DELETE FROM {{table}}
WHERE key = $1 AND token = $2 AND state = 'in_progress' AND expires_at > clock_timestamp()`

// extendSQL: $1 key, $2 token, $3 lease. The row is kept at least as long as the lease.
const extendSQL = `
UPDATE {{table}} SET lease_expires_at = clock_timestamp() + $3::interval,
       expires_at = greatest(expires_at, clock_timestamp() + $3::interval)
WHERE key = $1 AND token = $2 AND state = 'in_progress' AND expires_at > clock_timestamp()`

// getSQL: $1 key.
const getSQL = `
SELECT fingerprint, state, lease_expires_at, expires_at, status, headers, body
FROM {{table}} WHERE key = $1 AND expires_at > clock_timestamp()`

// sweepSQL: $1 batch size. SKIP LOCKED lets sweepers on several instances share the work and
// never wait on a row a claim is updating.
const sweepSQL = `
DELETE FROM {{table}} WHERE key IN (
    SELECT key FROM {{table}} WHERE expires_at <= clock_timestamp()
    ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`

// claimAttempts bounds the re-runs of a claim that found a row it could not yet see; one re-run
// takes a new snapshot that sees it, so more than a few means something else is wrong.
const claimAttempts = 5

// Claim implements idem.Store.
//
//idemkit:claim
func (s *Store) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	return s.claim(ctx, s.db, key, fingerprint, lease, ttl)
}

// ClaimTx claims key inside the caller's transaction, so the claim commits or rolls back with the
// work. Until tx ends, a concurrent claim of the key waits for it, then sees the outcome. Complete
// with CompleteTx in the same transaction; on failure roll back, which releases the key.
//
//idemkit:claim
func (s *Store) ClaimTx(ctx context.Context, tx pgx.Tx, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	return s.claim(ctx, tx, key, fingerprint, lease, ttl)
}

func (s *Store) claim(ctx context.Context, db DB, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	if err := idem.CheckClaim(key, fingerprint, lease, ttl); err != nil {
		return idem.Claim{}, err
	}
	token := idem.NewToken()
	for range claimAttempts {
		var (
			outcome, state string
			c              idem.Claim
			leaseExp       *time.Time
			previous       *string
			retryMS        *int64
			status         *int32
			headers, body  []byte
		)
		c.Record.Key = key
		err := db.QueryRow(ctx, s.sql.claim, key, fingerprint, token, lease, ttl).Scan(
			&outcome, &c.Record.Fingerprint, &state, &leaseExp, &c.Record.Expires, &previous, &retryMS, &status, &headers, &body)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return idem.Claim{}, idem.Unavailable(ctx, "pgstore: claim "+strconv.Quote(key), err)
		}
		if err := fill(&c.Record, state, leaseExp, status, headers, body); err != nil {
			return idem.Claim{}, fmt.Errorf("pgstore: claim %q: %w", key, err)
		}
		var retryAfter time.Duration
		if retryMS != nil {
			retryAfter = time.Duration(*retryMS) * time.Millisecond
		}
		c, err = idem.NewClaim(outcome, token, c.Record, retryAfter)
		if err != nil {
			return idem.Claim{}, fmt.Errorf("pgstore: claim %q: %w", key, err)
		}
		if previous != nil {
			c.Previous = *previous
		}
		return c, nil
	}
	return idem.Claim{}, fmt.Errorf("pgstore: claim %q: %w: no row after %d attempts", key, idem.ErrStoreUnavailable, claimAttempts)
}

// fill sets the record's state, lease and (when present) response from scanned columns.
func fill(r *idem.Record, state string, leaseExp *time.Time, status *int32, headers, body []byte) error {
	switch state {
	case "in_progress":
		r.State = idem.StateInProgress
	case "completed":
		r.State = idem.StateCompleted
	default:
		return fmt.Errorf("bad state %q", state)
	}
	if leaseExp != nil {
		r.LeaseExpires = *leaseExp
	}
	if status == nil {
		return nil
	}
	r.Response = idem.Response{Status: int(*status), Body: body}
	if err := json.Unmarshal(headers, &r.Response.Header); err != nil {
		return fmt.Errorf("bad headers: %w", err)
	}
	return nil
}

// Complete implements idem.Store.
//
//idemkit:complete
func (s *Store) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	return s.complete(ctx, s.db, key, token, resp, ttl)
}

// CompleteTx stores the response inside the caller's transaction, the one ClaimTx ran in.
//
//idemkit:complete
func (s *Store) CompleteTx(ctx context.Context, tx pgx.Tx, key, token string, resp idem.Response, ttl time.Duration) error {
	return s.complete(ctx, tx, key, token, resp, ttl)
}

func (s *Store) complete(ctx context.Context, db DB, key, token string, resp idem.Response, ttl time.Duration) error {
	if err := idem.CheckDuration("ttl", ttl); err != nil {
		return err
	}
	header, err := json.Marshal(resp.Header)
	if err != nil {
		return fmt.Errorf("pgstore: complete %q: headers: %w", key, err)
	}
	body := resp.Body
	if body == nil {
		body = []byte{} // an empty body, not an absent one
	}
	return fenced(ctx, "complete", key, db, s.sql.complete, key, token, resp.Status, string(header), body, ttl)
}

// Release implements idem.Store.
//
//idemkit:release
func (s *Store) Release(ctx context.Context, key, token string) error {
	return fenced(ctx, "release", key, s.db, s.sql.release, key, token)
}

// Extend implements idem.Store.
func (s *Store) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if err := idem.CheckDuration("lease", lease); err != nil {
		return err
	}
	return fenced(ctx, "extend", key, s.db, s.sql.extend, key, token, lease)
}

// fenced runs a statement that changes the row only when the token holds it. A key no claim
// accepts (see idem.CheckKey) is not sent: Postgres would reject it as text, not as unclaimed.
func fenced(ctx context.Context, op, key string, db DB, sql string, args ...any) error {
	if idem.CheckKey(key) != nil {
		return fmt.Errorf("pgstore: %s %q: %w", op, key, idem.ErrLeaseLost)
	}
	tag, err := db.Exec(ctx, sql, args...)
	if err != nil {
		return idem.Unavailable(ctx, fmt.Sprintf("pgstore: %s %q", op, key), err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("pgstore: %s %q: %w", op, key, idem.ErrLeaseLost)
	}
	return nil
}

// Get implements idem.Store.
func (s *Store) Get(ctx context.Context, key string) (idem.Record, error) {
	var (
		r             = idem.Record{Key: key}
		state         string
		leaseExp      *time.Time
		status        *int32
		headers, body []byte
	)
	if idem.CheckKey(key) != nil {
		return idem.Record{}, fmt.Errorf("pgstore: get %q: %w", key, idem.ErrNotFound)
	}
	err := s.db.QueryRow(ctx, s.sql.get, key).Scan(&r.Fingerprint, &state, &leaseExp, &r.Expires, &status, &headers, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return idem.Record{}, fmt.Errorf("pgstore: get %q: %w", key, idem.ErrNotFound)
	}
	if err != nil {
		return idem.Record{}, idem.Unavailable(ctx, "pgstore: get "+strconv.Quote(key), err)
	}
	if err := fill(&r, state, leaseExp, status, headers, body); err != nil {
		return idem.Record{}, fmt.Errorf("pgstore: get %q: %w", key, err)
	}
	return r, nil
}

// Sweep deletes expired rows, batch at a time so no statement holds many locks or runs long, until
// none is left; it returns how many it deleted.
func (s *Store) Sweep(ctx context.Context, batch int) (int64, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("pgstore: sweep: %w: batch %d", idem.ErrInvalid, batch)
	}
	var total int64
	for {
		tag, err := s.db.Exec(ctx, s.sql.sweep, batch)
		if err != nil {
			return total, idem.Unavailable(ctx, "pgstore: sweep", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}

// RunSweeper sweeps every interval until ctx is done. A failed sweep is passed to onError (which
// may be nil) and the next one tries again: expired rows are invisible anyway, so a late sweep
// costs only space.
func (s *Store) RunSweeper(ctx context.Context, every time.Duration, batch int, onError func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.Sweep(ctx, batch); err != nil && ctx.Err() == nil && onError != nil {
			onError(err)
		}
	}
}
