package processor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The processor's HTTP API, which Handler serves and Client calls:
//
//	POST /v1/charges  {"amount":4200,"currency":"eur","card":"..."} with the key in Idempotency-Key
//	                  and the caller's request in X-Request-Id: 200 and the Charge, or 402, 409
//	                  or 503 and {"error": code}
//	GET  /v1/stats    Stats
//	GET  /v1/calls    every Call, in the order they arrived
const (
	headerKey       = "Idempotency-Key"
	headerRequestID = "X-Request-Id"
)

// The error codes of the API, one per error of Charge.
var errorCodes = map[string]error{
	"card_declined":          ErrDeclined,
	"processor_unavailable":  ErrUnavailable,
	"idempotency_key_reused": ErrKeyReused,
}

type chargeParams struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Card     string `json:"card"`
}

// Handler serves p over HTTP. A charge whose caller hangs up mid-call is still carried out, as a
// real provider's would be once the request reached it: the caller only loses the answer. The
// call records that its caller was gone (Call.Cancelled).
func (p *Processor) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(headerKey)
		var req chargeParams
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || key == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		caller := WithRequestID(r.Context(), r.Header.Get(headerRequestID))
		ch, err := p.charge(context.WithoutCancel(caller), caller, key, req.Amount, req.Currency, req.Card)
		switch {
		case errors.Is(err, ErrDeclined):
			writeJSON(w, http.StatusPaymentRequired, map[string]string{"error": "card_declined"})
		case errors.Is(err, ErrKeyReused):
			writeJSON(w, http.StatusConflict, map[string]string{"error": "idempotency_key_reused"})
		case err != nil:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "processor_unavailable"})
		default:
			writeJSON(w, http.StatusOK, ch)
		}
	})
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.Stats())
	})
	mux.HandleFunc("GET /v1/calls", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.Calls())
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Client reaches a Processor served by Handler, with the same Charge as the in-process one.
type Client struct {
	base string
	hc   *http.Client
}

// NewClient returns a client of the processor at baseURL (the root Handler is served at), making
// its requests with hc (nil: http.DefaultClient).
func NewClient(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimSuffix(baseURL, "/"), hc: hc}
}

// Charge is Processor.Charge over HTTP. A failure to reach the processor is an error other than
// the package's: the caller cannot tell whether the card was charged, and only a retry under the
// same key can find out.
func (c *Client) Charge(ctx context.Context, key string, amount int64, currency, card string) (Charge, error) {
	body, err := json.Marshal(chargeParams{Amount: amount, Currency: currency, Card: card})
	if err != nil {
		return Charge{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		return Charge{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerKey, key)
	if id := RequestID(ctx); id != "" {
		req.Header.Set(headerRequestID, id)
	}
	var ch Charge
	return ch, c.do(req, &ch)
}

// Stats is Processor.Stats over HTTP.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	return st, c.get(ctx, "/v1/stats", &st)
}

// Calls is Processor.Calls over HTTP.
func (c *Client) Calls(ctx context.Context) ([]Call, error) {
	var calls []Call
	return calls, c.get(ctx, "/v1/calls", &calls)
}

func (c *Client) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	return c.do(req, v)
}

// do sends req and decodes a 200's body into v, or returns the error the answer stands for.
func (c *Client) do(req *http.Request, v any) error {
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("processor: %s %s: reading the answer: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("processor: %s %s: %w", req.Method, req.URL.Path, err)
		}
		return nil
	}
	var e struct {
		Error string `json:"error"`
	}
	json.Unmarshal(b, &e)
	if err, ok := errorCodes[e.Error]; ok {
		return err
	}
	return fmt.Errorf("processor: %s %s: %s %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(b))
}
