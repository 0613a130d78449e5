package flow

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"time"

	"flowhelpers"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// A defer registered after an early return does not cover that return.
func deferLate(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.SetNX(ctx, "job:"+id, 1, time.Hour).Val() {
		return errBusy
	}
	if err := work(); err != nil {
		return err // want `error exit of SetNX, deferred nothing`
	}
	defer rdb.Del(ctx, "job:"+id)
	return work() // want `error exit of SetNX, deferred released`
}

// A 4xx answer is a failing exit, like a 5xx.
func badRequest(w http.ResponseWriter, r *http.Request, rdb *redis.Client) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !rdb.SetNX(r.Context(), key, "in_progress", time.Hour).Val() {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if r.ContentLength == 0 {
		http.Error(w, "empty body", http.StatusBadRequest) // want `error exit of SetNX, deferred nothing, responder true`
		return
	}
	rdb.Set(r.Context(), key, "{}", time.Hour)
	w.Write([]byte("{}"))
}

func writeError(w http.ResponseWriter, err error) { http.Error(w, err.Error(), http.StatusBadGateway) }

func writeJSON(w http.ResponseWriter, status int, v any) { json.NewEncoder(w).Encode(v) }

// A helper given the writer and an error, or the writer and a status of
// 400 or more, answers a failure.
func viaHelpers(w http.ResponseWriter, r *http.Request, rdb *redis.Client) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !rdb.SetNX(r.Context(), key, "in_progress", time.Hour).Val() {
		writeJSON(w, http.StatusConflict, "in progress")
		return
	}
	if err := work(); err != nil {
		writeError(w, err) // want `error exit of SetNX`
		return
	}
	if r.ContentLength > 1<<20 {
		writeJSON(w, 413, "too large") // want `error exit of SetNX`
		return
	}
	writeJSON(w, http.StatusOK, "ok")
} // want `answer exit of SetNX, deferred nothing, responder true`

// Without an error to return, a return in the branch of a failed call is
// a failing exit: logged and left.
func consumeLogged(ctx context.Context, rdb *redis.Client, id string) {
	if !rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Val() {
		return
	}
	if err := work(); err != nil {
		log.Printf("message %s: %v", id, err)
		return // want `error exit of SetNX`
	}
	rdb.Set(ctx, "dedup:"+id, "done", time.Hour)
}

// The claim's own failure, logged, took nothing.
func consumeClaimFailed(ctx context.Context, rdb *redis.Client, id string) {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil {
		log.Print(err)
		return
	}
	if !ok {
		return
	}
	if err := work(); err == nil {
		rdb.Set(ctx, "dedup:"+id, "done", time.Hour)
		return
	}
	rdb.Del(ctx, "dedup:"+id)
}

// A local closure that deletes the key is a release where it is called,
// and deferred.
func closureRelease(ctx context.Context, rdb *redis.Client, id string) error {
	key := "dedup:" + id
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return nil
	}
	release := func() { rdb.Del(context.WithoutCancel(ctx), key) }
	if err := work(); err != nil {
		release()
		return err
	}
	if err := work(); err != nil {
		return err // want `error exit of SetNX, deferred nothing`
	}
	return rdb.Set(ctx, key, "done", time.Hour).Err()
}

func closureDeferred(ctx context.Context, rdb *redis.Client, id string) (err error) {
	key := "dedup:" + id
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return nil
	}
	release := func() {
		if err != nil {
			rdb.Del(context.WithoutCancel(ctx), key)
		}
	}
	defer release()
	return work() // want `error exit of SetNX, deferred released`
}

// Work handed to a goroutine that completes the key owns it.
func handedToGoroutine(ctx context.Context, rdb *redis.Client, id string) error {
	key := "dedup:" + id
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return nil
	}
	go func() {
		if err := work(); err != nil {
			rdb.Del(context.WithoutCancel(ctx), key)
			return
		}
		rdb.Set(context.WithoutCancel(ctx), key, "done", time.Hour)
	}()
	return nil
}

// A goroutine that does not touch the key hands nothing on.
func goroutineElsewhere(ctx context.Context, rdb *redis.Client, id string) error {
	key := "dedup:" + id
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return nil
	}
	go work()
	return work() // want `error exit of SetNX`
}

// An unannotated lock helper from another package is a claim, released by
// the function it returns; a defer after an early return covers none.
func locked(ctx context.Context, locks *flowhelpers.Locks, id string) (string, error) {
	unlock, err := locks.Lock(ctx, id)
	if err != nil {
		return "", err
	}
	if err := work(); err != nil {
		return "", err // want `error exit of Lock, deferred nothing, responder true, lock true`
	}
	defer unlock()
	return "ok", work() // want `error exit of Lock, deferred released, responder true, lock true`
}

// A "seen" boolean whose true means done: the branch that returns at once
// is the already-done side, whatever the name.
func seenFirst(ctx context.Context, d *flowhelpers.Dedup, id string) error {
	marked, err := d.Seen(ctx, id)
	if err != nil {
		return err
	}
	if marked {
		return nil
	}
	return work() // want `error exit of Seen`
}

