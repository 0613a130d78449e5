// Package brokers holds the consumers that take payment commands from
// Azure Service Bus, Kafka (through confluent-kafka-go) and a watermill
// CQRS router, and charge or refund through the payments API.
package brokers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/uuid"
)

// Payments is the client of the payments API; it sends the key it is
// given as the request's Idempotency-Key.
type Payments struct {
	HTTP    *http.Client
	BaseURL string
}

// Charge asks the payments API to take amount for an order.
func (p *Payments) Charge(ctx context.Context, idempotencyKey, orderID string, amount int64) error {
	b, err := json.Marshal(map[string]any{"order_id": orderID, "amount": amount})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.BaseURL+"/v1/charges", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", idempotencyKey)
	resp, err := p.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("payments: answered %d", resp.StatusCode)
	}
	return nil
}

// chargeCommand is the body of a charge command on the queue.
type chargeCommand struct {
	OrderID string `json:"order_id"`
	Amount  int64  `json:"amount"`
}

// QueueWorker takes charge commands off a Service Bus queue in peek-lock
// mode: a message it does not complete before its lock expires, or that
// it abandons, is delivered again.
type QueueWorker struct {
	Receiver *azservicebus.Receiver
	Payments *Payments
	Log      *slog.Logger
}

// Run takes batches off the queue and settles each message.
func (w *QueueWorker) Run(ctx context.Context) error {
	for {
		msgs, err := w.Receiver.ReceiveMessages(ctx, 10, nil)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := w.settle(ctx, m); err != nil {
				w.Log.Error("settle", "message", m.MessageID, "err", err)
			}
		}
	}
}

// settle charges for one command and completes the message, or abandons
// it for another delivery. The key is drawn here, so the delivery after
// a lost lock charges a second time.
//
// corpus: bug attemptkey
// modelled on: Azure/azure-sdk-for-go sdk/messaging/azservicebus/example_receiver_test.go (ReceiveMessages, then CompleteMessage or AbandonMessage for each)
func (w *QueueWorker) settle(ctx context.Context, m *azservicebus.ReceivedMessage) error {
	var cmd chargeCommand
	if err := json.Unmarshal(m.Body, &cmd); err != nil {
		return w.Receiver.DeadLetterMessage(ctx, m, nil)
	}
	if err := w.Payments.Charge(ctx, uuid.NewString(), cmd.OrderID, cmd.Amount); err != nil {
		return w.Receiver.AbandonMessage(ctx, m, nil)
	}
	return w.Receiver.CompleteMessage(ctx, m, nil)
}

// settleByMessage keys the charge by the message's ID, which Service Bus
// keeps across deliveries.
//
// corpus: ok attemptkey
// modelled on: Azure/azure-sdk-for-go sdk/messaging/azservicebus/example_receiver_test.go (ReceiveMessages, then CompleteMessage or AbandonMessage for each)
func (w *QueueWorker) settleByMessage(ctx context.Context, m *azservicebus.ReceivedMessage) error {
	var cmd chargeCommand
	if err := json.Unmarshal(m.Body, &cmd); err != nil {
		return w.Receiver.DeadLetterMessage(ctx, m, nil)
	}
	if err := w.Payments.Charge(ctx, "charge-"+m.MessageID, cmd.OrderID, cmd.Amount); err != nil {
		return w.Receiver.AbandonMessage(ctx, m, nil)
	}
	return w.Receiver.CompleteMessage(ctx, m, nil)
}
