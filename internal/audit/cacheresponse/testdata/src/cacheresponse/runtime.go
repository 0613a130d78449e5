package cacheresponse

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"time"

	"example.com/shop/idem"
	"example.com/shop/keys"
)

var errInProgress = errors.New("in progress")

func work(ctx context.Context) (idem.Response, error) { return idem.Response{}, nil }

func claimed(ctx context.Context, store idem.Store, key string) (idem.Claim, bool) {
	c, err := store.Claim(ctx, key, "fp", time.Minute, time.Hour)
	if err != nil || !c.Held() {
		return c, false
	}
	return c, true
}

func (s *server) transfer(ctx context.Context, store idem.Store, key, token string) (*receipt, error) {
	rc := &receipt{ID: "t_1"}
	if err := store.Complete(ctx, key, token, idem.Response{}, time.Hour); err != nil { // want `Complete completes the key with an empty response: a retry gets nothing back instead of what this call answered; pass the status, headers and marshalled body \(cacheresponse\)`
		return nil, err
	}
	return rc, nil
}

func (s *server) refund(w http.ResponseWriter, r *http.Request, store idem.Store, key, token string) {
	store.Complete(r.Context(), key, token, idem.Response{Status: http.StatusCreated}, time.Hour) // want `Complete completes the key with a status-only response`
	json.NewEncoder(w).Encode(receipt{ID: "rf_1"})
}

func (s *server) job(ctx context.Context, id string) ([]byte, error) {
	out := []byte(`{"ok":true}`)
	if err := keys.Done(ctx, id, nil); err != nil { // want `Done completes the key with an empty response`
		return nil, err
	}
	return out, nil
}

func (s *server) jobMarked(ctx context.Context, id string) ([]byte, error) {
	out := []byte(`{"ok":true}`)
	return out, keys.MarkDone(ctx, id) // want `MarkDone completes the key without the response: it takes none, so a retry cannot get back what this call answered; complete with the status and marshalled body \(cacheresponse\)`
}

func storeFailure(ctx context.Context, store idem.Store, key, token string, err error) error {
	return store.Complete(ctx, key, token, idem.Response{Status: http.StatusServiceUnavailable, Body: []byte(err.Error())}, time.Hour) // want `Complete stores a 503 response as the key's result: every retry within the TTL gets the transient failure back instead of running again; release the key on a 5xx and complete only 2xx and 4xx \(cacheresponse\)`
}

func record(ctx context.Context, store idem.Store, key, token string, h http.Handler, r *http.Request) error {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return store.Complete(ctx, key, token, idem.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, time.Hour) // want `Complete stores the status rec.Code without a check for 5xx before it`
}

func recordResponse(ctx context.Context, store idem.Store, key, token string) error {
	resp, err := work(ctx)
	if err != nil {
		return store.Release(ctx, key, token)
	}
	return store.Complete(ctx, key, token, resp, time.Hour) // want `Complete stores resp whatever its status, without a check for 5xx before it`
}

// Negatives.

func recordChecked(ctx context.Context, store idem.Store, key, token string, h http.Handler, r *http.Request) error {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code >= 500 {
		return store.Release(ctx, key, token)
	}
	return store.Complete(ctx, key, token, idem.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, time.Hour)
}

func (s *server) transferStoring(ctx context.Context, store idem.Store, key, token string) (*receipt, error) {
	rc := &receipt{ID: "t_1"}
	body, err := json.Marshal(rc)
	if err != nil {
		return nil, err
	}
	if err := store.Complete(ctx, key, token, idem.Response{Status: http.StatusCreated, Body: body}, time.Hour); err != nil {
		return nil, err
	}
	return rc, nil
}

func (s *server) rejected(w http.ResponseWriter, r *http.Request, store idem.Store, key, token string) {
	body := []byte(`{"error":"card declined"}`)
	store.Complete(r.Context(), key, token, idem.Response{Status: http.StatusPaymentRequired, Body: body}, time.Hour)
	w.WriteHeader(http.StatusPaymentRequired)
	w.Write(body)
}

func (s *server) jobStoring(ctx context.Context, id string) ([]byte, error) {
	out := []byte(`{"ok":true}`)
	return out, keys.Done(ctx, id, out)
}

// Keeper.Do's shape: the response is stored only when Caches says so.
func finish(ctx context.Context, k *idem.Keeper, key, token string) error {
	resp, err := work(ctx)
	if err != nil || !k.Caches(resp) {
		return k.Store.Release(ctx, key, token)
	}
	return k.Store.Complete(ctx, key, token, resp, time.Hour)
}

// A queue consumer has no response to keep: completing it empty is right.
func consumeOnce(ctx context.Context, store idem.Store, msgID string) error {
	c, ok := claimed(ctx, store, msgID)
	if !ok {
		return nil
	}
	return store.Complete(ctx, msgID, c.Token, idem.Response{}, 24*time.Hour)
}

// The runtime's Do and middleware record the response themselves.
func (s *server) viaDo(ctx context.Context, store idem.Store, key string) ([]byte, error) {
	res, err := idem.Do(ctx, store, key, "fp", work)
	return res.Response.Body, err
}

func (s *server) viaClaim(ctx context.Context, store idem.Store, key string) (*receipt, error) {
	c, err := store.Claim(ctx, key, "fp", time.Minute, time.Hour)
	if err != nil {
		return nil, err
	}
	switch c.Outcome {
	case idem.Replay:
		var rc receipt
		return &rc, json.Unmarshal(c.Record.Response.Body, &rc)
	case idem.InProgress, idem.Mismatch:
		return nil, errInProgress
	}
	rc := &receipt{ID: "v_1"}
	body, _ := json.Marshal(rc)
	return rc, store.Complete(ctx, key, c.Token, idem.Response{Status: 200, Body: body}, time.Hour)
}

// A Store wrapper passes on the response its caller chose to store.
type counting struct {
	idem.Store
	n int
}

func (c *counting) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	c.n++
	return c.Store.Complete(ctx, key, token, resp, ttl)
}

func completeWith(ctx context.Context, store idem.Store, key, token string, code int, body []byte) error {
	return store.Complete(ctx, key, token, idem.Response{Status: code, Body: body}, time.Hour)
}

// The response is set once, outside the closure that stores it.
var fixture = idem.Response{Status: 200, Body: []byte("ok")}

func replayFixture(ctx context.Context, store idem.Store, tokens []string) {
	for _, tok := range tokens {
		func() {
			store.Complete(ctx, "k", tok, fixture, time.Hour)
		}()
	}
}
