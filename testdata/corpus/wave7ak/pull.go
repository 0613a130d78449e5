package wave7ak

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"cloud.google.com/go/pubsub/v2"
	"github.com/bwmarrin/snowflake"
)

type invoiceDue struct {
	CustomerID string `json:"customer_id"`
	Amount     int64  `json:"amount"`
}

// InvoiceWorker pulls due invoices from a subscription with a dead-letter
// policy, so that Pub/Sub counts each message's deliveries.
type InvoiceWorker struct {
	sub      *pubsub.Subscriber
	payments Payments
}

// Run hands each delivery to handleInvoice.
func (w *InvoiceWorker) Run(ctx context.Context) error {
	return w.sub.Receive(ctx, w.handleInvoice)
}

// handleInvoice charges under the message ID and its delivery count: the
// count goes up on each redelivery, so a charge whose ack was lost is made
// again under a new key.
//
// corpus: bug attemptkey
// modelled on: GoogleCloudPlatform/golang-samples pubsub/subscriptions/pull_dead_letter_delivery_attempts.go (a Receive callback reading msg.DeliveryAttempt)
func (w *InvoiceWorker) handleInvoice(ctx context.Context, m *pubsub.Message) {
	var inv invoiceDue
	if err := json.Unmarshal(m.Data, &inv); err != nil {
		m.Ack()
		return
	}
	attempt := 1
	if m.DeliveryAttempt != nil {
		attempt = *m.DeliveryAttempt
	}
	key := fmt.Sprintf("invoice-%s-%d", m.ID, attempt)
	if err := w.payments.Charge(ctx, inv.CustomerID, inv.Amount, key); err != nil {
		log.Printf("invoice %s: %v", m.ID, err)
		m.Nack()
		return
	}
	m.Ack()
}

// RunOnce hands each delivery to handleInvoiceOnce.
func (w *InvoiceWorker) RunOnce(ctx context.Context) error {
	return w.sub.Receive(ctx, w.handleInvoiceOnce)
}

// handleInvoiceOnce keys the charge by the message ID and reads the
// delivery count only to log a message that keeps failing.
//
// corpus: ok attemptkey
// modelled on: GoogleCloudPlatform/golang-samples pubsub/subscriptions/pull_dead_letter_delivery_attempts.go (a Receive callback reading msg.DeliveryAttempt)
func (w *InvoiceWorker) handleInvoiceOnce(ctx context.Context, m *pubsub.Message) {
	if m.DeliveryAttempt != nil && *m.DeliveryAttempt > 3 {
		log.Printf("invoice %s: delivery %d", m.ID, *m.DeliveryAttempt)
	}
	var inv invoiceDue
	if err := json.Unmarshal(m.Data, &inv); err != nil {
		m.Ack()
		return
	}
	if err := w.payments.Charge(ctx, inv.CustomerID, inv.Amount, "invoice-"+m.ID); err != nil {
		m.Nack()
		return
	}
	m.Ack()
}

var node *snowflake.Node

func init() {
	var err error
	if node, err = snowflake.NewNode(1); err != nil {
		panic(err)
	}
}

// nextID hands out the next snowflake ID.
func nextID() string {
	return node.Generate().String()
}

type creditGranted struct {
	Account string `json:"account"`
	Cents   int64  `json:"cents"`
}

// RunCredits credits each granted credit under a new snowflake ID: a
// redelivered grant is credited twice.
//
// corpus: bug attemptkey
// modelled on: linger1216/go-utils snowflake/snowflake.go (a package snowflake node and a Generate helper returning its ID as a string)
func RunCredits(ctx context.Context, client *pubsub.Client, ledger Ledger) error {
	sub := client.Subscriber("credits-granted")
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		var g creditGranted
		if err := json.Unmarshal(m.Data, &g); err != nil {
			m.Ack()
			return
		}
		if err := ledger.Credit(ctx, g.Account, g.Cents, nextID()); err != nil {
			m.Nack()
			return
		}
		m.Ack()
	})
}

// RunCreditsByGrant keys each credit by the grant ID the publisher put in
// the attributes; the snowflake ID only names the ledger's log line.
//
// corpus: ok attemptkey
// modelled on: linger1216/go-utils snowflake/snowflake.go (a package snowflake node and a Generate helper returning its ID as a string)
func RunCreditsByGrant(ctx context.Context, client *pubsub.Client, ledger Ledger) error {
	sub := client.Subscriber("credits-granted")
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		var g creditGranted
		if err := json.Unmarshal(m.Data, &g); err != nil {
			m.Ack()
			return
		}
		trace := nextID()
		if err := ledger.Credit(ctx, g.Account, g.Cents, "grant-"+m.Attributes["grant_id"]); err != nil {
			log.Printf("credit %s: %v", trace, err)
			m.Nack()
			return
		}
		m.Ack()
	})
}
