package cacheresponse

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"
	"net/http"
	"time"

	"statushelpers"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// An HSETNX claim completed by an HSET of the status alone.
func (s *server) refundHash(ctx context.Context, id string) (*receipt, error) {
	if !s.rdb.HSetNX(ctx, "refund:"+id, "status", "processing").Val() {
		return nil, errInProgress
	}
	rc := &receipt{ID: "rf_1"}
	if err := s.rdb.HSet(ctx, "refund:"+id, "status", "done").Err(); err != nil { // want `HSET of "refund:" \+ id writes only status: it marks the key claimed by HSetNX at paths.go:20 completed without the response, so a retry cannot get back what this call answered; write the status code and the marshalled body with it \(cacheresponse\)`
		return nil, err
	}
	return rc, nil
}

type IdempotencyRecord struct {
	Key          string
	Status       string
	ResponseBody []byte
}

// A gorm row claimed, then set to completed with no response.
func (s *server) transferRow(ctx context.Context, db *gorm.DB, key string) (*receipt, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&IdempotencyRecord{Key: key, Status: "in_progress"})
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, errInProgress
	}
	rc := &receipt{ID: "t_1"}
	if err := db.Model(&IdempotencyRecord{}).Where("key = ?", key).Update("status", "completed").Error; err != nil { // want `Update of IdempotencyRecord sets the status and no response: it marks the key claimed by Create of IdempotencyRecord at paths.go:38 completed`
		return nil, err
	}
	return rc, nil
}

