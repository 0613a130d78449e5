// Package partialrelease holds idempotency middleware whose claim writes
// a lock and a pending record, and queue consumers that hand a claimed
// key to a goroutine.
package partialrelease

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrInProgress says another request holds the key.
var ErrInProgress = errors.New("request in progress")

// Storage keeps, under each idempotency key, a lock and the request's
// record.
type Storage interface {
	Get(ctx context.Context, key string) (*Record, error)
	Set(ctx context.Context, rec *Record, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
	TryLock(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Unlock(ctx context.Context, key string) error
}

// Record is what Storage keeps under a key.
type Record struct {
	Key        string
	Status     string
	StatusCode int
	Body       []byte
}

// Manager takes and settles idempotency keys for the middleware.
type Manager struct {
	store       Storage
	ttl         time.Duration
	lockTimeout time.Duration
}

// Lock takes the key's lock and writes a pending record beside it, so
// that a retry reads "in progress" until the response is stored.
func (m *Manager) Lock(ctx context.Context, key string) error {
	locked, err := m.store.TryLock(ctx, key, m.lockTimeout)
	if err != nil {
		return err
	}
	if !locked {
		return ErrInProgress
	}
	if err := m.store.Set(ctx, &Record{Key: key, Status: "pending"}, m.ttl); err != nil {
		_ = m.store.Unlock(ctx, key)
		return err
	}
	return nil
}

// Store keeps the response and gives back the lock.
func (m *Manager) Store(ctx context.Context, key string, code int, body []byte) error {
	if err := m.store.Set(ctx, &Record{Key: key, Status: "completed", StatusCode: code, Body: body}, m.ttl); err != nil {
		return err
	}
	return m.store.Unlock(ctx, key)
}

// Unlock gives back the lock.
func (m *Manager) Unlock(ctx context.Context, key string) error {
	return m.store.Unlock(ctx, key)
}

// Abandon deletes the pending record and gives back the lock.
func (m *Manager) Abandon(ctx context.Context, key string) error {
	if err := m.store.Delete(ctx, key); err != nil {
		return err
	}
	return m.store.Unlock(ctx, key)
}

type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(code int) { c.status = code; c.ResponseWriter.WriteHeader(code) }

func (c *capture) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// Idempotency stores 2xx and 4xx answers and, on a 5xx, unlocks the key
// so the client may retry: but Unlock frees only the lock, and the
// pending record Lock wrote beside it answers every retry 409 until its
// TTL.
//
// corpus: bug releaseonerror
// modelled on: fco-gt/gopotency middleware/http/middleware.go (Unlock on a 5xx leaves the pending record Manager.Lock wrote)
func Idempotency(m *Manager, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if err := m.Lock(r.Context(), key); err != nil {
			http.Error(w, "request already in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status < 500 {
			_ = m.Store(r.Context(), key, rec.status, rec.body.Bytes())
			return
		}
		_ = m.Unlock(r.Context(), key)
	})
}

// IdempotencyAbandoning deletes the pending record with the lock on a
// 5xx, so the retry runs.
//
// corpus: ok releaseonerror
// modelled on: fco-gt/gopotency middleware/http/middleware.go (the same middleware, releasing both records)
func IdempotencyAbandoning(m *Manager, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if err := m.Lock(r.Context(), key); err != nil {
			http.Error(w, "request already in progress", http.StatusConflict)
			return
		}
		rec := &capture{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status < 500 {
			_ = m.Store(r.Context(), key, rec.status, rec.body.Bytes())
			return
		}
		_ = m.Abandon(r.Context(), key)
	})
}

// Message is a queued notification.
type Message struct {
	ID, To, Text string
}

// Notifier sends queued notifications once.
type Notifier struct {
	rdb  *redis.Client
	send func(ctx context.Context, to, text string) error
	log  *slog.Logger
}

// Consume claims the message and sends it in the background; the
// goroutine marks the key done when the send works and only logs when it
// fails, so the redelivered message is dropped as in progress for a day.
//
// corpus: bug releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis-backed work handed off to a goroutine)
func (n *Notifier) Consume(ctx context.Context, msg Message) {
	key := "notify:" + msg.ID
	ok, _ := n.rdb.SetNX(ctx, key, "processing", 24*time.Hour).Result()
	if !ok {
		return
	}
	go func() {
		bg := context.WithoutCancel(ctx)
		if err := n.send(bg, msg.To, msg.Text); err != nil {
			n.log.Error("notify", "id", msg.ID, "err", err)
			return
		}
		n.rdb.Set(bg, key, "done", 24*time.Hour)
	}()
}

// ConsumeReleasing deletes the key when the background send fails.
//
// corpus: ok releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis-backed work handed off to a goroutine)
func (n *Notifier) ConsumeReleasing(ctx context.Context, msg Message) {
	key := "notify:" + msg.ID
	ok, _ := n.rdb.SetNX(ctx, key, "processing", 24*time.Hour).Result()
	if !ok {
		return
	}
	go func() {
		bg := context.WithoutCancel(ctx)
		if err := n.send(bg, msg.To, msg.Text); err != nil {
			n.log.Error("notify", "id", msg.ID, "err", err)
			n.rdb.Del(bg, key)
			return
		}
		n.rdb.Set(bg, key, "done", 24*time.Hour)
	}()
}

// Dispatch claims the message and hands it to deliver, which marks it
// done on success and returns on a failure with the key held.
//
// corpus: bug releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis-backed work handed off to a goroutine)
func (n *Notifier) Dispatch(ctx context.Context, msg Message) error {
	ok, err := n.rdb.SetNX(ctx, "notify:"+msg.ID, "processing", 24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	go n.deliver(context.WithoutCancel(ctx), msg)
	return nil
}

func (n *Notifier) deliver(ctx context.Context, msg Message) {
	if err := n.send(ctx, msg.To, msg.Text); err != nil {
		n.log.Error("deliver", "id", msg.ID, "err", err)
		return
	}
	n.rdb.Set(ctx, "notify:"+msg.ID, "done", 24*time.Hour)
}

// DispatchReleasing hands the message to deliverReleasing, which deletes
// the key when the send fails.
//
// corpus: ok releaseonerror
// modelled on: rfyiamcool/redis_unique_queue README.md (redis-backed work handed off to a goroutine)
func (n *Notifier) DispatchReleasing(ctx context.Context, msg Message) error {
	ok, err := n.rdb.SetNX(ctx, "notify:"+msg.ID, "processing", 24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	go n.deliverReleasing(context.WithoutCancel(ctx), msg)
	return nil
}

func (n *Notifier) deliverReleasing(ctx context.Context, msg Message) {
	if err := n.send(ctx, msg.To, msg.Text); err != nil {
		n.log.Error("deliver", "id", msg.ID, "err", err)
		n.rdb.Del(ctx, "notify:"+msg.ID)
		return
	}
	n.rdb.Set(ctx, "notify:"+msg.ID, "done", 24*time.Hour)
}
