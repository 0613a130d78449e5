// Package webhooks receives Stripe's webhooks. Stripe redelivers an event
// until it gets a 2xx, for up to three days, so each event ID must be
// fulfilled once however often it arrives.
package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Event is the part of a Stripe event the receiver reads.
type Event struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Fulfiller does the work an event asks for.
type Fulfiller interface {
	Fulfil(ctx context.Context, ev Event) error
}

// Stripe serves POST /webhooks/stripe.
type Stripe struct {
	DB     *sql.DB
	Secret []byte
	Work   Fulfiller
}

func (s *Stripe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || !s.verify(r.Header.Get("Stripe-Signature"), payload) {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var ev Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		http.Error(w, "malformed event", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	var seen bool
	if err := s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)`, ev.ID).Scan(&seen); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	if seen {
		w.WriteHeader(http.StatusOK) // a redelivery
		return
	}
	if err := s.Work.Fulfil(ctx, ev); err != nil {
		http.Error(w, "fulfilment failed", http.StatusInternalServerError)
		return
	}
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO processed_events (event_id, type) VALUES ($1, $2)`, ev.ID, ev.Type); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// verify checks the v1 signature of a Stripe-Signature header
// ("t=...,v1=..."): an HMAC-SHA256 of "t.payload" under the endpoint secret.
func (s *Stripe) verify(header string, payload []byte) bool {
	var t, sig string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			t = v
		case "v1":
			sig = v
		}
	}
	want, err := hex.DecodeString(sig)
	if err != nil || t == "" {
		return false
	}
	mac := hmac.New(sha256.New, s.Secret)
	mac.Write([]byte(t + "."))
	mac.Write(payload)
	return hmac.Equal(mac.Sum(nil), want)
}