// And "ok" from a claim whose true means taken: the branch that works is
// the taken side.
func claimFirst(ctx context.Context, d *flowhelpers.Dedup, id string) error {
	flag, err := d.Claim(ctx, id)
	if err != nil {
		return err
	}
	if flag {
		if err := work(); err != nil {
			d.Forget(ctx, id)
			return err
		}
		return work() // want `error exit of Claim`
	}
	return nil
}

// HSETNX claims a hash field; HDEL gives it back, HSET completes it.
func hashClaim(ctx context.Context, rdb *redis.Client, order string) error {
	if !rdb.HSetNX(ctx, "idem:"+order, "status", "processing").Val() {
		return errBusy
	}
	if err := work(); err != nil {
		rdb.HDel(ctx, "idem:"+order, "status")
		return err
	}
	if err := work(); err != nil {
		return err // want `error exit of HSetNX`
	}
	return rdb.HSet(ctx, "idem:"+order, "status", "done").Err()
}

type IdempotencyKey struct {
	Key    string
	Status string
	Body   []byte
}

// A gorm Create of an in-progress row with OnConflict is a claim; its
// RowsAffected says whether it took the key, Updates of the row completes
// it.
func gormClaim(ctx context.Context, db *gorm.DB, key string) error {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&IdempotencyKey{Key: key, Status: "processing"})
	if res.Error != nil {
		return errBusy
	}
	if res.RowsAffected == 0 {
		return errBusy
	}
	if err := work(); err != nil {
		return err // want `error exit of Create of IdempotencyKey`
	}
	return db.Model(&IdempotencyKey{}).Where("key = ?", key).Updates(map[string]any{"status": "completed"}).Error
}

// An INSERT of an in-progress row, completed by a gorm Save of its model.
func sqlThenSave(ctx context.Context, db *sql.DB, g *gorm.DB, key string) error {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errors.New("duplicate")
	}
	row := IdempotencyKey{Key: key}
	row.Status = "completed"
	return g.Save(&row).Error
}

type reply struct{ code int }

func (r *reply) out(code int) { r.code = code }

// A net/http status constant of 400 or more answers a failure whatever
// the call; a bare number needs a writer or a name that answers.
func namedStatus(ctx context.Context, rdb *redis.Client, r *reply, id string) {
	if !rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Val() {
		return
	}
	if work() != nil {
		r.out(http.StatusBadGateway) // want `error exit of SetNX`
		return
	}
	r.out(502)
	rdb.Del(ctx, "idem:"+id)
}

func bareNumber(ctx context.Context, rdb *redis.Client, r *reply, id string) {
	if !rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Val() {
		return
	}
	r.out(502)
	return // want `answer exit of SetNX`
}

// A QueryRow claim's error comes from Scan: no rows means the key was
// taken before.
func queryRowClaim(ctx context.Context, db *sql.DB, key string) error {
	row := db.QueryRowContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING RETURNING key`, key)
	var got string
	err := row.Scan(&got)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `error exit of INSERT into idempotency_keys`
	}
	_, err = db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done', response = '{}' WHERE key = $1`, key)
	return err
}

func isDuplicate(err error) bool { return err != nil }

// A predicate true of the claim's error says the claim failed.
func uniqueClaim(ctx context.Context, db *sql.DB, key string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'pending')`, key)
	if isDuplicate(err) {
		return errBusy
	}
	if err != nil {
		return err
	}
	return work() // want `error exit of INSERT into idempotency_keys`
}

// Closing the rows a claim returned gives nothing back.
func rowsClaim(ctx context.Context, db *sql.DB, key string) error {
	rows, err := db.QueryContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING RETURNING key`, key)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return errBusy
	}
	return work() // want `error exit of INSERT into idempotency_keys, deferred nothing`
}

type lease struct{}

func (l *lease) Release() {}

func acquireLease(ctx context.Context, key string) (*lease, error) { return &lease{}, nil }

// A method of the claim's result that gives it back is a release.
//
//idemkit:claim
func takeLease(ctx context.Context, key string) (*lease, error) { return acquireLease(ctx, key) }

func leased(ctx context.Context, key string) error {
	l, err := takeLease(ctx, key)
	if err != nil {
		return err
	}
	defer l.Release()
	return work() // want `error exit of takeLease, deferred released`
}

type quote struct{ Price int }

func price() (*quote, error) { return &quote{}, nil }

// A function that must answer gives back nothing after a failed call,
// logged: a failing exit, though its error is nil.
func quoted(ctx context.Context, rdb *redis.Client, id string) (*quote, error) {
	if !rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Val() {
		return nil, errBusy
	}
	q, err := price()
	if err != nil {
		log.Printf("price %s: %v", id, err)
		return nil, nil // want `error exit of SetNX, deferred nothing, responder true`
	}
	return q, nil // want `answer exit of SetNX, deferred nothing, responder true`
}

// A fallback answer after a failed call is an answer.
func quotedFallback(ctx context.Context, rdb *redis.Client, id string) (*quote, error) {
	if !rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Val() {
		return nil, errBusy
	}
	q, err := price()
	if err != nil {
		return &quote{Price: 100}, nil // want `answer exit of SetNX, deferred nothing, responder true`
	}
	return q, nil // want `answer exit of SetNX, deferred nothing, responder true`
}
