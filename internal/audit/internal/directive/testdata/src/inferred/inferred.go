// Package inferred holds a user's key helpers without directives, known
// by their bodies.
package inferred

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

var ErrTaken = errors.New("taken")

type Dedup struct {
	rdb *redis.Client
	db  *sql.DB
}

// Take only reports whether it took the key.
func (d *Dedup) Take(ctx context.Context, id string) (bool, error) { // want Take:"inferred claim of parameter 1"
	key := "dedup:" + id
	ok, err := d.rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if err != nil {
		return false, fmt.Errorf("take %s: %w", id, err)
	}
	return ok, nil
}

// TakeField claims a hash field and answers with an error.
func (d *Dedup) TakeField(ctx context.Context, order, step string) error { // want TakeField:"inferred claim of parameter 1"
	if !d.rdb.HSetNX(ctx, "steps:"+order, step, "running").Val() {
		return ErrTaken
	}
	return nil
}

// Reserve claims a row.
func (d *Dedup) Reserve(ctx context.Context, key string) (int64, error) { // want Reserve:"inferred claim of parameter 1 in idempotency_keys"
	res, err := d.db.ExecContext(ctx, `INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Lock returns its release.
func (d *Dedup) Lock(ctx context.Context, name string) (func(), error) { // want Lock:"inferred claim of parameter 1, a lock, returning its release"
	key := "lock:" + name
	if !d.rdb.SetNX(ctx, key, 1, time.Minute).Val() {
		return nil, ErrTaken
	}
	return func() { d.rdb.Del(context.WithoutCancel(ctx), key) }, nil
}

// Mutex is a lock from a library the checks do not know.
type Mutex interface{ Unlock() error }

type Locker interface {
	Obtain(key string) (Mutex, error)
}

// Acquire takes a key and returns the function that gives it back.
func Acquire(l Locker, key string) (release func() error, err error) { // want Acquire:"inferred claim of parameter 1, a lock, returning its release"
	m, err := l.Obtain(key)
	if err != nil {
		return nil, err
	}
	return m.Unlock, nil
}

// Forget deletes a key from its parameter.
func (d *Dedup) Forget(ctx context.Context, id string) error { // want Forget:"inferred release of parameter 1"
	return d.rdb.Del(ctx, "dedup:"+id).Err()
}

// Done writes one.
func (d *Dedup) Done(ctx context.Context, id string, body []byte) error { // want Done:"inferred complete of parameter 1$"
	return d.rdb.Set(ctx, "dedup:"+id, body, 24*time.Hour).Err()
}

// MarkDone writes a status and no response.
func (d *Dedup) MarkDone(ctx context.Context, id string) error { // want MarkDone:"inferred complete of parameter 1, status only"
	return d.rdb.HSet(ctx, "dedup:"+id, "status", "done").Err()
}

// Finish updates the row, or deletes it on failure.
func (d *Dedup) Finish(ctx context.Context, key string, failed bool) error { // want Finish:"inferred release.complete of parameter 1 in idempotency_keys, status only"
	if failed {
		_, err := d.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE key = $1`, key)
		return err
	}
	_, err := d.db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done' WHERE key = $1`, key)
	return err
}

// TakeAgain wraps Take: a claim through a claim.
func TakeAgain(ctx context.Context, d *Dedup, id string) (bool, error) { // want TakeAgain:"inferred claim of parameter 2"
	return d.Take(ctx, id)
}

// Look-alikes.

// Process claims and then does the work: not a helper that only claims.
func (d *Dedup) Process(ctx context.Context, id string) error {
	ok, err := d.rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return send(ctx, id)
}

func send(ctx context.Context, id string) error { return nil }

// Once claims and releases: its own business.
func (d *Dedup) Once(ctx context.Context, id string) error {
	if !d.rdb.SetNX(ctx, "lock:"+id, 1, time.Minute).Val() {
		return ErrTaken
	}
	defer d.rdb.Del(ctx, "lock:"+id)
	return nil
}

// Purge deletes a constant key, from no parameter.
func (d *Dedup) Purge(ctx context.Context) error {
	return d.rdb.Del(ctx, "dedup:all").Err()
}

// Renew extends a claim's lease: no completion.
func (d *Dedup) Renew(ctx context.Context, id string) error {
	return d.rdb.Set(ctx, "dedup:"+id, "processing", time.Hour).Err()
}

