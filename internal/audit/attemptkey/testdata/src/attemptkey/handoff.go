package attemptkey

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// A key handed to the client in the page or the answer is made where the
// user acts once: the client sends it with every attempt of its next
// request.
var payForm = template.Must(template.New("pay").Parse(`<input type="hidden" name="idempotency_key" value="{{.IdempotencyKey}}">`))

type payPage struct {
	CartID         string
	IdempotencyKey string
}

func renderPayPage(w http.ResponseWriter, r *http.Request) {
	page := payPage{CartID: r.URL.Query().Get("cart"), IdempotencyKey: uuid.NewString()}
	_ = payForm.Execute(w, page)
}

func renderPayPageMap(w http.ResponseWriter, r *http.Request) {
	_ = payForm.Execute(w, map[string]string{"IdempotencyKey": uuid.NewString()})
}

func prepareCheckout(w http.ResponseWriter, r *http.Request) {
	_ = json.NewEncoder(w).Encode(map[string]string{"idempotency_key": uuid.NewString()})
}

type prepared struct {
	IdempotencyKey string `json:"idempotency_key"`
}

func prepareCheckoutBytes(w http.ResponseWriter, r *http.Request) {
	var out prepared
	out.IdempotencyKey = uuid.NewString()
	b, _ := json.Marshal(out)
	_, _ = w.Write(b)
}

// The same body sent on to a downstream is a key made per request.
func forwardCheckout(w http.ResponseWriter, r *http.Request) {
	b, _ := json.Marshal(map[string]string{"idempotency_key": uuid.NewString()}) // want `for each request to forwardCheckout reaches the idempotency_key entry`
	resp, err := http.Post("https://pay.example.com/checkout", "application/json", bytes.NewReader(b))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	_ = resp.Body.Close()
	w.WriteHeader(http.StatusAccepted)
}

// A key filled in only while its record has none, and stored before it
// is sent, is made once for the record: later attempts read it back.
type payment struct {
	ID             string
	Amount         int64
	IdempotencyKey string
}

type payments2 struct {
	get    func(ctx context.Context, id string) (*payment, error)
	setKey func(ctx context.Context, id, key string) error
	create func(ctx context.Context, p *stripe.PaymentIntentCreateParams) error
}

func (s *payments2) chargeStored(ctx context.Context, id string) error {
	p, err := s.get(ctx, id)
	if err != nil {
		return err
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = uuid.NewString()
		if err := s.setKey(ctx, p.ID, p.IdempotencyKey); err != nil {
			return err
		}
	}
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(p.Amount)}
	params.SetIdempotencyKey(p.IdempotencyKey)
	return s.create(ctx, params)
}

func (s *payments2) chargeUnstored(ctx context.Context, id string) error {
	p, err := s.get(ctx, id)
	if err != nil {
		return err
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = uuid.NewString()
	}
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(p.Amount)}
	params.SetIdempotencyKey(p.IdempotencyKey)
	return s.create(ctx, params)
}

func (s *payments2) retryStored(ctx context.Context, id string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.chargeStored(ctx, id); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func (s *payments2) retryUnstored(ctx context.Context, id string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.chargeUnstored(ctx, id); err == nil { // want `made by chargeUnstored .* inside the retry loop`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A record held from before the loop is filled in on the first turn only.
func (s *payments2) retryHeld(ctx context.Context, p *payment) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if p.IdempotencyKey == "" {
			p.IdempotencyKey = uuid.NewString()
		}
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(p.Amount)}
		params.SetIdempotencyKey(p.IdempotencyKey)
		if err = s.create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// One made in the turn is empty on every turn.
func (s *payments2) retryMadeInTurn(ctx context.Context, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		p := &payment{Amount: amount}
		if p.IdempotencyKey == "" {
			p.IdempotencyKey = uuid.NewString() // want `inside the retry loop at handoff.go:\d+ reaches IdempotencyKey`
		}
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(p.Amount)}
		params.SetIdempotencyKey(p.IdempotencyKey)
		if err = s.create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
