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

// The repository's completion is given no body.
func (a *api) hold(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	body, _ := json.Marshal(map[string]string{"hold": "h_1"})
	a.keys.SaveResponse(r.Context(), key, http.StatusCreated, nil) // want `SaveResponse stores an empty response: it marks the key claimed by start at start.go:\d+ completed`
	w.Write(body)
}

type printer struct {
	keys  keyStore
	print func(ctx context.Context) (int, error)
}

// Negative: a count of labels is no answer to replay.
func (p *printer) printList(ctx context.Context, list string) (int, error) {
	ok, err := p.keys.Claim(ctx, list)
	if err != nil || !ok {
		return 0, err
	}
	n, err := p.print(ctx)
	if err != nil {
		p.keys.Release(context.WithoutCancel(ctx), list)
		return 0, err
	}
	return n, p.keys.SaveResponse(ctx, list, http.StatusOK, nil)
}

// Negative: a 204 has no body to store.
func (a *api) lift(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	a.keys.SaveResponse(r.Context(), key, http.StatusNoContent, nil)
	w.WriteHeader(http.StatusNoContent)
}
