// Package consumer holds the queue consumers: SQS through aws-sdk-go-v2,
// NATS JetStream through nats.go, and handlers written against a small
// Broker interface. Every queue here delivers at least once.
package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Message is a delivery as the Broker interface hands it to a handler.
type Message struct {
	ID      string
	Subject string
	Body    []byte
	Attempt int
}

// Handler handles one delivery; an error asks the broker to redeliver.
type Handler func(ctx context.Context, m Message) error

// Broker is what handlers publish and subscribe through, whatever the queue
// underneath.
type Broker interface {
	Publish(ctx context.Context, subject string, m Message) error
	Subscribe(subject string, h Handler) error
}

// OrderPlaced is the event the shop publishes when an order is paid.
type OrderPlaced struct {
	OrderID    string `json:"order_id"`
	CustomerID string `json:"customer_id"`
	Cents      int64  `json:"cents"`
	Version    int    `json:"version"`
}

// Shipment is a parcel created for an order.
type Shipment struct {
	ID        string
	OrderID   string
	CreatedAt time.Time
}

// Fulfilment books parcels with the carrier; each call books another.
type Fulfilment interface {
	Book(ctx context.Context, s Shipment) error
}

// Wallet credits loyalty points; each call credits again.
type Wallet interface {
	Credit(ctx context.Context, customerID string, points int64) error
}

// Mailer sends transactional mail; each call sends another.
type Mailer interface {
	Send(ctx context.Context, to, template string, data any) error
}

// Processed records handled message IDs in Redis.
type Processed struct {
	rdb *redis.Client
}

// NewProcessed returns a Processed on rdb.
func NewProcessed(rdb *redis.Client) *Processed { return &Processed{rdb: rdb} }

// Seen reports whether id was marked.
func (p *Processed) Seen(ctx context.Context, id string) (bool, error) {
	n, err := p.rdb.Exists(ctx, "consumed:"+id).Result()
	return n > 0, err
}

// Mark marks id as handled.
func (p *Processed) Mark(ctx context.Context, id string) error {
	return p.rdb.Set(ctx, "consumed:"+id, time.Now().Unix(), 14*24*time.Hour).Err()
}

// Claim marks id unless it was marked, and reports whether this call did.
func (p *Processed) Claim(ctx context.Context, id string) (bool, error) {
	return p.rdb.SetNX(ctx, "consumed:"+id, time.Now().Unix(), 14*24*time.Hour).Result()
}

// Unclaim removes the mark, so a redelivery handles id again.
func (p *Processed) Unclaim(ctx context.Context, id string) error {
	return p.rdb.Del(context.WithoutCancel(ctx), "consumed:"+id).Err()
}

var errBadPayload = errors.New("consumer: bad payload")

func decodeOrder(body []byte) (OrderPlaced, error) {
	var ev OrderPlaced
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, errors.Join(errBadPayload, err)
	}
	return ev, nil
}
