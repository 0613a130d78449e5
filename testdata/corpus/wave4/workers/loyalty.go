package workers

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"

	"example.com/corpus/wave4/promos"
	"example.com/corpus/wave4/promos/sqlxrepo"
)

// OrderCompleted is published when an order is delivered.
type OrderCompleted struct {
	OrderID    string `json:"order_id"`
	CustomerID string `json:"customer_id"`
	TotalCents int64  `json:"total_cents"`
}

// LoyaltyWorker credits loyalty points for delivered orders and tells the
// partner CRM about them.
type LoyaltyWorker struct {
	log     *sqlxrepo.Redemptions
	credits promos.Credits
	http    *http.Client
	crmURL  string
}

// NewLoyaltyWorker returns a LoyaltyWorker.
func NewLoyaltyWorker(log *sqlxrepo.Redemptions, credits promos.Credits, hc *http.Client, crmURL string) *LoyaltyWorker {
	return &LoyaltyWorker{log: log, credits: credits, http: hc, crmURL: crmURL}
}

func points(totalCents int64) int64 { return totalCents / 100 }

// OnOrderCompleted credits points for a delivered order.
//
// corpus: bug checkthenact
// modelled on: veetech-ai/fc-kiosk-server services/coupon_used.js (isExists, then create, from a caller)
func (lw *LoyaltyWorker) OnOrderCompleted(ctx context.Context, m *nats.Msg) error {
	var ev OrderCompleted
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		return m.Term()
	}
	promo := "loyalty:" + ev.OrderID
	done, err := lw.log.Redeemed(ctx, promo, ev.CustomerID)
	if err != nil {
		return m.Nak()
	}
	if done {
		return m.Ack()
	}
	if err := lw.log.Append(ctx, promos.Redemption{ID: ev.OrderID, PromoID: promo, CustomerID: ev.CustomerID, OrderID: ev.OrderID}); err != nil {
		return m.Nak()
	}
	if err := lw.credits.Add(ctx, ev.CustomerID, points(ev.TotalCents), promo); err != nil {
		return m.Nak()
	}
	return m.Ack()
}

// OnOrderCompletedOnce credits points for a delivered order.
//
// corpus: ok checkthenact
// modelled on: veetech-ai/fc-kiosk-server services/coupon_used.js (redemption per user and coupon) with the insert deciding
func (lw *LoyaltyWorker) OnOrderCompletedOnce(ctx context.Context, m *nats.Msg) error {
	var ev OrderCompleted
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		return m.Term()
	}
	promo := "loyalty:" + ev.OrderID
	added, err := lw.log.AppendUnlessRedeemed(ctx, promos.Redemption{ID: ev.OrderID, PromoID: promo, CustomerID: ev.CustomerID, OrderID: ev.OrderID})
	if err != nil {
		return m.Nak()
	}
	if !added {
		return m.Ack()
	}
	if err := lw.credits.Add(ctx, ev.CustomerID, points(ev.TotalCents), promo); err != nil {
		return m.Nak()
	}
	return m.Ack()
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (lw *LoyaltyWorker) postCRM(ctx context.Context, key string, ev OrderCompleted) error {
	body, _ := json.Marshal(map[string]any{"customer": ev.CustomerID, "order": ev.OrderID, "points": points(ev.TotalCents)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, lw.crmURL+"/activities", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := lw.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("crm: %s", resp.Status)
	}
	return nil
}

// NotifyCRM records the delivered order as an activity in the partner
// CRM, retrying while the CRM is unavailable.
//
// corpus: bug attemptkey
// modelled on: Murtadah-1984/Payment docs/02-Payment/Webhook_Retry_Mechanism.md (delivery retried with exponential backoff)
func (lw *LoyaltyWorker) NotifyCRM(ctx context.Context, ev OrderCompleted) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = lw.postCRM(ctx, randomToken(), ev); err == nil {
			return nil
		}
		time.Sleep(time.Duration(1<<attempt) * time.Second)
	}
	return err
}

// NotifyCRMKeyed records the delivered order as an activity in the
// partner CRM, retrying while the CRM is unavailable.
//
// corpus: ok attemptkey
// modelled on: Murtadah-1984/Payment docs/02-Payment/Webhook_Retry_Mechanism.md (delivery retried with exponential backoff)
func (lw *LoyaltyWorker) NotifyCRMKeyed(ctx context.Context, ev OrderCompleted) error {
	key := "order-completed:" + ev.OrderID
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = lw.postCRM(ctx, key, ev); err == nil {
			return nil
		}
		time.Sleep(time.Duration(1<<attempt) * time.Second)
	}
	return err
}
