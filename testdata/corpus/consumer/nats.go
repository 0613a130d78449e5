package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v4"
	gofrsuuid "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
)

// OrderStream publishes order events to JetStream and consumes them.
type OrderStream struct {
	js         nats.JetStreamContext
	fulfilment Fulfilment
	processed  *Processed
	log        *slog.Logger
}

const publishAttempts = 4

// PublishPlaced publishes an order event and retries when JetStream does not
// acknowledge it. Each attempt gets a new Nats-Msg-Id, so when the first
// publish was stored but its ack was lost the stream keeps two copies.
//
// corpus: bug attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publish with acknowledgement and a Msg-Id for deduplication)
func (o *OrderStream) PublishPlaced(ctx context.Context, ev OrderPlaced) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		msgID := ulid.Make().String()
		_, err = o.js.Publish("orders.placed", data, nats.MsgId(msgID), nats.Context(ctx))
		if err == nil || attempt == publishAttempts {
			return err
		}
		o.log.Warn("publish order placed", "order", ev.OrderID, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
}

// PublishPlacedStable derives the Nats-Msg-Id from the order and its
// version, the same on every attempt, so JetStream drops the copies.
//
// corpus: ok attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (exactly-once publishing via JetStream deduplication headers)
func (o *OrderStream) PublishPlacedStable(ctx context.Context, ev OrderPlaced) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		msgID := ev.OrderID + ":" + strconv.Itoa(ev.Version)
		_, err = o.js.Publish("orders.placed", data, nats.MsgId(msgID), nats.Context(ctx))
		if err == nil || attempt == publishAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
}

// RelayToShipping copies each delivery of orders.placed onto the shipping
// stream. Its Nats-Msg-Id header is stamped from the clock per delivery, so
// a redelivery (the ack was lost) is stored on the shipping stream again.
//
// corpus: bug attemptkey
// modelled on: grafana/loki vendor/github.com/nats-io/nats.go/jetstream/README.md (consume messages in a callback and publish on a stream)
func (o *OrderStream) RelayToShipping(m *nats.Msg) {
	out := nats.NewMsg("shipping.requested")
	out.Data = m.Data
	out.Header.Set(nats.MsgIdHdr, "ship-"+strconv.FormatInt(time.Now().UnixNano(), 10))
	if _, err := o.js.PublishMsg(out); err != nil {
		o.log.Warn("relay to shipping", "err", err)
		m.Nak()
		return
	}
	m.Ack()
}

// RelayToShippingByMeta stamps the Nats-Msg-Id from the source message's
// stream sequence, which every redelivery carries.
//
// corpus: ok attemptkey
// modelled on: grafana/loki vendor/github.com/nats-io/nats.go/jetstream/README.md (message metadata and publish on a stream)
func (o *OrderStream) RelayToShippingByMeta(m *nats.Msg) {
	meta, err := m.Metadata()
	if err != nil {
		m.Term()
		return
	}
	out := nats.NewMsg("shipping.requested")
	out.Data = m.Data
	out.Header.Set(nats.MsgIdHdr, fmt.Sprintf("ship-%s-%d", meta.Stream, meta.Sequence.Stream))
	if _, err := o.js.PublishMsg(out); err != nil {
		m.Nak()
		return
	}
	m.Ack()
}

// BookShipment books a parcel per order. The parcel gets a new uuid as its
// entity ID; the dedup is on the order ID, claimed before booking.
//
// corpus: ok attemptkey
// modelled on: v7ktory/wb_level_one main.go (jetstream consumer callback with explicit Ack)
func (o *OrderStream) BookShipment(ctx context.Context, m *nats.Msg) error {
	ev, err := decodeOrder(m.Data)
	if err != nil {
		m.Term()
		return err
	}
	first, err := o.processed.Claim(ctx, "shipment:"+ev.OrderID)
	if err != nil {
		m.Nak()
		return err
	}
	if !first {
		m.Ack()
		return nil
	}
	s := Shipment{ID: uuid.NewString(), OrderID: ev.OrderID, CreatedAt: time.Now()}
	if err := o.fulfilment.Book(ctx, s); err != nil {
		o.processed.Unclaim(ctx, "shipment:"+ev.OrderID)
		m.Nak()
		return err
	}
	m.Ack()
	return nil
}

