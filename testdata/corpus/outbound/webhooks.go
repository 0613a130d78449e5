package outbound

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
)

// Endpoint is a customer's webhook subscription.
type Endpoint struct {
	ID     string
	URL    string
	Secret []byte
}

// Event is something that happened in a customer's account.
type Event struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Created int64           `json:"created"`
	Data    json.RawMessage `json:"data"`
}

// WebhookSender delivers events to customers' endpoints. Customers dedup on
// the delivery's ID header, as the webhook docs tell them to.
type WebhookSender struct {
	http *http.Client
	rdb  *redis.Client
}

// sign computes the signature header over id, timestamp and body.
func sign(secret []byte, id, ts string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// post sends one signed delivery and treats anything but a 2xx as failure.
func (w *WebhookSender) post(ctx context.Context, ep Endpoint, id string, body []byte) error {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Webhook-Id", id)
	req.Header.Set("Webhook-Timestamp", ts)
	req.Header.Set("Webhook-Signature", sign(ep.Secret, id, ts, body))
	resp, err := w.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("endpoint %s answered %d", ep.ID, resp.StatusCode)
	}
	return nil
}

// sendAttempt marshals the event and sends it as a new delivery with its own
// delivery ID.
func (w *WebhookSender) sendAttempt(ctx context.Context, ep Endpoint, ev Event) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	deliveryID := "dlv_" + xid.New().String()
	return w.post(ctx, ep, deliveryID, body)
}

// Deliver retries an event to an endpoint up to five times. Each attempt
// goes through sendAttempt, which makes a new delivery ID, so an endpoint
// that processed the event but answered late sees a second delivery it
// cannot recognise as the same one.
//
// corpus: bug attemptkey
// modelled on: brentgroves/repsys volumes/go/tutorials/webhook/webhook.md (webhook sender retrying with exponential backoff)
func (w *WebhookSender) Deliver(ctx context.Context, ep Endpoint, ev Event) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = w.sendAttempt(ctx, ep, ev); err == nil {
			return nil
		}
		if perr := pause(ctx, attempt); perr != nil {
			return perr
		}
	}
	return err
}

// DeliverWithRetry retries with retry-go and mints the delivery's ID inside
// the retried function.
//
// corpus: bug attemptkey
// modelled on: dmitrymomot/saaskit pkg/webhook/README.md (Send with automatic retries and exponential backoff)
func (w *WebhookSender) DeliverWithRetry(ctx context.Context, ep Endpoint, ev Event) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return retry.Do(func() error {
		id := "msg_" + ulid.Make().String()
		return w.post(ctx, ep, id, body)
	}, retry.Attempts(5), retry.Context(ctx), retry.Delay(time.Second))
}

// DeliverStable uses the event and the endpoint as the delivery's ID on
// every attempt; only the timestamp, inside post, changes.
//
// corpus: ok attemptkey
// modelled on: dmitrymomot/saaskit pkg/webhook/README.md (Send with automatic retries and exponential backoff)
func (w *WebhookSender) DeliverStable(ctx context.Context, ep Endpoint, ev Event) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	id := "msg_" + ev.ID + "_" + ep.ID
	return retry.Do(func() error {
		return w.post(ctx, ep, id, body)
	}, retry.Attempts(5), retry.Context(ctx), retry.Delay(time.Second))
}

// DeliverOnce is run by every replica's outbox poller. It claims the
// delivery, sends it and marks it "delivered"; a webhook has no answer to
// replay, so the mark is all a second poller needs.
//
// corpus: ok cacheresponse
// modelled on: brentgroves/repsys volumes/go/tutorials/webhook/webhook.md (webhook jobs taken from a Redis channel and sent once)
func (w *WebhookSender) DeliverOnce(ctx context.Context, ep Endpoint, ev Event) error {
	key := "webhook:" + ev.ID + ":" + ep.ID
	ok, err := w.rdb.SetNX(ctx, key, "sending", 10*time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	body, err := json.Marshal(ev)
	if err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	if err := w.post(ctx, ep, "msg_"+ev.ID+"_"+ep.ID, body); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return w.rdb.Set(ctx, key, "delivered", 72*time.Hour).Err()
}
