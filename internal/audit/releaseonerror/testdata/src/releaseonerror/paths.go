package releaseonerror

import (
	"context"
	"log"
	"net/http"
	"time"

	"keyhelpers"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// A 4xx answer after the claim leaves it held as a 5xx does.
func (s *server) payValidated(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Val() {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if r.ContentLength == 0 {
		http.Error(w, "empty body", http.StatusBadRequest) // want `this 400 response leaves the key claimed by SetNX at paths.go:19 held`
		return
	}
	s.rdb.Set(r.Context(), key, `{"status":201}`, 24*time.Hour)
	w.WriteHeader(http.StatusCreated)
}

func writeError(w http.ResponseWriter, err error) { http.Error(w, err.Error(), http.StatusBadGateway) }

// A helper given the writer and the error answers the failure.
func (s *server) payHelper(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Val() {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if _, err := s.charge(r); err != nil {
		writeError(w, err) // want `this error response leaves the key claimed by SetNX at paths.go:36 held`
		return
	}
	s.rdb.Set(r.Context(), key, `{"status":200}`, 24*time.Hour)
	w.WriteHeader(http.StatusOK)
}

// A consumer with no error to return logs the failure and leaves.
func consumeLogged(ctx context.Context, rdb *redis.Client, id string) {
	if !rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Val() {
		return
	}
	if err := send(ctx, id); err != nil {
		log.Printf("message %s: %v", id, err)
		return // want `this error return leaves the key claimed by SetNX at paths.go:50 held`
	}
	rdb.Set(ctx, "dedup:"+id, "done", time.Hour)
}

// The release is deferred only after an early return.
func releaseDeferredLate(ctx context.Context, rdb *redis.Client, id string) error {
	ok, err := rdb.SetNX(ctx, "job:"+id, 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := validate(id); err != nil {
		return err // want `this error return leaves the key claimed by SetNX at paths.go:62 held`
	}
	defer rdb.Del(ctx, "job:"+id)
	return send(ctx, id)
}

// A lock helper from another package, known by its body: its unlock is
// deferred after a return that needs it.
func lockedLate(ctx context.Context, locks *keyhelpers.Locks, id string) error {
	unlock, err := locks.Lock(ctx, id)
	if err != nil {
		return err
	}
	if err := validate(id); err != nil {
		return err // want `this error return leaves the key claimed by Lock at paths.go:76 held: .* defer the function Lock returns right after the claim succeeds`
	}
	defer unlock()
	return send(ctx, id)
}

// A claim helper from another package, known by its body.
func takeAndSend(ctx context.Context, d *keyhelpers.Dedup, id string) error {
	ok, err := d.Take(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Take at paths.go:89 held: .* defer Forget right after the claim`
	}
	return nil
}

// "seen" is true when the message was handled before: the early return
// on it takes nothing, and the work after it does hold the key.
func handleSeen(ctx context.Context, d *keyhelpers.Dedup, id string) error {
	seen, err := d.Seen(ctx, id)
	if err != nil {
		return err
	}
	if seen {
		return errDuplicate
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Seen at paths.go:102 held`
	}
	return nil
}

// HSETNX claims a field of the order's hash.
func hashStep(ctx context.Context, rdb *redis.Client, order string) error {
	if !rdb.HSetNX(ctx, "orders:"+order, "charge", "processing").Val() {
		return errBusy
	}
	if err := send(ctx, order); err != nil {
		return err // want `this error return leaves the key claimed by HSetNX at paths.go:117 held`
	}
	return rdb.HSet(ctx, "orders:"+order, "charge", "done").Err()
}

type IdempotencyKey struct {
	Key      string
	Status   string
	Response []byte
}

// A gorm Create of an in-progress row, with OnConflict, claims it.
func gormReserve(ctx context.Context, db *gorm.DB, key string) error {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&IdempotencyKey{Key: key, Status: "pending"})
	if res.Error != nil {
		return errBusy
	}
	if res.RowsAffected == 0 {
		return errDuplicate
	}
	if err := ship(ctx, key); err != nil {
		return err // want `this error return leaves the key claimed by Create of IdempotencyKey at paths.go:134 held`
	}
	return db.Model(&IdempotencyKey{}).Where("key = ?", key).Updates(map[string]any{"status": "completed", "response": "{}"}).Error
}

// Negatives.

// A local closure gives the key back on every failure.
func closureEverywhere(ctx context.Context, rdb *redis.Client, id string) error {
	key := "dedup:" + id
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return nil
	}
	release := func() { rdb.Del(context.WithoutCancel(ctx), key) }
	if err := validate(id); err != nil {
		release()
		return err
	}
	if err := send(ctx, id); err != nil {
		release()
		return err
	}
	return rdb.Set(ctx, key, "done", time.Hour).Err()
}

// A deferred func literal gives it back on failure.
func deferredLiteral(ctx context.Context, rdb *redis.Client, id string) (err error) {
	if !rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Val() {
		return nil
	}
	defer func() {
		if err != nil {
			rdb.Del(context.WithoutCancel(ctx), "dedup:"+id)
		}
	}()
	return send(ctx, id)
}

// The work runs in a goroutine that releases or completes the key.
func background(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Val() {
		return errBusy
	}
	go func() {
		bg := context.WithoutCancel(ctx)
		if err := send(bg, id); err != nil {
			rdb.Del(bg, "dedup:"+id)
			return
		}
		rdb.Set(bg, "dedup:"+id, "done", time.Hour)
	}()
	return validate(id)
}

// The inferred release helper from another package gives the key back.
func takeAndForget(ctx context.Context, d *keyhelpers.Dedup, id string) error {
	ok, err := d.Take(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		d.Forget(ctx, id)
		return err
	}
	return nil
}

// A duplicate answered with an error took nothing: the side that returns
// at once, whatever the boolean's name.
func duplicateRefused(ctx context.Context, d *keyhelpers.Dedup, id string) error {
	again, err := d.Seen(ctx, id)
	if err != nil {
		return err
	}
	if again {
		log.Printf("duplicate %s", id)
		return errDuplicate
	}
	if err := send(ctx, id); err != nil {
		d.Forget(ctx, id)
		return err
	}
	return nil
}

// The unlock is deferred before any other return.
func lockedEarly(ctx context.Context, locks *keyhelpers.Locks, id string) error {
	unlock, err := locks.Lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	if err := validate(id); err != nil {
		return err
	}
	return send(ctx, id)
}

// The claim's own failure, in a consumer with no error to return.
func consumeClaimFailed(ctx context.Context, rdb *redis.Client, id string) {
	ok, err := rdb.SetNX(ctx, "dedup:"+id, "processing", time.Hour).Result()
	if err != nil {
		log.Printf("claim %s: %v", id, err)
		return
	}
	if !ok {
		return
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "dedup:"+id)
		return
	}
	rdb.Set(ctx, "dedup:"+id, "done", time.Hour)
}

// A cooldown is meant to outlive a failure, even when its key is built
// into a variable first.
func sendReset(ctx context.Context, rdb *redis.Client, email string) error {
	key := "cooldown:reset:" + email
	ok, err := rdb.SetNX(ctx, key, 1, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	return send(ctx, email)
}

// A gorm Create of an in-progress row into a key model: its unique key
// refuses the second.
func gormUnique(ctx context.Context, db *gorm.DB, key string) error {
	if err := db.WithContext(ctx).Create(&IdempotencyKey{Key: key, Status: "in_progress"}).Error; err != nil {
		return errDuplicate
	}
	if err := ship(ctx, key); err != nil {
		return err // want `this error return leaves the key claimed by Create of IdempotencyKey at paths.go:\d+ held`
	}
	return db.Model(&IdempotencyKey{}).Where("key = ?", key).Updates(map[string]any{"status": "completed", "response": "{}"}).Error
}

type Shipment struct {
	ID     string
	Status string
}

// An order row created pending is the business record, not a claim.
func createShipment(ctx context.Context, db *gorm.DB, id string) error {
	if err := db.WithContext(ctx).Create(&Shipment{ID: id, Status: "pending"}).Error; err != nil {
		return err
	}
	return ship(ctx, id)
}

// SADD's count says whether the member is new: 0 means handled before.
func handleOnce(ctx context.Context, rdb *redis.Client, id string) error {
	added, err := rdb.SAdd(ctx, "processed", id).Result()
	if err != nil {
		return err
	}
	if added == 0 {
		return errDuplicate
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SAdd at paths.go:\d+ held`
	}
	return nil
}

// Negative: SREM gives the member back; and an SADD whose count is not
// read only adds to a set.
func handleOnceReleasing(ctx context.Context, rdb *redis.Client, id string) error {
	if rdb.SAdd(ctx, "processed", id).Val() == 0 {
		return nil
	}
	if err := send(ctx, id); err != nil {
		rdb.SRem(ctx, "processed", id)
		return err
	}
	return nil
}

func tag(ctx context.Context, rdb *redis.Client, id, label string) error {
	if err := rdb.SAdd(ctx, "labels:"+id, label).Err(); err != nil {
		return err
	}
	return send(ctx, id)
}

// SetNX's error alone is nil whether or not it set the key: a retry goes
// through, nothing is held.
func touchThenSend(ctx context.Context, rdb *redis.Client, id string) error {
	if err := rdb.SetNX(ctx, "touched:"+id, 1, time.Hour).Err(); err != nil {
		return err
	}
	return send(ctx, id)
}