// BookShipmentGuarded claims the order and releases the claim from a
// deferred func literal whenever the named error is set, which covers every
// failing return below it.
//
// corpus: ok releaseonerror
// modelled on: v7ktory/wb_level_one main.go (jetstream consumer callback with explicit Ack)
func (o *OrderStream) BookShipmentGuarded(ctx context.Context, m *nats.Msg) (err error) {
	ev, err := decodeOrder(m.Data)
	if err != nil {
		m.Term()
		return err
	}
	claimKey := "shipment:" + ev.OrderID
	first, err := o.processed.Claim(ctx, claimKey)
	if err != nil {
		m.Nak()
		return err
	}
	if !first {
		m.Ack()
		return nil
	}
	defer func() {
		if err != nil {
			o.processed.Unclaim(ctx, claimKey)
			m.Nak()
		}
	}()
	s := Shipment{ID: uuid.NewString(), OrderID: ev.OrderID, CreatedAt: time.Now()}
	if err = o.fulfilment.Book(ctx, s); err != nil {
		return fmt.Errorf("book shipment for %s: %w", ev.OrderID, err)
	}
	m.Ack()
	return nil
}

// PublishCancelled publishes a cancellation with backoff.RetryNotify and
// makes the message's Nats-Msg-Id inside the retried operation, so every
// retry is a new message to JetStream's duplicate window.
//
// corpus: bug attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publish with acknowledgement and a Msg-Id for deduplication)
func (o *OrderStream) PublishCancelled(ctx context.Context, orderID, reason string) error {
	data, err := json.Marshal(map[string]string{"order_id": orderID, "reason": reason})
	if err != nil {
		return err
	}
	op := func() error {
		id := gofrsuuid.Must(gofrsuuid.NewV7())
		_, err := o.js.Publish("orders.cancelled", data, nats.MsgId(id.String()), nats.Context(ctx))
		return err
	}
	notify := func(err error, wait time.Duration) {
		o.log.Warn("publish cancellation", "order", orderID, "retry_in", wait, "err", err)
	}
	return backoff.RetryNotify(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx), notify)
}

// Quoter answers shipping-quote requests over NATS request-reply. Callers
// retry a request that timed out with the same Request-Id header.
type Quoter struct {
	nc    *nats.Conn
	rdb   *redis.Client
	quote func(ctx context.Context, req []byte) ([]byte, error)
}

// HandleQuote claims the request ID, computes and books the quote, and marks
// the request "done". A caller whose reply was lost retries and is answered
// with an empty "already handled" instead of its quote.
//
// corpus: bug cacheresponse
// modelled on: kolypto/learning-and-playground nats/README.md (request/reply over NATS, the reply correlated by the requester)
func (q *Quoter) HandleQuote(m *nats.Msg) {
	ctx := context.Background()
	key := "quote:req:" + m.Header.Get("Request-Id")
	ok, err := q.rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if err != nil {
		m.Respond([]byte(`{"error":"unavailable"}`))
		return
	}
	if !ok {
		m.Respond([]byte(`{"status":"already handled"}`))
		return
	}
	reply, err := q.quote(ctx, m.Data)
	if err != nil {
		q.rdb.Del(ctx, key)
		m.Respond([]byte(`{"error":"quote failed"}`))
		return
	}
	q.rdb.Set(ctx, key, "done", time.Hour)
	m.Respond(reply)
}

// HandleQuoteReplayable stores the reply under the request ID and answers a
// retry with the same bytes.
//
// corpus: ok cacheresponse
// modelled on: kolypto/learning-and-playground nats/README.md (request/reply over NATS, the reply correlated by the requester)
func (q *Quoter) HandleQuoteReplayable(m *nats.Msg) {
	ctx := context.Background()
	key := "quote:req:" + m.Header.Get("Request-Id")
	ok, err := q.rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if err != nil {
		m.Respond([]byte(`{"error":"unavailable"}`))
		return
	}
	if !ok {
		stored, err := q.rdb.Get(ctx, key).Bytes()
		if err != nil || string(stored) == "processing" {
			m.Respond([]byte(`{"error":"in progress"}`))
			return
		}
		m.Respond(stored)
		return
	}
	reply, err := q.quote(ctx, m.Data)
	if err != nil {
		q.rdb.Del(ctx, key)
		m.Respond([]byte(`{"error":"quote failed"}`))
		return
	}
	q.rdb.Set(ctx, key, reply, time.Hour)
	m.Respond(reply)
}
