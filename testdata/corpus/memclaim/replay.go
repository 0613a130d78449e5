package memclaim

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Quotes prices deliveries for the checkout page of a single-process
// shop; the page resends a quote request it got no answer to, under the
// same Idempotency-Key.
type Quotes struct {
	mu      sync.Mutex
	answers map[string]*quoteAnswer

	refunds sync.Map // Idempotency-Key -> *refundEntry

	price  func(ctx context.Context, from, to string) (int64, error)
	refund func(ctx context.Context, orderID string) (string, error)
}

type quoteAnswer struct {
	pending bool
	code    int
	payload []byte
	at      time.Time
}

type quoteRequest struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ServeQuote is POST /quotes. The key is claimed under the lock with an
// in-progress entry; the entry that completes it keeps the status code
// and not the quote, so a retry gets a status with an empty body.
//
// corpus: bug cacheresponse
// modelled on: liberbell/go31 lesson1/cache/cache.go (responses kept in a map behind a sync.RWMutex, keyed by request)
func (q *Quotes) ServeQuote(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in quoteRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	if prev, ok := q.answers[key]; ok {
		q.mu.Unlock()
		if prev.pending {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		w.WriteHeader(prev.code)
		_, _ = w.Write(prev.payload)
		return
	}
	q.answers[key] = &quoteAnswer{pending: true}
	q.mu.Unlock()

	cents, err := q.price(r.Context(), in.From, in.To)
	if err != nil {
		q.mu.Lock()
		delete(q.answers, key)
		q.mu.Unlock()
		http.Error(w, "pricing unavailable", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]int64{"cents": cents})
	q.mu.Lock()
	q.answers[key] = &quoteAnswer{code: http.StatusOK, at: time.Now()}
	q.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// ServeQuoteReplaying is POST /v2/quotes: the completing entry keeps the
// status and the quote, and a retry gets both back.
//
// corpus: ok cacheresponse
// modelled on: liberbell/go31 lesson1/cache/cache.go (responses kept in a map behind a sync.RWMutex: header, code and body)
func (q *Quotes) ServeQuoteReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in quoteRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	if prev, ok := q.answers[key]; ok {
		q.mu.Unlock()
		if prev.pending {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		w.WriteHeader(prev.code)
		_, _ = w.Write(prev.payload)
		return
	}
	q.answers[key] = &quoteAnswer{pending: true}
	q.mu.Unlock()

	cents, err := q.price(r.Context(), in.From, in.To)
	if err != nil {
		q.mu.Lock()
		delete(q.answers, key)
		q.mu.Unlock()
		http.Error(w, "pricing unavailable", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]int64{"cents": cents})
	q.mu.Lock()
	q.answers[key] = &quoteAnswer{code: http.StatusOK, payload: body, at: time.Now()}
	q.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

type refundEntry struct {
	state  string
	result []byte
}

// ServeRefund is POST /orders/{id}/refund. LoadOrStore claims the key;
// the entry stored when the refund is through says "done" and keeps
// nothing of the refund's answer.
//
// corpus: bug cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (in-memory store of responses keyed by idempotency key) with sync.Map
func (q *Quotes) ServeRefund(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "missing Idempotency-Key", http.StatusBadRequest)
		return
	}
	if v, loaded := q.refunds.LoadOrStore(key, &refundEntry{state: "processing"}); loaded {
		prev := v.(*refundEntry)
		if prev.state != "done" {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		_, _ = w.Write(prev.result)
		return
	}
	refundID, err := q.refund(r.Context(), r.PathValue("id"))
	if err != nil {
		q.refunds.Delete(key)
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	out, _ := json.Marshal(map[string]string{"refund_id": refundID})
	q.refunds.Store(key, &refundEntry{state: "done"})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// ServeRefundReplaying is POST /v2/orders/{id}/refund: the entry stored
// when the refund is through keeps its answer.
//
// corpus: ok cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (in-memory store of responses keyed by idempotency key) with sync.Map
func (q *Quotes) ServeRefundReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "missing Idempotency-Key", http.StatusBadRequest)
		return
	}
	if v, loaded := q.refunds.LoadOrStore(key, &refundEntry{state: "processing"}); loaded {
		prev := v.(*refundEntry)
		if prev.state != "done" {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		_, _ = w.Write(prev.result)
		return
	}
	refundID, err := q.refund(r.Context(), r.PathValue("id"))
	if err != nil {
		q.refunds.Delete(key)
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	out, _ := json.Marshal(map[string]string{"refund_id": refundID})
	q.refunds.Store(key, &refundEntry{state: "done", result: out})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// Refresh reprices a cached quote: it overwrites an entry it put there
// itself a moment ago, with the quote in it, as the page polls.
//
// corpus: ok cacheresponse
// modelled on: liberbell/go31 lesson1/cache/cache.go (responses kept in a map behind a sync.RWMutex) refreshed in place
func (q *Quotes) Refresh(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("quote")
	q.mu.Lock()
	q.answers[key] = &quoteAnswer{pending: true, at: time.Now()}
	q.mu.Unlock()
	cents, err := q.price(r.Context(), r.URL.Query().Get("from"), r.URL.Query().Get("to"))
	if err != nil {
		http.Error(w, "pricing unavailable", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]int64{"cents": cents})
	q.mu.Lock()
	q.answers[key] = &quoteAnswer{code: http.StatusOK, payload: body, at: time.Now()}
	q.mu.Unlock()
	_, _ = w.Write(body)
}
