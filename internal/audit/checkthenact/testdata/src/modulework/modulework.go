// Package modulework holds check-then-acts on a processed-marker whose
// guarded work runs behind an interface this module declares, with no
// name that marks the record as a dedup record.
package modulework

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"example.org/broker"
)

type Message struct {
	ID   string
	Body []byte
}

// Processor does a message's work; its implementations live elsewhere.
type Processor interface {
	Process(ctx context.Context, m Message) error
}

// Metrics and Logger are this module's own, and run no work.
type Metrics interface {
	Inc(name string)
	Observe(name string, v float64)
}

type Logger interface {
	Info(msg string, args ...any)
}

type Tracer interface {
	Start(ctx context.Context, name string) (context.Context, func())
}

type Consumer struct {
	rdb     *redis.Client
	p       Processor
	metrics Metrics
	log     Logger
	tracer  Tracer
}

// Two concurrent deliveries both pass EXISTS and both run Process.
func (c *Consumer) Handle(ctx context.Context, m Message) error {
	n, err := c.rdb.Exists(ctx, "msg:"+m.ID).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := c.p.Process(ctx, m); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "msg:"+m.ID, 1, 24*time.Hour).Err() // want `SET of "msg:" \+ m.ID after the EXISTS at modulework.go:52 races`
}

// The processor's method taken as a method value first: the same work.
func (c *Consumer) HandleMethodValue(ctx context.Context, m Message) error {
	process := c.p.Process
	n, err := c.rdb.Exists(ctx, "msg:"+m.ID).Result()
	if err != nil || n > 0 {
		return err
	}
	if err := process(ctx, m); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "msg:"+m.ID, 1, 24*time.Hour).Err() // want `SET of "msg:" \+ m.ID after the EXISTS at modulework.go:68 races`
}

// Embedded is a consumer whose processor is embedded: c.Process is the
// interface's method, promoted.
type Embedded struct {
	Processor
	rdb *redis.Client
}

func (c *Embedded) Handle(ctx context.Context, m Message) error {
	n, err := c.rdb.Exists(ctx, "msg:"+m.ID).Result()
	if err != nil || n > 0 {
		return err
	}
	if err := c.Process(ctx, m); err != nil {
		return err
	}
	return c.rdb.Set(ctx, "msg:"+m.ID, 1, 24*time.Hour).Err() // want `SET of "msg:" \+ m.ID after the EXISTS at modulework.go:86 races`
}

// Fulfiller fulfils an order: its name says nothing of what it does.
type Fulfiller interface {
	Fulfil(ctx context.Context, orderID string) error
	Process(ctx context.Context, orderID string) error
}

// GET of a mark, redis.Nil, the work, then the time stored as the mark:
// two retries both process the order.
func receipt(ctx context.Context, rdb redis.Cmdable, ff Fulfiller, orderID string) error {
	_, err := rdb.Get(ctx, "receipt:"+orderID).Result()
	if err == nil {
		return nil
	}
	if !errors.Is(err, redis.Nil) {
		return err
	}
	if err := ff.Process(ctx, orderID); err != nil {
		return err
	}
	return rdb.Set(ctx, "receipt:"+orderID, time.Now().Unix(), 0).Err() // want `SET of "receipt:" \+ orderID after the GET at modulework.go:105 races`
}

// HGET of a field, the work, HSET of "1".
func receiptHash(ctx context.Context, rdb *redis.Client, ff Fulfiller, orderID string) error {
	if v, _ := rdb.HGet(ctx, "receipts", orderID).Result(); v != "" {
		return nil
	}
	if err := ff.Process(ctx, orderID); err != nil {
		return err
	}
	return rdb.HSet(ctx, "receipts", orderID, "1").Err() // want `HSET of "receipts" after the HGET at modulework.go:120 races`
}

// Shipper books a shipment; its implementation calls a carrier.
type Shipper interface {
	Book(ctx context.Context, orderID string) error
}

