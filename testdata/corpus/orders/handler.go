package orders

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
)

// ErrInvalid marks a request the service refuses.
var ErrInvalid = errors.New("orders: invalid request")

// API serves the order endpoints.
type API struct {
	svc  *Service
	keys Keys
	log  *slog.Logger
}

// NewAPI returns an API.
func NewAPI(svc *Service, keys Keys, log *slog.Logger) *API {
	return &API{svc: svc, keys: keys, log: log}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers err as a problem document.
func (a *API) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, ErrInvalid) {
		code = http.StatusUnprocessableEntity
	}
	writeJSON(w, code, map[string]string{"title": http.StatusText(code), "detail": err.Error()})
}

// failAndRelease forgets the key, then answers err.
func (a *API) failAndRelease(ctx context.Context, w http.ResponseWriter, key string, err error) {
	if rerr := a.keys.Release(context.WithoutCancel(ctx), key); rerr != nil {
		a.log.ErrorContext(ctx, "release key", "key", key, "err", rerr)
	}
	a.fail(w, err)
}

// store keeps the answer under key and sends it.
func (a *API) store(ctx context.Context, w http.ResponseWriter, key string, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		a.failAndRelease(ctx, w, key, err)
		return
	}
	if err := a.keys.Complete(ctx, key, code, body); err != nil {
		a.log.ErrorContext(ctx, "complete key", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// start decodes the request and claims its key; false means answered.
func (a *API) start(w http.ResponseWriter, r *http.Request, req *PlaceRequest) (string, bool) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"title": "Idempotency-Key required"})
		return "", false
	}
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"title": "malformed body"})
		return "", false
	}
	ctx := r.Context()
	claimed, err := a.keys.Claim(ctx, key, req.CartID)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "idempotency store unavailable"})
		return "", false
	}
	if !claimed {
		code, body, ok, err := a.keys.Answer(ctx, key)
		if err != nil || !ok {
			writeJSON(w, http.StatusConflict, map[string]string{"title": "request in progress"})
			return "", false
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(code)
		_, _ = w.Write(body)
		return "", false
	}
	return key, true
}

// Checkout places an order from a cart under the client's key.
//
// corpus: bug cacheresponse
// modelled on: pthethanh/robusta internal/pkg/http/middleware/response_writer.go (a writer that keeps the status it was given)
func (a *API) Checkout(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	o, err := a.svc.PlaceOnce(r.Context(), req)
	if err != nil {
		a.failAndRelease(r.Context(), w, key, err)
		return
	}
	writeJSON(w, http.StatusCreated, o)
}

// CheckoutReplayable places an order from a cart under the client's key
// and stores the answer through store.
//
// corpus: ok cacheresponse
// modelled on: def4ultx/microservices-workshop order/middleware/recoder.go (StatusRecorder kept beside the response)
func (a *API) CheckoutReplayable(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	o, err := a.svc.PlaceOnce(r.Context(), req)
	if err != nil {
		a.failAndRelease(r.Context(), w, key, err)
		return
	}
	a.store(r.Context(), w, key, http.StatusCreated, o)
}

// Reorder places a copy of an earlier order under the client's key; every
// outcome is stored so that a retry sees the same answer.
//
// corpus: bug cacheresponse
// modelled on: def4ultx/microservices-workshop order/middleware/recoder.go (StatusRecorder kept beside the response)
func (a *API) Reorder(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	o, err := a.svc.PlaceOnce(r.Context(), req)
	if err != nil {
		a.store(r.Context(), w, key, http.StatusInternalServerError, map[string]string{"title": "reorder failed"})
		return
	}
	a.store(r.Context(), w, key, http.StatusCreated, o)
}

// CheckoutValidated places an order under the client's key; a refused
// request is a final answer and is stored, a failure is not.
//
// corpus: ok cacheresponse
// modelled on: pthethanh/robusta internal/pkg/http/middleware/response_writer.go (a writer that keeps the status it was given)
func (a *API) CheckoutValidated(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	if req.TotalMinor <= 0 {
		a.store(r.Context(), w, key, http.StatusUnprocessableEntity, map[string]string{"title": "empty cart"})
		return
	}
	o, err := a.svc.PlaceOnce(r.Context(), req)
	if err != nil {
		a.failAndRelease(r.Context(), w, key, err)
		return
	}
	a.store(r.Context(), w, key, http.StatusCreated, o)
}

// CheckoutWithLines places an order and copies the cart's lines under the
// client's key.
//
// corpus: bug releaseonerror
// modelled on: nordew/pgx-transactor README.md (several repository calls in a row, each error returned)
func (a *API) CheckoutWithLines(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	o, err := a.svc.PlaceOnce(ctx, req)
	if err != nil {
		a.failAndRelease(ctx, w, key, err)
		return
	}
	if err := a.svc.AddLines(ctx, o.ID, linesOf(r)); err != nil {
		a.fail(w, err)
		return
	}
	a.store(ctx, w, key, http.StatusCreated, o)
}

// CheckoutWithLinesReleasing places an order and copies the cart's lines
// under the client's key; each failure releases it.
//
// corpus: ok releaseonerror
// modelled on: nordew/pgx-transactor README.md (several repository calls in a row, each error returned)
func (a *API) CheckoutWithLinesReleasing(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	o, err := a.svc.PlaceOnce(ctx, req)
	if err != nil {
		a.failAndRelease(ctx, w, key, err)
		return
	}
	if err := a.svc.AddLines(ctx, o.ID, linesOf(r)); err != nil {
		a.failAndRelease(ctx, w, key, err)
		return
	}
	a.store(ctx, w, key, http.StatusCreated, o)
}

// recorder keeps what a handler answered.
type recorder struct {
	http.ResponseWriter
	code int
	body []byte
}

func (rec *recorder) WriteHeader(code int) {
	rec.code = code
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	rec.body = append(rec.body, b...)
	return rec.ResponseWriter.Write(b)
}

// CheckoutRecorded places an order under the client's key; a deferred
// function stores whatever the handler answered, unless it was a server
// error, which gives the key back.
//
// corpus: ok cacheresponse
// modelled on: def4ultx/microservices-workshop order/middleware/recoder.go (StatusRecorder kept beside the response)
func (a *API) CheckoutRecorded(w http.ResponseWriter, r *http.Request) {
	var req PlaceRequest
	key, ok := a.start(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if rec.code >= 500 || rec.code == 0 {
			if err := a.keys.Release(context.WithoutCancel(ctx), key); err != nil {
				a.log.ErrorContext(ctx, "release key", "key", key, "err", err)
			}
			return
		}
		if err := a.keys.Complete(context.WithoutCancel(ctx), key, rec.code, rec.body); err != nil {
			a.log.ErrorContext(ctx, "complete key", "key", key, "err", err)
		}
	}()
	o, err := a.svc.PlaceOnce(ctx, req)
	if err != nil {
		a.fail(rec, err)
		return
	}
	writeJSON(rec, http.StatusCreated, o)
}

func linesOf(r *http.Request) []OrderLine {
	var lines []OrderLine
	for _, sku := range r.URL.Query()["sku"] {
		lines = append(lines, OrderLine{SKU: sku, Quantity: 1})
	}
	return lines
}
