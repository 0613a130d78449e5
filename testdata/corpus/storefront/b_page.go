// Package storefront serves the pages and JSON endpoints of the shop's
// checkout, and the worker that charges the payments they record.
package storefront

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"

	"github.com/google/uuid"
)

// payTmpl is the pay page: its form posts the key it was rendered with,
// so a double click or a resubmitted form is one payment.
var payTmpl = template.Must(template.New("pay").Parse(`<form method="post" action="/pay">
<input type="hidden" name="cart_id" value="{{.CartID}}">
<input type="hidden" name="idempotency_key" value="{{.IdempotencyKey}}">
<button>Pay {{.Total}}</button>
</form>`))

// payView is what the pay page shows.
type payView struct {
	CartID         string
	Total          string
	IdempotencyKey string
}

// Shop serves the checkout pages.
type Shop struct {
	Carts    func(id string) (total string, ok bool)
	Payments string // the payments service's base URL
	HTTP     *http.Client
}

// PayPage renders the pay button with a key made for this showing of the
// page: the user's one click, and every resubmission of it, carries it.
//
// corpus: ok attemptkey
// modelled on: mnavarrocarter/transbank webpay/redirect.go (a form rendered with an ID made for it, through template.Execute)
func (s *Shop) PayPage(w http.ResponseWriter, r *http.Request) {
	cartID := r.URL.Query().Get("cart")
	total, ok := s.Carts(cartID)
	if !ok {
		http.NotFound(w, r)
		return
	}
	view := payView{CartID: cartID, Total: total, IdempotencyKey: uuid.NewString()}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := payTmpl.Execute(w, view); err != nil {
		http.Error(w, "render failed", http.StatusInternalServerError)
	}
}

// sessionAnswer is what StartPayment answers the app with.
type sessionAnswer struct {
	CartID         string `json:"cart_id"`
	IdempotencyKey string `json:"idempotency_key"`
}

// StartPayment hands the mobile app the key its pay request will carry;
// the app keeps it until the payment is settled.
//
// corpus: ok attemptkey
// modelled on: mnavarrocarter/transbank webpay/redirect.go (a form rendered with an ID made for it, through template.Execute)
func (s *Shop) StartPayment(w http.ResponseWriter, r *http.Request) {
	cartID := r.URL.Query().Get("cart")
	if _, ok := s.Carts(cartID); !ok {
		http.NotFound(w, r)
		return
	}
	var out sessionAnswer
	out.CartID = cartID
	out.IdempotencyKey = uuid.NewString()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Pay forwards the form to the payments service under a key of its own,
// drawn for this request: a resubmitted form is paid again, and the key
// the page was rendered with is dropped.
//
// corpus: bug attemptkey
// modelled on: mnavarrocarter/transbank webpay/redirect.go (a form rendered with an ID made for it, through template.Execute)
func (s *Shop) Pay(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	body, _ := json.Marshal(map[string]string{
		"cart_id":         r.PostForm.Get("cart_id"),
		"idempotency_key": uuid.NewString(),
	})
	resp, err := s.HTTP.Post(s.Payments+"/v1/payments", "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, "payment failed", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	http.Redirect(w, r, "/thanks", http.StatusSeeOther)
}