// A SELECT of whether the order shipped, the booking, an INSERT of the
// mark: two retries both book. (An INSERT after its SELECT is reported
// whatever runs between.)
func ship(ctx context.Context, db *sql.DB, s Shipper, orderID string) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM shipments WHERE order_id = $1`, orderID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := s.Book(ctx, orderID); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `INSERT INTO shipments (order_id, booked_at) VALUES ($1, now())`, orderID) // want `INSERT into shipments after the SELECT at modulework.go:139 races`
	return err
}

// The asynq memo: the call between goes through a dependency's
// interface, whose work (a SADD in asynq) is the library's and is
// idempotent.
type Publisher struct {
	registry  broker.Registry
	published sync.Map
}

func (r *Publisher) Enqueue(ctx context.Context, qname string) {
	if _, ok := r.published.Load(qname); !ok {
		r.registry.Register(ctx, qname)
		r.published.Store(qname, true)
	}
}

// The same memo in Redis.
func announce(ctx context.Context, rdb *redis.Client, reg broker.Registry, qname string) error {
	if n, _ := rdb.Exists(ctx, "queue:"+qname).Result(); n > 0 {
		return nil
	}
	if err := reg.Register(ctx, qname); err != nil {
		return err
	}
	return rdb.Set(ctx, "queue:"+qname, 1, 0).Err()
}

// Loader loads a profile from the system of record.
type Loader interface {
	Load(ctx context.Context, id string) (string, error)
	Render(ctx context.Context, id string) (string, error)
	Validate(ctx context.Context, id string) error
}

// A read-through cache: what is stored is what the loader returned, the
// same whoever fills it.
func profile(ctx context.Context, rdb *redis.Client, l Loader, id string) (string, error) {
	if v, err := rdb.Get(ctx, "profile:"+id).Result(); err == nil {
		return v, nil
	}
	v, err := l.Render(ctx, id)
	if err != nil {
		return "", err
	}
	return v, rdb.Set(ctx, "profile:"+id, v, time.Minute).Err()
}

// A mark after a getter and a check of this module's: reads, not work.
func verify(ctx context.Context, rdb *redis.Client, l Loader, id string) error {
	if n, _ := rdb.Exists(ctx, "verified:"+id).Result(); n > 0 {
		return nil
	}
	if _, err := l.Load(ctx, id); err != nil {
		return err
	}
	if err := l.Validate(ctx, id); err != nil {
		return err
	}
	return rdb.Set(ctx, "verified:"+id, 1, time.Minute).Err()
}

// A mark after a logger's, a meter's and a tracer's calls only.
func (c *Consumer) Note(ctx context.Context, m Message) error {
	n, err := c.rdb.Exists(ctx, "note:"+m.ID).Result()
	if err != nil || n > 0 {
		return err
	}
	ctx, end := c.tracer.Start(ctx, "note")
	defer end()
	c.metrics.Inc("notes")
	c.metrics.Observe("note_size", float64(len(m.Body)))
	c.log.Info("noted", "id", m.ID)
	return c.rdb.Set(ctx, "note:"+m.ID, 1, time.Hour).Err()
}

// Double-checked under a lock: the second check and the mark are one
// step to every caller.
type Local struct {
	mu   sync.Mutex
	done map[string]bool
	p    Processor
}

func (l *Local) Handle(ctx context.Context, m Message) error {
	l.mu.Lock()
	if l.done[m.ID] {
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done[m.ID] {
		return nil
	}
	if err := l.p.Process(ctx, m); err != nil {
		return err
	}
	l.done[m.ID] = true
	return nil
}

// The claim comes first: SETNX is the check.
func (c *Consumer) HandleClaimed(ctx context.Context, m Message) error {
	ok, err := c.rdb.SetNX(ctx, "msg:"+m.ID, 1, 24*time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return c.p.Process(ctx, m)
}
