// Package workers runs the fulfilment side's background work: SQS and
// NATS consumers, task-queue handlers, and scheduled jobs. Every queue
// here delivers at least once.
package workers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
)

func strp(s string) *string { return &s }

// ShipmentEvent is what the carrier integration puts on the inbound queue.
type ShipmentEvent struct {
	EventID    string    `json:"event_id"`
	ShipmentID string    `json:"shipment_id"`
	OrderID    string    `json:"order_id"`
	Status     string    `json:"status"`
	At         time.Time `json:"at"`
}

// SQSWorker consumes the carrier queue and feeds the order timeline's FIFO
// queue.
type SQSWorker struct {
	sqs         *sqs.Client
	inboundURL  string
	timelineURL string
	rdb         *redis.Client
	log         *slog.Logger
	apply       func(context.Context, ShipmentEvent) error
}

// NewSQSWorker returns an SQSWorker.
func NewSQSWorker(c *sqs.Client, inboundURL, timelineURL string, rdb *redis.Client, log *slog.Logger, apply func(context.Context, ShipmentEvent) error) *SQSWorker {
	return &SQSWorker{sqs: c, inboundURL: inboundURL, timelineURL: timelineURL, rdb: rdb, log: log, apply: apply}
}

// Poll receives a batch and hands each message to handle, deleting the
// ones it handled.
func (w *SQSWorker) Poll(ctx context.Context, handle func(context.Context, types.Message) error) error {
	out, err := w.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:            strp(w.inboundURL),
		MaxNumberOfMessages: 10,
		WaitTimeSeconds:     20,
	})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		if err := handle(ctx, m); err != nil {
			w.log.WarnContext(ctx, "message failed; left for redelivery", "id", *m.MessageId, "err", err)
			continue
		}
		if _, err := w.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: strp(w.inboundURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			w.log.WarnContext(ctx, "delete message", "id", *m.MessageId, "err", err)
		}
	}
	return nil
}

// ForwardToTimeline copies a carrier event onto the order timeline's FIFO
// queue.
//
// corpus: bug attemptkey
// modelled on: linlichieh/golang-aws-sqs-example README.md (Send, Receive and Delete of SQS messages)
func (w *SQSWorker) ForwardToTimeline(ctx context.Context, m types.Message) error {
	var ev ShipmentEvent
	if err := json.Unmarshal([]byte(*m.Body), &ev); err != nil {
		return err
	}
	_, err := w.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               strp(w.timelineURL),
		MessageBody:            m.Body,
		MessageGroupId:         strp(ev.OrderID),
		MessageDeduplicationId: strp(uuid.NewString()),
	})
	return err
}

// ForwardToTimelineDeduped copies a carrier event onto the order
// timeline's FIFO queue.
//
// corpus: ok attemptkey
// modelled on: keenangraham/go-sqs-deduplication README.md (messages deduplicated by their own unique identifier)
func (w *SQSWorker) ForwardToTimelineDeduped(ctx context.Context, m types.Message) error {
	var ev ShipmentEvent
	if err := json.Unmarshal([]byte(*m.Body), &ev); err != nil {
		return err
	}
	_, err := w.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               strp(w.timelineURL),
		MessageBody:            m.Body,
		MessageGroupId:         strp(ev.OrderID),
		MessageDeduplicationId: strp(ev.EventID),
	})
	return err
}

// ApplyShipmentEvent applies a carrier event to the order. A marker keeps
// a second delivery from applying the event while the first is running.
//
// corpus: bug releaseonerror
// modelled on: flowerinthenight/sqs-lengthy-consume README.md (long-running SQS handler, message redelivered when not deleted)
func (w *SQSWorker) ApplyShipmentEvent(ctx context.Context, m types.Message) error {
	marker := "shipment-event:" + *m.MessageId
	err := w.rdb.SetArgs(ctx, marker, "processing", redis.SetArgs{Mode: "NX", TTL: 24 * time.Hour}).Err()
	if errors.Is(err, redis.Nil) {
		return nil // seen it; let Poll delete it
	}
	if err != nil {
		return err
	}
	var ev ShipmentEvent
	if err := json.Unmarshal([]byte(*m.Body), &ev); err != nil {
		return fmt.Errorf("decode %s: %w", *m.MessageId, err)
	}
	if err := w.apply(ctx, ev); err != nil {
		return fmt.Errorf("apply %s: %w", ev.EventID, err)
	}
	return w.rdb.Set(ctx, marker, "done", 7*24*time.Hour).Err()
}

