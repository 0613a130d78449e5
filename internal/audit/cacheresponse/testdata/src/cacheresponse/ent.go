package cacheresponse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
	"example.com/shop/ent/payment"
)

type entAPI struct {
	client *ent.Client
}

type entReceipt struct{ ID string }

// A processing row claims the key; the handler completes it with its
// status alone.
func (a *entAPI) create(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	_, err := a.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	_ = a.client.IdempotencyKey.Update(). // want `Update of IdempotencyKey sets only status: it marks the key claimed by Create into IdempotencyKey at ent.go:\d+ completed without the response`
						Where(idempotencykey.Key(key)).
						SetStatus("completed").
						Exec(ctx)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"id":"p_1"}`))
}

// The same, storing the status code and the body with the status.
func (a *entAPI) createRecorded(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	_, err := a.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	body := []byte(`{"id":"p_1"}`)
	_ = a.client.IdempotencyKey.Update().
		Where(idempotencykey.Key(key)).
		SetStatus("completed").
		SetResponseCode(http.StatusCreated).
		SetResponseBody(body).
		Exec(ctx)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// A payment row keyed by the idempotency key, marked done with nothing
// a replay could answer.
func (a *entAPI) pay(ctx context.Context, key string) (*entReceipt, error) {
	err := a.client.Payment.Create().SetIdempotencyKey(key).SetStatus("processing").
		OnConflictColumns(payment.FieldIdempotencyKey).DoNothing().Exec(ctx)
	if err != nil {
		return nil, errors.New("in progress")
	}
	rc := &entReceipt{ID: "pay_1"}
	_, err = a.client.Payment.Update(). // want `Update of Payment sets only status: it marks the key claimed by Create ... OnConflict into Payment at ent.go:\d+ completed without the response`
						Where(payment.IdempotencyKey(key)).
						SetStatus("completed").
						Save(ctx)
	return rc, err
}

// The same with the marshalled receipt stored beside the status.
func (a *entAPI) payRecorded(ctx context.Context, key string) (*entReceipt, error) {
	err := a.client.Payment.Create().SetIdempotencyKey(key).SetStatus("processing").
		OnConflictColumns(payment.FieldIdempotencyKey).DoNothing().Exec(ctx)
	if err != nil {
		return nil, errors.New("in progress")
	}
	rc := &entReceipt{ID: "pay_1"}
	body, _ := json.Marshal(rc)
	_, err = a.client.Payment.Update().
		Where(payment.IdempotencyKey(key)).
		SetStatus("completed").
		SetResponseBody(body).
		Save(ctx)
	return rc, err
}

// A payment created pending under the client's key: pending is the
// payment's own state, not a claim of the key, and the row is the record
// a retry's constraint error points to.
func (a *entAPI) createPayment(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	p, err := a.client.Payment.Create().SetIdempotencyKey(key).SetStatus("pending").Save(r.Context())
	if ent.IsConstraintError(err) {
		http.Error(w, "duplicate", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	_ = json.NewEncoder(w).Encode(entReceipt{ID: fmt.Sprint(p.ID)})
}
