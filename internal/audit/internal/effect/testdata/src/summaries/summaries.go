// Package summaries holds functions whose effect summaries the test pins.
package summaries

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/redis/go-redis/v9"
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

// Held answers whether a row was found through its error alone: the
// answer is the read's finding.
func Held(ctx context.Context, db *sql.DB, id string) (bool, error) { // want Held:`effects\(read sql hold\[2\]\)`
	var one int
	err := db.QueryRowContext(ctx, "SELECT 1 FROM holds WHERE id = $1", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Seen answers from a Redis miss.
func Seen(ctx context.Context, rdb *redis.Client, id string) (bool, error) { // want Seen:`effects\(read redis seen:\{\}\[2\]\)`
	err := rdb.Get(ctx, "seen:"+id).Err()
	if err == redis.Nil {
		return false, nil
	}
	return true, err
}

// Load passes its read's error on and answers nothing from it: the
// caller learns only that the load failed.
func Load(ctx context.Context, db *sql.DB, id string) (int, error) {
	var one int
	err := db.QueryRowContext(ctx, "SELECT 1 FROM holds WHERE id = $1", id).Scan(&one)
	if err != nil {
		return 0, err
	}
	return 7, nil
}

// exec sends the SQL its caller gives it: which record it touches is
// read at each call.
func exec(ctx context.Context, db *sql.DB, query string, args ...any) error { // want exec:`effects\(forward ExecContext\[2\]\)`
	_, err := db.ExecContext(ctx, query, args...)
	return err
}

// relay hands its caller's SQL on to exec.
func relay(ctx context.Context, db *sql.DB, query string, args ...any) error { // want relay:`effects\(forward ExecContext\[2\]\)`
	return exec(ctx, db, query, args...)
}

// Put writes through exec, keyed by its third parameter.
func Put(ctx context.Context, db *sql.DB, id string) error { // want Put:`effects\(write sql event\[2\]\)`
	return relay(ctx, db, "INSERT INTO events (id) VALUES ($1)", id)
}

// execBuilt sends the statement of the builder its caller gives it.
func execBuilt(ctx context.Context, db *sql.DB, q interface{ ToSql() (string, []any, error) }) error { // want execBuilt:`effects\(forward ExecContext\[2\]\)`
	query, args, err := q.ToSql()
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, query, args...)
	return err
}

// PutBuilt writes through execBuilt with a squirrel builder.
func PutBuilt(ctx context.Context, db *sql.DB, id string) error { // want PutBuilt:`effects\(write sql hold\[2\]\)`
	return execBuilt(ctx, db, sq.Insert("holds").Columns("id").Values(id))
}

// Run sends SQL of its own making: no forward, no record it can name.
func Run(ctx context.Context, db *sql.DB, table string) error {
	_, err := db.ExecContext(ctx, "TRUNCATE "+table)
	return err
}

// Refund calls a payment API under an idempotency key made from its
// second parameter: its receiver runs it once per key.
func Refund(ctx context.Context, client *http.Client, requestID string) error { // want Refund:`effects\(external http.Do keyed\[2\]\)`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example/refunds", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", "refund-"+requestID)
	_, err = client.Do(req)
	return err
}

// Cached answers whether a response is stored, with no error to return:
// any failure of the GET, a missing key among them, is "not found", so
// what the read found reaches its found flag, though its bytes reach the
// result only through json.Unmarshal.
func Cached(ctx context.Context, rdb *redis.Client, key string) (*cachedResponse, bool) { // want Cached:`effects\(read redis resp:\{\}\[2\]\)`
	b, err := rdb.Get(ctx, "resp:"+key).Bytes()
	if err != nil {
		return nil, false
	}
	var c cachedResponse
	if json.Unmarshal(b, &c) != nil {
		return nil, false
	}
	return &c, true
}

type cachedResponse struct{ Body []byte }

// Negative: an error returned as itself says nothing of what was found;
// the read's value stays inside.
func warm(ctx context.Context, rdb *redis.Client, key string) error {
	_, err := rdb.Get(ctx, "warm:"+key).Result()
	if err != nil {
		return err
	}
	return nil
}

// keyTaken folds the error and the count into one test: its answer is
// whether the key is there.
func keyTaken(ctx context.Context, rdb *redis.Client, key string) bool { // want keyTaken:`effects\(read redis idem:\{\}\[2\]\)`
	n, err := rdb.Exists(ctx, "idem:"+key).Result()
	if err != nil || n == 0 {
		return false
	}
	return true
}

// countLogged reads a count only to log it: the answer says nothing of
// what it found.
func countLogged(ctx context.Context, rdb *redis.Client, key string) bool {
	n, err := rdb.Exists(ctx, "idem:"+key).Result()
	if err != nil && n > 0 {
		println(n)
	}
	return true
}

// failedLogin counts a failure and locks the account at the fifth: the
// counter, not any read of the lock, decides whether the lock is set.
func failedLogin(ctx context.Context, rdb *redis.Client, email string) error { // want failedLogin:`effects\(write redis failed:\{\}\[2\], write redis locked:\{\}\[2\] counted\)`
	n, err := rdb.Incr(ctx, "failed:"+email).Result()
	if err != nil {
		return err
	}
	if n >= 5 {
		return rdb.Set(ctx, "locked:"+email, 1, 0).Err()
	}
	return nil
}

// lockAlways sets the lock whatever the counter says.
func lockAlways(ctx context.Context, rdb *redis.Client, email string) error { // want lockAlways:`effects\(write redis failed:\{\}\[2\], write redis locked:\{\}\[2\]\)`
	if err := rdb.Incr(ctx, "failed:"+email).Err(); err != nil {
		return err
	}
	return rdb.Set(ctx, "locked:"+email, 1, 0).Err()
}

// flaggedEvent is an event stored with what a lookup of its key found.
type flaggedEvent struct {
	ID        string
	Duplicate bool
}

// createFlagged looks the event's key up again and sets its Duplicate
// flag itself before the insert: a flag its caller set may come back
// changed.
func createFlagged(ctx context.Context, db *sql.DB, ev *flaggedEvent) error { // want createFlagged:`effects\(write sql flagged_event\[2\]\)`
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM flagged_events WHERE id = $1", ev.ID).Scan(&n); err != nil {
		return err
	}
	ev.Duplicate = n > 0
	_, err := db.ExecContext(ctx, "INSERT INTO flagged_events (id, duplicate) VALUES ($1, $2)", ev.ID, ev.Duplicate)
	return err
}

// createAsGiven stores the flag as its caller set it.
func createAsGiven(ctx context.Context, db *sql.DB, ev *flaggedEvent) error { // want createAsGiven:`effects\(write sql flagged_event\[2\]\)`
	_, err := db.ExecContext(ctx, "INSERT INTO flagged_events (id, duplicate) VALUES ($1, $2)", ev.ID, ev.Duplicate)
	return err
}

func ingestFlagged(ctx context.Context, db *sql.DB, ev *flaggedEvent) error { // want ingestFlagged:`effects\(write sql flagged_event\[2\], write sql flagged_event\[2\]\)`
	if err := createFlagged(ctx, db, ev); err != nil {
		return err
	}
	return createAsGiven(ctx, db, ev)
}
