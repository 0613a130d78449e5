package cacheresponse

import (
	"context"
	"encoding/json"
	"net/http"
)

// keyStore is the repository the handlers claim through.
type keyStore interface {
	Claim(ctx context.Context, key string) (bool, error)
	Answer(ctx context.Context, key string) ([]byte, bool, error)
	SaveResponse(ctx context.Context, key string, code int, body []byte) error
	Release(ctx context.Context, key string) error
}

type api struct{ keys keyStore }

// start claims the request's key and answers a replay itself; true hands
// the claim to the caller.
func (a *api) start(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := r.Header.Get("Idempotency-Key")
	claimed, err := a.keys.Claim(r.Context(), key)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return "", false
	}
	if !claimed {
		body, ok, err := a.keys.Answer(r.Context(), key)
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return "", false
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.Write(body)
		return "", false
	}
	return key, true
}

// The claim start made is never completed.
func (a *api) checkout(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	_ = key
	json.NewEncoder(w).Encode(map[string]string{"order": "o_1"})
} // want `the end of the function answers without recording the response under the key claimed by start at start.go:\d+`

// Negative: the answer is saved under the key.
func (a *api) checkoutStored(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	body, _ := json.Marshal(map[string]string{"order": "o_2"})
	a.keys.SaveResponse(r.Context(), key, http.StatusCreated, body)
	w.Write(body)
}
