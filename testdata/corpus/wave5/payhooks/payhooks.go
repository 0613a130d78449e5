// Package payhooks receives payment-provider webhooks (Stripe events and
// Adyen notifications) and a small payment-session API for the storefront.
// Both providers deliver at least once and retry for days, so every event
// is deduplicated before it changes an order.
package payhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/go-chi/chi/v5"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

// Fulfiller moves an order along once its payment is settled.
type Fulfiller interface {
	MarkPaid(ctx context.Context, orderID string, amount int64) error
	MarkShipped(ctx context.Context, orderID string) error
	Refunded(ctx context.Context, orderID string, amount int64) error
}

// Gateway is the card processor behind the payment-session API.
type Gateway interface {
	CreateSession(ctx context.Context, orderID string, amount int64, currency string) (*Session, error)
}

// Session is what the storefront gets back to render the checkout.
type Session struct {
	ID          string `json:"id"`
	OrderID     string `json:"order_id"`
	RedirectURL string `json:"redirect_url"`
	ExpiresAt   int64  `json:"expires_at"`
}

// Receiver serves /webhooks/stripe, /webhooks/adyen and /payment-sessions.
type Receiver struct {
	db       *sql.DB
	ddb      *dynamodb.Client
	dedup    string // DynamoDB table of seen webhook deliveries
	sessions string // DynamoDB table of payment-session idempotency records
	secret   string
	sc       *stripe.Client
	orders   Fulfiller
	gw       Gateway
	credits  CreditRepo
	log      *slog.Logger
}

// Routes mounts the receiver on a chi router.
func (rc *Receiver) Routes() chi.Router {
	r := chi.NewRouter()
	r.Post("/webhooks/stripe", rc.HandleStripe)
	r.Post("/webhooks/stripe/v2", rc.HandleStripeClaimed)
	r.Post("/webhooks/adyen", rc.HandleAdyen)
	r.Post("/webhooks/adyen/v2", rc.HandleAdyenUnique)
	r.Post("/payment-sessions", rc.CreatePaymentSession)
	r.Post("/payment-sessions/v2", rc.CreatePaymentSessionReplaying)
	return r
}

func (rc *Receiver) readEvent(r *http.Request) (stripe.Event, error) {
	payload, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return stripe.Event{}, err
	}
	return webhook.ConstructEvent(payload, r.Header.Get("Stripe-Signature"), rc.secret)
}

type paidIntent struct {
	ID       string            `json:"id"`
	Amount   int64             `json:"amount"`
	Metadata map[string]string `json:"metadata"`
}

func decodeIntent(ev stripe.Event) (paidIntent, error) {
	var pi paidIntent
	if err := json.Unmarshal(ev.Data.Raw, &pi); err != nil {
		return pi, fmt.Errorf("decode %s: %w", ev.ID, err)
	}
	if pi.Metadata["order_id"] == "" {
		return pi, fmt.Errorf("event %s: no order_id in metadata", ev.ID)
	}
	return pi, nil
}

// HandleStripe applies a payment_intent.succeeded event to its order.
//
// corpus: bug checkthenact
// modelled on: andrewcho-dev/opsconductor-pulse docs/cursor-prompts/phase205-stripe-webhook-security/003-fix-idempotency.md (stripe_events looked up by event id before processing)
func (rc *Receiver) HandleStripe(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	var one int
	err = rc.db.QueryRowContext(ctx, `SELECT 1 FROM stripe_events WHERE event_id = $1`, ev.ID).Scan(&one)
	if err == nil {
		w.WriteHeader(http.StatusOK) // delivered before
		return
	}
	if !errors.Is(err, sql.ErrNoRows) {
		http.Error(w, "lookup failed", http.StatusInternalServerError)
		return
	}
	pi, err := decodeIntent(ev)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := rc.orders.MarkPaid(ctx, pi.Metadata["order_id"], pi.Amount); err != nil {
		http.Error(w, "apply failed", http.StatusInternalServerError)
		return
	}
	if _, err := rc.db.ExecContext(ctx,
		`INSERT INTO stripe_events (event_id, event_type, received_at) VALUES ($1, $2, now())`,
		ev.ID, string(ev.Type)); err != nil {
		rc.log.WarnContext(ctx, "record stripe event", "event", ev.ID, "err", err)
	}
	w.WriteHeader(http.StatusOK)
}

// HandleStripeClaimed applies a payment_intent.succeeded event to its
// order. The event id is claimed in the same transaction that applies it.
//
// corpus: ok checkthenact
// modelled on: geinersito/paris-luxe-journey supabase/migrations/20260227100000_processed_stripe_events.sql (event_id inserted first; a conflict means already handled)
func (rc *Receiver) HandleStripeClaimed(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	pi, err := decodeIntent(ev)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tx, err := rc.db.BeginTx(ctx, nil)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx,
		`INSERT INTO stripe_events (event_id, event_type, received_at) VALUES ($1, $2, now())
		 ON CONFLICT (event_id) DO NOTHING`, ev.ID, string(ev.Type))
	if err != nil {
		http.Error(w, "claim failed", http.StatusInternalServerError)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		w.WriteHeader(http.StatusOK) // delivered before
		return
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE orders SET paid_cents = $2, status = 'paid' WHERE id = $1`,
		pi.Metadata["order_id"], pi.Amount); err != nil {
		http.Error(w, "apply failed", http.StatusInternalServerError)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, "commit failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
