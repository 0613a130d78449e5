package wave7cta

import (
	"context"
	"sync"
)

// Notifier mails receipts and starts fulfilment.
type Notifier struct {
	mailer   Mailer
	receipts Receipts
	flows    Workflows
	runs     Runs
	mu       sync.Mutex
}

// MailReceipt checks whether the order's receipt went out and, if not,
// creates the message at the mail provider and records it: two
// deliveries of the order event mail the customer twice.
//
// corpus: bug checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/handler/http_webhook.go (an IPN's side effects run between the duplicate check and the completed mark)
func (n *Notifier) MailReceipt(ctx context.Context, orderID, email string) error {
	sent, err := n.receipts.Exists(ctx, orderID)
	if err != nil {
		return err
	}
	if sent {
		return nil
	}
	msgID, err := n.mailer.CreateMessage(ctx, email, "Your receipt", "Order "+orderID)
	if err != nil {
		return err
	}
	return n.receipts.Save(ctx, orderID, msgID)
}

// MailReceiptLocked holds the notifier's mutex from the check through the
// record: in this one-process worker no second delivery gets between.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/handler/http_webhook.go (the duplicate check and the mark kept to one holder)
func (n *Notifier) MailReceiptLocked(ctx context.Context, orderID, email string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	sent, err := n.receipts.Exists(ctx, orderID)
	if err != nil || sent {
		return err
	}
	msgID, err := n.mailer.CreateMessage(ctx, email, "Your receipt", "Order "+orderID)
	if err != nil {
		return err
	}
	return n.receipts.Save(ctx, orderID, msgID)
}

// StartFulfilment starts the fulfilment workflow for a webhook delivery
// it has not seen and records the run: a redelivery racing the first
// starts a second run.
//
// corpus: bug checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/handler/http_webhook.go (work started for a delivery between the duplicate check and the mark)
func (n *Notifier) StartFulfilment(ctx context.Context, deliveryID, orderID string) error {
	seen, err := n.runs.Exists(ctx, deliveryID)
	if err != nil || seen {
		return err
	}
	runID, err := n.flows.Trigger(ctx, "fulfil-order", orderID)
	if err != nil {
		return err
	}
	return n.runs.Save(ctx, deliveryID, runID)
}

// Devices pushes notifications to a user's phones.
type Devices interface {
	Push(ctx context.Context, userID, title string) error
}

// Alerts keeps the payment alerts pushed per transaction.
type Alerts interface {
	Exists(ctx context.Context, txnID string) (bool, error)
	Save(ctx context.Context, txnID, userID string) error
}

// Alerter pushes a payment alert once per transaction.
type Alerter struct {
	devices Devices
	alerts  Alerts
}

// AlertPaid pushes the paid alert for a transaction it has not alerted
// and records it: two IPN deliveries racing both push.
//
// corpus: bug checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/handler/http_webhook.go (the IPN's outward call between the duplicate check and the completed mark)
func (a *Alerter) AlertPaid(ctx context.Context, txnID, userID string) error {
	seen, err := a.alerts.Exists(ctx, txnID)
	if err != nil || seen {
		return err
	}
	if err := a.devices.Push(ctx, userID, "Payment received"); err != nil {
		return err
	}
	return a.alerts.Save(ctx, txnID, userID)
}

// AlertPaidOrForget pushes the alert and records nothing: a retry may
// push again, but no check and record pair races.
//
// corpus: ok checkthenact
// modelled on: MuhibNayem/Travio server/services/payment/internal/handler/http_webhook.go (a publish whose failure does not fail the IPN)
func (a *Alerter) AlertPaidOrForget(ctx context.Context, txnID, userID string) error {
	seen, err := a.alerts.Exists(ctx, txnID)
	if err != nil || seen {
		return err
	}
	return a.devices.Push(ctx, userID, "Payment received")
}