// Lease claims and returns a struct: the caller may do anything with it.
func (d *Dedup) Lease(ctx context.Context, id string) (*time.Time, error) {
	if !d.rdb.SetNX(ctx, "dedup:"+id, 1, time.Hour).Val() {
		return nil, ErrTaken
	}
	t := time.Now()
	return &t, nil
}

// Handler returns a func but claims nothing and is named for no lock.
func Handler(name string) func() error { return func() error { return nil } }

// Explicit wins: a directive says release although the body writes.
//
//idemkit:release
func (d *Dedup) Drop(ctx context.Context, id string) error { // want Drop:"idemkit:release"
	return d.rdb.Set(ctx, "dedup:"+id, "gone", time.Minute).Err()
}

// Repo is a repository behind an interface: its methods' names and
// signatures stand in for the bodies go vet cannot see.
type Repo interface {
	Claim(ctx context.Context, key, fingerprint string) (bool, error)          // want Claim:"inferred claim of parameter 1$"
	TryMark(ctx context.Context, id string) (bool, error)                      // want TryMark:"inferred claim of parameter 1$"
	Lock(ctx context.Context, name string) (func(), error)                     // want Lock:"inferred claim of parameter 1, a lock, returning its release"
	Release(ctx context.Context, key string) error                             // want Release:"inferred release of parameter 1"
	MarkCompleted(ctx context.Context, key string) error                       // want MarkCompleted:"inferred complete of parameter 1, status only"
	SaveResponse(ctx context.Context, key string, code int, body []byte) error // want SaveResponse:"inferred complete of parameter 1$"
	Set(ctx context.Context, key, value string, ttl time.Duration) error       // want Set:"inferred complete of parameter 1$"
	AbandonRequest(ctx context.Context, key string) error                      // want AbandonRequest:"inferred release of parameter 1"
	DropKey(ctx context.Context, key string) error                             // want DropKey:"inferred release of parameter 1"
	CacheResponse(ctx context.Context, key string, body []byte) error          // want CacheResponse:"inferred complete of parameter 1$"
	StoreResult(ctx context.Context, r Reply) error                            // want StoreResult:"inferred complete of parameter 1$"

	// Look-alikes: a lookup, a Begin that answers no bool, a method
	// taking no key.
	Lookup(ctx context.Context, key string) ([]byte, error)
	Begin(ctx context.Context, id string) error
	Close() error
	SaveNote(ctx context.Context, n Note) error
}

// Reply is a response kept with the key it answers.
type Reply struct {
	IdempotencyKey string
	Status         int
	Body           []byte
}

// Note carries no key of its own.
type Note struct {
	Text string
}

// Orders is a business repository: its writes name records, not keys.
type Orders interface {
	SaveOrder(ctx context.Context, id, status string) error
	DeleteDraft(ctx context.Context, id string) error
	ReserveStock(ctx context.Context, sku string) (bool, error)
}

// Touch sets a marker and drops SetNX's answer: its error is nil whether
// or not the key was set, so it claims nothing.
func (d *Dedup) Touch(ctx context.Context, id string) error {
	return d.rdb.SetNX(ctx, "touched:"+id, 1, time.Hour).Err()
}

// StartImport claims a file with a status naming the activity under way.
func (d *Dedup) StartImport(ctx context.Context, fileID string) (int64, error) { // want StartImport:"inferred claim of parameter 1 in imports"
	res, err := d.db.ExecContext(ctx, `INSERT INTO imports (file_id, status) VALUES ($1, 'importing') ON CONFLICT (file_id) DO NOTHING`, fileID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// AddShipment records an order row whose status is a state, not an
// activity under way: no claim.
func (d *Dedup) AddShipment(ctx context.Context, id string) (int64, error) {
	res, err := d.db.ExecContext(ctx, `INSERT INTO shipments (id, status) VALUES ($1, 'shipping') ON CONFLICT (id) DO NOTHING`, id)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// StartRequest claims a key with a row whose finished column is false.
func (d *Dedup) StartRequest(ctx context.Context, key string) (int64, error) { // want StartRequest:"inferred claim of parameter 1 in requests"
	res, err := d.db.ExecContext(ctx, `INSERT INTO requests (request_key, finished) VALUES ($1, false) ON CONFLICT (request_key) DO NOTHING`, key)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// AddFinished records a row that is done already: no claim.
func (d *Dedup) AddFinished(ctx context.Context, key string) (int64, error) {
	res, err := d.db.ExecContext(ctx, `INSERT INTO requests (request_key, finished) VALUES ($1, true) ON CONFLICT (request_key) DO NOTHING`, key)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
