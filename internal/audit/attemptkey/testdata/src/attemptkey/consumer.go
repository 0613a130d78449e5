package attemptkey

import (
	"context"
	"database/sql"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
)

// Consumer handles one SQS message at a time.
type Consumer struct {
	rdb *redis.Client
	db  *sql.DB
	q   *sqs.Client
}

// The dedup key is made per delivery: a redelivery is processed again.
func (c *Consumer) Handle(ctx context.Context, msg types.Message) error {
	key := "dedup:" + uuid.NewString()
	ok, err := c.rdb.SetNX(ctx, key, 1, 24*time.Hour).Result() // want `idempotency key made by uuid.NewString at consumer.go:\d+ inside the consumer Handle at consumer.go:\d+ reaches the Redis key of SetNX: a redelivered message gets a new key, so it is processed again; derive the key from the message's own ID \(attemptkey\)`
	if err != nil || !ok {
		return err
	}
	return nil
}

// The message's own ID.
func (c *Consumer) HandleByID(ctx context.Context, msg types.Message) error { // want HandleByID:"parameter 1 reaches the Redis key of SetNX"
	ok, err := c.rdb.SetNX(ctx, "dedup:"+*msg.MessageId, 1, 24*time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return nil
}

// The dedup row, inserted under a fresh ID per delivery.
func (c *Consumer) ProcessMessage(ctx context.Context, msg *types.Message) error {
	_, err := c.db.ExecContext(ctx, `INSERT INTO processed_messages (message_id, processed_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		ksuid.New().String(), time.Now()) // want `made by ksuid.New at consumer.go:\d+ inside the consumer ProcessMessage at consumer.go:\d+ reaches the message_id column of an INSERT into processed_messages`
	return err
}

// The same table keyed by the message's ID; processed_at is a timestamp.
func (c *Consumer) ProcessMessageByID(ctx context.Context, msg *types.Message) error { // want ProcessMessageByID:"parameter 1 reaches the message_id column of an INSERT into processed_messages"
	_, err := c.db.ExecContext(ctx, `INSERT INTO processed_messages (message_id, processed_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		*msg.MessageId, time.Now())
	return err
}

// A new order's ID is an entity's, not a key.
func (c *Consumer) HandleOrderCreated(ctx context.Context, msg types.Message) error {
	_, err := c.db.ExecContext(ctx, `INSERT INTO orders (id, body, created_at) VALUES ($1, $2, $3)`,
		uuid.NewString(), *msg.Body, time.Now())
	log.Printf("order for message %s, trace %s", *msg.MessageId, uuid.NewString())
	return err
}

// A poll loop over a batch: each message keyed anew.
func (c *Consumer) Poll(ctx context.Context, msgs []types.Message) {
	for _, m := range msgs {
		c.rdb.SetNX(ctx, "processed:"+xid.New().String(), 1, time.Hour) // want `made by xid.New at consumer.go:\d+ inside the loop over delivered messages`
		_ = m
	}
}

func (c *Consumer) PollByID(ctx context.Context, msgs []types.Message) {
	for _, m := range msgs {
		c.rdb.SetNX(ctx, "processed:"+*m.MessageId, 1, time.Hour)
	}
}

// A NATS subscriber forwarding each message with a fresh message ID: a
// redelivery is published twice.
func forward(nc *nats.Conn, js nats.JetStreamContext) {
	nc.Subscribe("orders.in", func(m *nats.Msg) {
		js.Publish("orders.out", m.Data, nats.MsgId(uuid.NewString())) // want `made by uuid.NewString at consumer.go:\d+ inside the message handler at consumer.go:\d+ reaches the NATS message ID \(MsgId\)`
		m.Ack()
	})
}

// Forwarded under an ID derived from the stream sequence, with a fresh
// trace header beside it.
func forwardBySequence(nc *nats.Conn, js nats.JetStreamContext) {
	nc.Subscribe("orders.in", func(m *nats.Msg) {
		meta, _ := m.Metadata()
		out := nats.NewMsg("orders.out")
		out.Header.Set("Trace-Id", uuid.NewString())
		out.Header.Set(nats.MsgIdHdr, "fwd-"+meta.Stream+"-"+string(rune(meta.Sequence.Stream)))
		js.PublishMsg(out)
		m.Ack()
	})
}

// An application event that carries its own ID.
type PaymentEvent struct {
	EventID string
	Amount  int64
}

func (c *Consumer) OnPaymentEvent(ctx context.Context, ev PaymentEvent) error {
	return c.rdb.Set(ctx, "idem:"+uuid.NewString(), 1, time.Hour).Err() // want `inside the consumer OnPaymentEvent`
}

func (c *Consumer) OnPaymentEventByID(ctx context.Context, ev PaymentEvent) error { // want OnPaymentEventByID:"parameter 1 reaches the Redis key of Set"
	return c.rdb.Set(ctx, "idem:"+ev.EventID, 1, time.Hour).Err()
}

// A publisher taking a message it sends is no consumer: the caller decides
// how often it runs.
func (c *Consumer) publishEvent(ctx context.Context, ev PaymentEvent) error {
	_, err := c.q.SendMessage(ctx, &sqs.SendMessageInput{
		MessageBody:            aws.String(ev.EventID),
		MessageDeduplicationId: aws.String(uuid.NewString()),
	})
	return err
}

// An event with no ID of its own: nothing to derive a key from, so no
// consumer of a message that carries one.
type AuditEvent struct {
	Kind string
	At   time.Time
}

func (c *Consumer) HandleAuditEvent(ctx context.Context, ev AuditEvent) error { // want HandleAuditEvent:"makes uuid.NewString at consumer.go:\\d+, reaching the Redis key of Set"
	return c.rdb.Set(ctx, "idem:"+uuid.NewString(), ev.Kind, time.Hour).Err()
}

// A subscription's callback handed over by name, whatever it is called.
func (c *Consumer) subscribeOrders(nc *nats.Conn) {
	nc.Subscribe("orders", c.orders)
}

func (c *Consumer) orders(m *nats.Msg) {
	c.rdb.SetNX(context.Background(), "dedup:"+uuid.NewString(), 1, time.Hour) // want `inside the consumer orders at consumer.go:\d+`
}

// A function taking a message it sends, never handed over.
func (c *Consumer) outgoing(m *nats.Msg) {
	c.rdb.SetNX(context.Background(), "dedup:"+uuid.NewString(), 1, time.Hour)
}

// A receipt handle is new on every receive of the same message: keyed by
// it, a redelivery is processed again.
func (c *Consumer) HandleByReceipt(ctx context.Context, m types.Message) error {
	key := "dedup:" + *m.ReceiptHandle
	return c.rdb.SetNX(ctx, key, 1, time.Hour).Err() // want `idempotency key made by Message.ReceiptHandle at consumer.go:\d+ inside the consumer HandleByReceipt`
}

// Within one delivery, each attempt of a retry sees the same handle.
func (c *Consumer) extendVisibility(ctx context.Context, m types.Message, extend func(context.Context, string) error) error {
	var err error
	for range 3 {
		if err = c.rdb.SetNX(ctx, "dedup:"+*m.ReceiptHandle, 1, time.Minute).Err(); err == nil {
			return extend(ctx, *m.ReceiptHandle)
		}
	}
	return err
}

// The key comes from a method whose result names the store: "processed:".
func (c *Consumer) freshKey() string { return "processed:" + uuid.NewString() }

func (c *Consumer) HandleMarked(ctx context.Context, m types.Message) error {
	return c.rdb.Set(ctx, c.freshKey(), 1, time.Hour).Err() // want `made by freshKey \(uuid.NewString at consumer.go:\d+\) at consumer.go:\d+ inside the consumer HandleMarked`
}