// ApplyShipmentEventReleasing applies a carrier event to the order. A
// marker keeps a second delivery from applying the event while the first
// is running; a failed apply drops the marker so the redelivery runs.
//
// corpus: ok releaseonerror
// modelled on: flowerinthenight/sqs-lengthy-consume README.md (long-running SQS handler, message redelivered when not deleted)
func (w *SQSWorker) ApplyShipmentEventReleasing(ctx context.Context, m types.Message) (err error) {
	marker := "shipment-event:" + *m.MessageId
	err = w.rdb.SetArgs(ctx, marker, "processing", redis.SetArgs{Mode: "NX", TTL: 24 * time.Hour}).Err()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.rdb.Del(context.WithoutCancel(ctx), marker)
		}
	}()
	var ev ShipmentEvent
	if err = json.Unmarshal([]byte(*m.Body), &ev); err != nil {
		return fmt.Errorf("decode %s: %w", *m.MessageId, err)
	}
	if err = w.apply(ctx, ev); err != nil {
		return fmt.Errorf("apply %s: %w", ev.EventID, err)
	}
	return w.rdb.Set(ctx, marker, "done", 7*24*time.Hour).Err()
}

// OrderPaid is published by checkout when an order's payment settles.
type OrderPaid struct {
	EventID     string `json:"event_id"`
	OrderID     string `json:"order_id"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

// LedgerEntry is what the ledger stream takes.
type LedgerEntry struct {
	OrderID     string `json:"order_id"`
	Account     string `json:"account"`
	AmountCents int64  `json:"amount_cents"`
}

// NATSWorker consumes checkout's subjects and publishes to the ledger
// stream.
type NATSWorker struct {
	js  nats.JetStreamContext
	rdb *redis.Client
	log *slog.Logger
}

// NewNATSWorker returns a NATSWorker.
func NewNATSWorker(js nats.JetStreamContext, rdb *redis.Client, log *slog.Logger) *NATSWorker {
	return &NATSWorker{js: js, rdb: rdb, log: log}
}

// OnOrderPaid turns a settled payment into a ledger entry; it is the
// handler of a durable JetStream subscription with manual acks.
//
// corpus: bug attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (JetStream deduplication headers and redelivery with Nak)
func (w *NATSWorker) OnOrderPaid(m *nats.Msg) {
	var ev OrderPaid
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		_ = m.Term()
		return
	}
	entry, _ := json.Marshal(LedgerEntry{OrderID: ev.OrderID, Account: "revenue:" + ev.Currency, AmountCents: ev.AmountCents})
	if _, err := w.js.Publish("ledger.entries", entry, nats.MsgId(xid.New().String())); err != nil {
		_ = m.NakWithDelay(5 * time.Second)
		return
	}
	_ = m.Ack()
}

// OnOrderPaidDeduped turns a settled payment into a ledger entry; it is
// the handler of a durable JetStream subscription with manual acks.
//
// corpus: ok attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (JetStream deduplication headers and redelivery with Nak)
func (w *NATSWorker) OnOrderPaidDeduped(m *nats.Msg) {
	var ev OrderPaid
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		_ = m.Term()
		return
	}
	entry, _ := json.Marshal(LedgerEntry{OrderID: ev.OrderID, Account: "revenue:" + ev.Currency, AmountCents: ev.AmountCents})
	out := &nats.Msg{Subject: "ledger.entries", Data: entry, Header: nats.Header{}}
	out.Header.Set(nats.MsgIdHdr, "paid:"+ev.EventID)
	if _, err := w.js.PublishMsg(out); err != nil {
		_ = m.NakWithDelay(5 * time.Second)
		return
	}
	_ = m.Ack()
}

// StockAdjustment is published by the warehouse when a count changes.
type StockAdjustment struct {
	SKU   string `json:"sku"`
	Delta int    `json:"delta"`
}

// OnStockAdjusted applies a warehouse stock adjustment once.
//
// corpus: bug attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (idempotency keys checked by the consumer, Nak to redeliver)
func (w *NATSWorker) OnStockAdjusted(ctx context.Context, m *nats.Msg, apply func(context.Context, StockAdjustment) error) error {
	dedupKey := "stock-adj:" + ksuid.New().String()
	fresh, err := w.rdb.SetNX(ctx, dedupKey, 1, 48*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return m.Ack()
	}
	var adj StockAdjustment
	if err := json.Unmarshal(m.Data, &adj); err != nil {
		w.rdb.Del(ctx, dedupKey)
		return m.Term()
	}
	if err := apply(ctx, adj); err != nil {
		w.rdb.Del(ctx, dedupKey)
		return m.Nak()
	}
	return m.Ack()
}

// OnStockAdjustedDeduped applies a warehouse stock adjustment once.
//
// corpus: ok attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (idempotency keys checked by the consumer, Nak to redeliver)
func (w *NATSWorker) OnStockAdjustedDeduped(ctx context.Context, m *nats.Msg, apply func(context.Context, StockAdjustment) error) error {
	id := m.Header.Get(nats.MsgIdHdr)
	if id == "" {
		return m.Term()
	}
	dedupKey := "stock-adj:" + id
	fresh, err := w.rdb.SetNX(ctx, dedupKey, 1, 48*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return m.Ack()
	}
	var adj StockAdjustment
	if err := json.Unmarshal(m.Data, &adj); err != nil {
		w.rdb.Del(ctx, dedupKey)
		return m.Term()
	}
	if err := apply(ctx, adj); err != nil {
		w.rdb.Del(ctx, dedupKey)
		return m.Nak()
	}
	return m.Ack()
}

// Task is one task of the task queue, as the handler gets it.
type Task struct {
	Type    string
	Payload []byte
}

type taskIDKey struct{}

// TaskID returns the queue's ID of the task being handled; the queue puts
// it in the handler's context and keeps it across retries.
func TaskID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(taskIDKey{}).(string)
	return id, ok
}

// ReceiptPayload asks for a receipt e-mail.
type ReceiptPayload struct {
	OrderID string `json:"order_id"`
	Email   string `json:"email"`
}

// Mailer sends e-mail through the provider's HTTP API.
type Mailer struct {
	http    *http.Client
	baseURL string
	token   string
}

func (m *Mailer) send(ctx context.Context, key string, p ReceiptPayload) error {
	body, _ := json.Marshal(map[string]string{"to": p.Email, "template": "receipt", "order_id": p.OrderID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.baseURL+"/email", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+m.token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := m.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("mail provider: %s", resp.Status)
	}
	return nil
}

// HandleSendReceipt is the task handler for "email:receipt"; the queue
// retries it with backoff when it returns an error.
//
// corpus: bug attemptkey
// modelled on: avtara/boilerplate-go internal/service/delivery/asynq/handler.user.go (task payload unmarshalled, e-mail sent)
func (m *Mailer) HandleSendReceipt(ctx context.Context, t *Task) error {
	var p ReceiptPayload
	if err := json.Unmarshal(t.Payload, &p); err != nil {
		return fmt.Errorf("receipt payload: %w", err)
	}
	return m.send(ctx, "receipt-"+ulid.Make().String(), p)
}

// HandleSendReceiptKeyed is the task handler for "email:receipt"; the
// queue retries it with backoff when it returns an error.
//
// corpus: ok attemptkey
// modelled on: avtara/boilerplate-go internal/service/delivery/asynq/handler.user.go (task payload unmarshalled, e-mail sent)
func (m *Mailer) HandleSendReceiptKeyed(ctx context.Context, t *Task) error {
	var p ReceiptPayload
	if err := json.Unmarshal(t.Payload, &p); err != nil {
		return fmt.Errorf("receipt payload: %w", err)
	}
	id, ok := TaskID(ctx)
	if !ok {
		id = "order-" + p.OrderID
	}
	return m.send(ctx, "receipt-"+id, p)
}
