package streams

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/nats-io/nats.go"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
)

// Renderer renders and stores invoice PDFs.
type Renderer interface {
	Render(ctx context.Context, invoiceID string) ([]byte, error)
	Upload(ctx context.Context, invoiceID string, pdf []byte) error
}

// BillingConsumer consumes the billing exchange's queues.
type BillingConsumer struct {
	db     *sqlx.DB
	rdb    *redis.Client
	js     nats.JetStreamContext
	render Renderer
	log    *slog.Logger
}

type refundMsg struct {
	OrderID string `json:"order_id"`
	Cents   int64  `json:"cents"`
}

// ConsumeRefunds applies refund messages to orders until ctx ends.
//
// corpus: bug checkthenact
// modelled on: sukinosuki/learn-golang learn-rabbitmq/delay_message_demo/consumer/consumer.go (Consume with manual ack, range over deliveries)
func (c *BillingConsumer) ConsumeRefunds(ctx context.Context, deliveries <-chan amqp.Delivery) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d, ok := <-deliveries:
			if !ok {
				return nil
			}
			key := "refund-applied:" + d.MessageId
			n, err := c.rdb.Exists(ctx, key).Result()
			if err != nil {
				_ = d.Nack(false, true)
				continue
			}
			if n == 1 {
				_ = d.Ack(false)
				continue
			}
			var rf refundMsg
			if err := json.Unmarshal(d.Body, &rf); err != nil {
				_ = d.Reject(false)
				continue
			}
			if _, err := c.db.ExecContext(ctx,
				`UPDATE orders SET refunded_cents = refunded_cents + $2 WHERE id = $1`, rf.OrderID, rf.Cents); err != nil {
				_ = d.Nack(false, true)
				continue
			}
			c.rdb.Set(ctx, key, time.Now().Unix(), 7*24*time.Hour)
			_ = d.Ack(false)
		}
	}
}

// ConsumeRefundsOnce applies refund messages to orders until ctx ends;
// the message id is taken with SET NX before the refund is applied and
// given back if it fails.
//
// corpus: ok checkthenact
// modelled on: sukinosuki/learn-golang learn-rabbitmq/delay_message_demo/consumer/consumer.go (Consume with manual ack, range over deliveries)
func (c *BillingConsumer) ConsumeRefundsOnce(ctx context.Context, deliveries <-chan amqp.Delivery) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d, ok := <-deliveries:
			if !ok {
				return nil
			}
			var rf refundMsg
			if err := json.Unmarshal(d.Body, &rf); err != nil {
				_ = d.Reject(false)
				continue
			}
			key := "refund-applied:" + d.MessageId
			fresh, err := c.rdb.SetNX(ctx, key, time.Now().Unix(), 7*24*time.Hour).Result()
			if err != nil {
				_ = d.Nack(false, true)
				continue
			}
			if !fresh {
				_ = d.Ack(false)
				continue
			}
			if _, err := c.db.ExecContext(ctx,
				`UPDATE orders SET refunded_cents = refunded_cents + $2 WHERE id = $1`, rf.OrderID, rf.Cents); err != nil {
				c.rdb.Del(context.WithoutCancel(ctx), key)
				_ = d.Nack(false, true)
				continue
			}
			_ = d.Ack(false)
		}
	}
}

