package attemptkey

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/stripe/stripe-go/v82"
)

type Order struct {
	ID     string
	Amount int64
}

// The server makes the key per request: a client retry is a new charge.
func handleCharge(sc *stripe.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var o Order
		json.NewDecoder(r.Body).Decode(&o)
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(o.Amount)}
		params.SetIdempotencyKey(ulid.Make().String()) // want `idempotency key made by ulid.Make at http.go:27 for each request to the handler at http.go:23 reaches SetIdempotencyKey: a retried request sends a new key; take the client's Idempotency-Key header or derive the key from the request's event or message ID \(attemptkey\)`
		sc.V1PaymentIntents.Create(r.Context(), params)
	}
}

// The client's key, from the request header.
func handleChargeClientKey(sc *stripe.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var o Order
		json.NewDecoder(r.Body).Decode(&o)
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(o.Amount)}
		params.SetIdempotencyKey(r.Header.Get("Idempotency-Key") + ":charge")
		sc.V1PaymentIntents.Create(r.Context(), params)
	}
}

// A new order gets a new ID: an entity ID, not a key.
func handleCreateOrder(w http.ResponseWriter, r *http.Request) {
	o := Order{ID: uuid.NewString()}
	req, _ := http.NewRequestWithContext(r.Context(), "POST", "https://orders.internal/orders", nil)
	req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
	req.Header.Set("X-Order-Id", o.ID)
	w.Header().Set("Location", "/orders/"+o.ID)
	http.DefaultClient.Do(req)
}

// An outgoing request whose key is made per incoming request, in a helper
// called from the handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.forward(r.Context(), newKey(), []byte("{}")) // want `idempotency key made by newKey \(time.Now at http.go:62\) at http.go:56 for each request to ServeHTTP reaches forward, whose key parameter reaches the Idempotency-Key header at http.go:70`
}

type Server struct{ client *http.Client }

func newKey() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36)
}

func (s *Server) forward(ctx context.Context, key string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, "POST", "https://payments.internal/charges", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key) // a parameter: the caller decides
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// A server-side key echoed on the response is not sent anywhere.
func handleEcho(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Idempotency-Key", uuid.NewString())
}

// A webhook receiver keys by the provider's event ID.
func handleWebhook(s *Server) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var ev struct{ ID string }
		json.NewDecoder(r.Body).Decode(&ev)
		s.forward(r.Context(), "evt:"+ev.ID, nil)
	}
}

// A cron slot: the same key for every run in the hour.
func hourly(s *Server, ctx context.Context) {
	for range 3 {
		slot := time.Now().Truncate(time.Hour)
		if err := s.forward(ctx, "report:"+slot.Format(time.RFC3339), nil); err == nil {
			return
		}
	}
}

// postWith sends body with the headers it is given.
func postWith(ctx context.Context, url string, body []byte, hdr http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = hdr
	_, err = http.DefaultClient.Do(req)
	return err
}

// transferRetrying builds its headers apart from the request, a fresh
// key in each attempt.
func transferRetrying(ctx context.Context, body []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", uuid.NewString()) // want `idempotency key made by uuid.NewString at http.go:\d+ inside the retry loop at http.go:\d+ reaches the Idempotency-Key header`
		if err = postWith(ctx, "https://bank.example/transfers", body, hdr); err == nil {
			return nil
		}
	}
	return err
}

// transferKeyed keeps one key across its attempts.
func transferKeyed(ctx context.Context, transferID string, body []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		hdr := http.Header{}
		hdr.Set("Idempotency-Key", "transfer:"+transferID)
		hdr.Set("X-Request-Id", uuid.NewString())
		if err = postWith(ctx, "https://bank.example/transfers", body, hdr); err == nil {
			return nil
		}
	}
	return err
}

// Task is a task queue's unit of work as a service's own type: its queue
// keeps the task's ID beside it, in the handler's context.
type Task struct {
	Type    string
	Payload []byte
}

func mailReceipt(ctx context.Context, key string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://mail.example/send", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	_, err = http.DefaultClient.Do(req)
	return err
}

// HandleReceipt is retried by its queue: a key made here is new on every
// delivery of the same task.
func HandleReceipt(ctx context.Context, t *Task) error {
	return mailReceipt(ctx, "receipt-"+uuid.NewString(), t.Payload) // want `idempotency key made by uuid.NewString at http.go:\d+ inside the consumer HandleReceipt at http.go:\d+ reaches mailReceipt`
}
