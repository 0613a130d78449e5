package attemptkey

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Webhooks delivers events to subscribers.
type Webhooks struct {
	client *http.Client
	js     jetstream.JetStream
}

// send makes the delivery's ID itself: each call is a new delivery.
func (w *Webhooks) send(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", "dlv_"+uuid.NewString())
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// The retry loop calls send, which makes a new delivery ID per attempt.
func (w *Webhooks) Deliver(ctx context.Context, url string, body []byte) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = w.send(ctx, url, body); err == nil { // want `idempotency key made by send \(uuid.NewString at callee.go:\d+, reaching the Idempotency-Key header at callee.go:\d+\) inside the retry loop at callee.go:\d+: every attempt sends a new key`
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// Two calls deep: publish names the resource, create sends it.
func (w *Webhooks) create(ctx context.Context, subject string) error {
	name := fmt.Sprintf("res-%d", time.Now().UnixNano())
	_, err := w.js.Publish(ctx, subject, nil, jetstream.WithMsgID(name))
	return err
}

func (w *Webhooks) publish(ctx context.Context, subject string) error {
	return w.create(ctx, subject)
}

func (w *Webhooks) Provision(ctx context.Context, subject string) error {
	return backoff.Retry(func() error {
		return w.publish(ctx, subject) // want `made by publish \(through create: time.Now at callee.go:\d+, reaching the NATS message ID \(WithMsgID\)`
	}, backoff.NewExponentialBackOff())
}

// The operation is a method value: backoff calls it once per attempt.
func (w *Webhooks) sendOne(ctx context.Context) error {
	msg := nats.NewMsg("orders")
	msg.Header.Set(nats.MsgIdHdr, uuid.NewString())
	_, err := w.js.PublishMsg(ctx, msg)
	return err
}

func (w *Webhooks) ProvisionAll(ctx context.Context) error {
	return backoff.Retry(func() error { return w.sendOne(ctx) }, backoff.NewExponentialBackOff()) // want `made by sendOne \(uuid.NewString at callee.go:\d+, reaching the Nats-Msg-Id header`
}

func (w *Webhooks) ProvisionRef(ctx context.Context) error {
	return backoff.Retry(w.sendTwo, backoff.NewExponentialBackOff()) // want `made by sendTwo \(uuid.NewString at callee.go:\d+, reaching the Nats-Msg-Id header at callee.go:\d+\) inside the call of Retry at callee.go:\d+: every attempt`
}

func (w *Webhooks) sendTwo() error {
	msg := nats.NewMsg("orders")
	msg.Header["Nats-Msg-Id"] = []string{uuid.NewString()}
	_, err := w.js.PublishMsg(context.Background(), msg)
	return err
}

// The fix: the caller makes the ID once and send takes it.
func (w *Webhooks) sendWithID(ctx context.Context, url, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", id)
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (w *Webhooks) DeliverOnce(ctx context.Context, url string, body []byte) error { // want DeliverOnce:"makes uuid.NewString at callee.go:\\d+, reaching sendWithID"
	id := "dlv_" + uuid.NewString()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = w.sendWithID(ctx, url, id, body); err == nil {
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// send called once per subscriber, not per attempt.
func (w *Webhooks) Fanout(ctx context.Context, urls []string, body []byte) { // want Fanout:"makes through send: uuid.NewString"
	for i := 0; i < len(urls); i++ {
		w.send(ctx, urls[i], body)
	}
}

// A callee that retries by itself is reported there, not again where it
// is called once.
func (w *Webhooks) sendRetrying(ctx context.Context, url string) error {
	var err error
	for range 3 {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the retry loop at callee.go:\d+ reaches the Idempotency-Key header`
		if _, err = w.client.Do(req); err == nil {
			return nil
		}
	}
	return err
}

func (w *Webhooks) Notify(ctx context.Context, urls []string) {
	for range 2 {
		if err := w.sendRetrying(ctx, urls[0]); err == nil {
			return
		}
	}
}
