package releaseonerror

import (
	"context"
	"net/http"
)

type keyStore interface {
	Claim(ctx context.Context, key string) (bool, error)
	Answer(ctx context.Context, key string) ([]byte, bool, error)
	SaveResponse(ctx context.Context, key string, code int, body []byte) error
	Release(ctx context.Context, key string) error
}

type api struct{ keys keyStore }

// start claims the request's key; true hands the claim to the caller.
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
		w.Write(body)
		return "", false
	}
	return key, true
}

// A failure after start leaves its claim held.
func (a *api) checkout(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	if err := send(r.Context(), key); err != nil {
		http.Error(w, "checkout failed", http.StatusBadGateway) // want `this 502 response leaves the key claimed by start at start.go:\d+ held`
		return
	}
	a.keys.SaveResponse(r.Context(), key, http.StatusCreated, []byte(`{}`))
	w.WriteHeader(http.StatusCreated)
}

// Negative: the failure releases it.
func (a *api) checkoutReleasing(w http.ResponseWriter, r *http.Request) {
	key, ok := a.start(w, r)
	if !ok {
		return
	}
	if err := send(r.Context(), key); err != nil {
		a.keys.Release(context.WithoutCancel(r.Context()), key)
		http.Error(w, "checkout failed", http.StatusBadGateway)
		return
	}
	a.keys.SaveResponse(r.Context(), key, http.StatusCreated, []byte(`{}`))
	w.WriteHeader(http.StatusCreated)
}