// An INSERT claim, then the row saved as done.
func (s *server) payout(ctx context.Context, db *sql.DB, g *gorm.DB, key string) (*receipt, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_records (key, status) VALUES ($1, 'processing') ON CONFLICT DO NOTHING`, key)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errInProgress
	}
	row := IdempotencyRecord{Key: key}
	row.Status = "done"
	if err := g.Save(&row).Error; err != nil { // want `Save of IdempotencyRecord sets the status and no response: it marks the key claimed by INSERT into idempotency_records at paths.go:54 completed`
		return nil, err
	}
	return &receipt{ID: "p_1"}, nil
}

// A helper from another package inferred to store a status alone.
func (s *server) capture(ctx context.Context, keys *statushelpers.Keys, key string) (*receipt, error) {
	ok, err := keys.Take(ctx, key)
	if err != nil || !ok {
		return nil, errInProgress
	}
	rc := &receipt{ID: "c_1"}
	if err := keys.MarkDone(ctx, key); err != nil { // want `MarkDone stores a status and no response: it marks the key claimed by Take at paths.go:71 completed`
		return nil, err
	}
	return rc, nil
}

// "seen" is true for a replay: its early return answers from elsewhere,
// and the path that does the work never stores the answer.
func (s *server) quoteSeen(ctx context.Context, keys *statushelpers.Keys, key string) (*receipt, error) {
	hit, err := keys.Seen(ctx, key)
	if err != nil {
		return nil, err
	}
	if hit {
		return nil, errInProgress
	}
	return &receipt{ID: "q_1"}, nil // want `this return answers without recording the response under the key claimed by Seen at paths.go:85`
}

// Negatives.

// A 400 after the claim is releaseonerror's, not this check's.
func (s *server) payRejected(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	if !s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Val() {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if r.ContentLength == 0 {
		http.Error(w, "empty body", http.StatusBadRequest)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		log.Printf("charge: %v", err)
		return
	}
	body, _ := json.Marshal(rc)
	s.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Write(body)
}

// A lock from a helper is released, never completed.
func (s *server) rebuildLocked(ctx context.Context, keys *statushelpers.Keys, id string) (*receipt, error) {
	unlock, err := keys.Lock(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return &receipt{ID: id}, nil
}

// The hash gets the response with the status.
func (s *server) refundHashStoring(ctx context.Context, id string) (*receipt, error) {
	if !s.rdb.HSetNX(ctx, "refund:"+id, "status", "processing").Val() {
		return nil, errInProgress
	}
	rc := &receipt{ID: "rf_2"}
	body, _ := json.Marshal(rc)
	if err := s.rdb.HSet(ctx, "refund:"+id, "status", "done", "response", body).Err(); err != nil {
		return nil, err
	}
	return rc, nil
}

// The row gets the response with the status.
func (s *server) transferRowStoring(ctx context.Context, db *gorm.DB, key string) (*receipt, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&IdempotencyRecord{Key: key, Status: "in_progress"})
	if res.Error != nil || res.RowsAffected == 0 {
		return nil, errInProgress
	}
	rc := &receipt{ID: "t_2"}
	body, _ := json.Marshal(rc)
	if err := db.Model(&IdempotencyRecord{}).Where("key = ?", key).Updates(map[string]any{"status": "completed", "response_body": body}).Error; err != nil {
		return nil, err
	}
	return rc, nil
}

// The helper that stores the response.
func (s *server) captureStoring(ctx context.Context, keys *statushelpers.Keys, key string) (*receipt, error) {
	ok, err := keys.Take(ctx, key)
	if err != nil || !ok {
		return nil, errInProgress
	}
	rc := &receipt{ID: "c_2"}
	body, _ := json.Marshal(rc)
	if err := keys.Store(ctx, key, body); err != nil {
		return nil, err
	}
	return rc, nil
}

// A consumer only succeeds or fails: a status is all it needs.
func settle(ctx context.Context, rdb *redis.Client, id string) error {
	if !rdb.HSetNX(ctx, "refund:"+id, "status", "processing").Val() {
		return nil
	}
	return rdb.HSet(ctx, "refund:"+id, "status", "done").Err()
}

// The work and its completion are handed to a goroutine.
func (s *server) async(ctx context.Context, keys *statushelpers.Keys, key string) (*receipt, error) {
	ok, err := keys.Take(ctx, key)
	if err != nil || !ok {
		return nil, errInProgress
	}
	rc := &receipt{ID: "a_1"}
	go func() {
		body, _ := json.Marshal(rc)
		keys.Store(context.WithoutCancel(ctx), key, body)
	}()
	return rc, nil
}

type upstream struct {
	Status int
	Body   []byte
}

func forward(ctx context.Context) (*upstream, error) { return &upstream{}, nil }

func encode(v any) []byte { b, _ := json.Marshal(v); return b }

// Whatever the upstream answered, 503s included, is stored.
func (s *server) relay(ctx context.Context, key string) (*upstream, error) {
	if !s.rdb.SetNX(ctx, "relay:"+key, "pending", 24*time.Hour).Val() {
		return nil, errInProgress
	}
	resp, err := forward(ctx)
	if err != nil {
		s.rdb.Del(ctx, "relay:"+key)
		return nil, err
	}
	s.rdb.Set(ctx, "relay:"+key, encode(resp), 24*time.Hour) // want `SET of "relay:" \+ key stores resp whatever its status, without a check for 5xx before it`
	return resp, nil
}

// Negative: a 5xx gives the key back.
func (s *server) relayChecked(ctx context.Context, key string) (*upstream, error) {
	if !s.rdb.SetNX(ctx, "relay:"+key, "pending", 24*time.Hour).Val() {
		return nil, errInProgress
	}
	resp, err := forward(ctx)
	if err != nil || resp.Status >= 500 {
		s.rdb.Del(ctx, "relay:"+key)
		return resp, err
	}
	s.rdb.Set(ctx, "relay:"+key, encode(resp), 24*time.Hour)
	return resp, nil
}

// The repository's SaveResponse takes the status: a 502 set on the
// failure path is stored with it.
type responses interface {
	Claim(ctx context.Context, key string) (bool, error)
	SaveResponse(ctx context.Context, key string, code int, body []byte) error
	Release(ctx context.Context, key string) error
}

func book(ctx context.Context) ([]byte, int, error) { return nil, 200, nil }

func shipment(w http.ResponseWriter, r *http.Request, repo responses) {
	key := r.Header.Get("Idempotency-Key")
	if ok, err := repo.Claim(r.Context(), key); err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	body, code, err := book(r.Context())
	if err != nil || code >= 500 {
		body, code = []byte(`{"error":"carrier unavailable"}`), http.StatusBadGateway
	}
	repo.SaveResponse(r.Context(), key, code, body) // want `SaveResponse stores the status code, set to 502 at paths.go:\d+`
	w.WriteHeader(code)
	w.Write(body)
}

// Negative: a 5xx releases the key; the stored status is 2xx or 4xx.
func shipmentReleasing(w http.ResponseWriter, r *http.Request, repo responses) {
	key := r.Header.Get("Idempotency-Key")
	if ok, err := repo.Claim(r.Context(), key); err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	body, code, err := book(r.Context())
	if err != nil || code >= 500 {
		repo.Release(context.WithoutCancel(r.Context()), key)
		http.Error(w, "carrier unavailable", http.StatusBadGateway)
		return
	}
	repo.SaveResponse(r.Context(), key, code, body)
	w.WriteHeader(code)
	w.Write(body)
}

// A cache behind an interface, completed with a flag.
type kv interface {
	SetNX(ctx context.Context, key, value string, ttl time.Duration) (bool, error)
	Set(ctx context.Context, key, value string, ttl time.Duration) error
}

func (s *server) transferFlag(ctx context.Context, cache kv, key string) (*receipt, error) {
	won, err := cache.SetNX(ctx, "idem:"+key, "pending", time.Hour)
	if err != nil || !won {
		return nil, errInProgress
	}
	rc := &receipt{ID: "t_3"}
	cache.Set(ctx, "idem:"+key, "done", time.Hour) // want `Set stores a status and no response: it marks the key claimed by SetNX at paths.go:\d+ completed`
	return rc, nil
}

// Negative: the same cache, given the encoded answer.
func (s *server) transferStored(ctx context.Context, cache kv, key string) (*receipt, error) {
	won, err := cache.SetNX(ctx, "idem:"+key, "pending", time.Hour)
	if err != nil || !won {
		return nil, errInProgress
	}
	rc := &receipt{ID: "t_4"}
	cache.Set(ctx, "idem:"+key, string(encode(rc)), time.Hour)
	return rc, nil
}