// HandleInvoiceRequested renders and uploads an invoice PDF. The inbox
// row keeps a redelivered message from rendering twice.
//
// corpus: bug releaseonerror
// modelled on: Xiao-Y/learn learn-shop-base-mq/readme.md (message table with manual ack and redelivery on failure)
func (c *BillingConsumer) HandleInvoiceRequested(ctx context.Context, d amqp.Delivery) error {
	invoiceID := string(d.Body)
	res, err := c.db.ExecContext(ctx,
		`INSERT INTO inbox (message_id, status, received_at) VALUES ($1, 'processing', now()) ON CONFLICT (message_id) DO NOTHING`,
		d.MessageId)
	if err != nil {
		_ = d.Nack(false, true)
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return d.Ack(false)
	}
	pdf, err := c.render.Render(ctx, invoiceID)
	if err != nil {
		_ = d.Nack(false, true)
		return fmt.Errorf("render %s: %w", invoiceID, err)
	}
	if err := c.render.Upload(ctx, invoiceID, pdf); err != nil {
		_ = d.Nack(false, true)
		return fmt.Errorf("upload %s: %w", invoiceID, err)
	}
	_, _ = c.db.ExecContext(ctx, `UPDATE inbox SET status = 'done' WHERE message_id = $1`, d.MessageId)
	return d.Ack(false)
}

// HandleInvoiceRequestedReleasing renders and uploads an invoice PDF. The
// inbox row keeps a redelivered message from rendering twice and is
// deleted before a failed message goes back to the queue.
//
// corpus: ok releaseonerror
// modelled on: Xiao-Y/learn learn-shop-base-mq/readme.md (message table with manual ack and redelivery on failure)
func (c *BillingConsumer) HandleInvoiceRequestedReleasing(ctx context.Context, d amqp.Delivery) error {
	invoiceID := string(d.Body)
	res, err := c.db.ExecContext(ctx,
		`INSERT INTO inbox (message_id, status, received_at) VALUES ($1, 'processing', now()) ON CONFLICT (message_id) DO NOTHING`,
		d.MessageId)
	if err != nil {
		_ = d.Nack(false, true)
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return d.Ack(false)
	}
	fail := func(err error) error {
		_, _ = c.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM inbox WHERE message_id = $1`, d.MessageId)
		_ = d.Nack(false, true)
		return err
	}
	pdf, err := c.render.Render(ctx, invoiceID)
	if err != nil {
		return fail(fmt.Errorf("render %s: %w", invoiceID, err))
	}
	if err := c.render.Upload(ctx, invoiceID, pdf); err != nil {
		return fail(fmt.Errorf("upload %s: %w", invoiceID, err))
	}
	_, _ = c.db.ExecContext(ctx, `UPDATE inbox SET status = 'done' WHERE message_id = $1`, d.MessageId)
	return d.Ack(false)
}

// BridgeToJetStream republishes a RabbitMQ delivery onto the JetStream
// stream the analytics side reads, retrying a few times.
//
// corpus: bug attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publish with a message id for deduplication)
func (c *BillingConsumer) BridgeToJetStream(ctx context.Context, d amqp.Delivery) error {
	subject := "billing." + d.RoutingKey
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		msgID := xid.New().String()
		if _, err = c.js.Publish(subject, d.Body, nats.MsgId(msgID), nats.Context(ctx)); err == nil {
			return d.Ack(false)
		}
		time.Sleep(time.Duration(attempt) * 250 * time.Millisecond)
	}
	_ = d.Nack(false, true)
	return err
}

// BridgeToJetStreamDeduped republishes a RabbitMQ delivery onto the
// JetStream stream the analytics side reads, retrying a few times under
// the delivery's own message id; each attempt gets a trace id of its own.
//
// corpus: ok attemptkey
// modelled on: kolypto/learning-and-playground nats/README.md (JetStream publish with a message id for deduplication)
func (c *BillingConsumer) BridgeToJetStreamDeduped(ctx context.Context, d amqp.Delivery) error {
	subject := "billing." + d.RoutingKey
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		msg := nats.NewMsg(subject)
		msg.Data = d.Body
		msg.Header.Set(nats.MsgIdHdr, d.MessageId)
		msg.Header.Set("X-Attempt-Trace", xid.New().String())
		if _, err = c.js.PublishMsg(msg, nats.Context(ctx)); err == nil {
			return d.Ack(false)
		}
		time.Sleep(time.Duration(attempt) * 250 * time.Millisecond)
	}
	_ = d.Nack(false, true)
	return err
}
