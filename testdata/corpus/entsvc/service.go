// Package entsvc is a payments service whose store is ent: the client and
// builders in ./ent are generated into the module (a stand-in with ent's
// shapes), and the service calls them directly, through a repository, and
// inside ent transactions.
package entsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"example.com/corpus/entsvc/ent"
	"example.com/corpus/entsvc/ent/idempotencykey"
	"example.com/corpus/entsvc/ent/payment"
)

// Service charges, refunds and records provider events.
type Service struct {
	client *ent.Client
	hc     *http.Client
	pspURL string
	mu     sync.Mutex
	repo   *Repo
}

// Receipt is what a charge answers.
type Receipt struct {
	PaymentID int    `json:"payment_id"`
	Status    string `json:"status"`
}

// Event is a provider's webhook event.
type Event struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Amount int64  `json:"amount"`
}

// charge asks the payment provider to move the money, under the key the
// provider deduplicates by.
func (s *Service) charge(ctx context.Context, key string, amount int64) (string, error) {
	body, _ := json.Marshal(map[string]any{"amount": amount})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.pspURL+"/charges", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return "", fmt.Errorf("psp: %s", resp.Status)
	}
	var out struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.ID, err
}

// notify tells the merchant's endpoint what happened.
func (s *Service) notify(ctx context.Context, ev Event) error {
	body, _ := json.Marshal(ev)
	resp, err := s.hc.Post(s.pspURL+"/notify", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Repo keeps the service's ent queries in one place.
type Repo struct {
	client *ent.Client
}

// FindPayment returns the payment made under key.
func (r *Repo) FindPayment(ctx context.Context, key string) (*ent.Payment, error) {
	return r.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
}

// InsertPayment records a payment made under key.
func (r *Repo) InsertPayment(ctx context.Context, key string, amount int64, ref string) (*ent.Payment, error) {
	return r.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(amount).
		SetStatus("succeeded").
		Save(ctx)
}

// InsertPaymentIfAbsent records a payment unless one under key exists.
func (r *Repo) InsertPaymentIfAbsent(ctx context.Context, key string, amount int64) error {
	return r.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(amount).
		SetStatus("succeeded").
		OnConflictColumns(payment.FieldIdempotencyKey).
		DoNothing().
		Exec(ctx)
}

// ClaimKey inserts a processing row under key; false when another
// request holds it.
func (r *Repo) ClaimKey(ctx context.Context, key string) (bool, error) {
	_, err := r.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return false, nil
	}
	return err == nil, err
}

// ReleaseKey removes the row ClaimKey inserted.
func (r *Repo) ReleaseKey(ctx context.Context, key string) error {
	_, err := r.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
	return err
}

// MarkKeyDone marks the key completed.
func (r *Repo) MarkKeyDone(ctx context.Context, key string) error {
	return r.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// SaveResponse completes the key with the answer a retry gets back.
func (r *Repo) SaveResponse(ctx context.Context, key string, code int, body []byte) error {
	return r.client.IdempotencyKey.Update().
		Where(idempotencykey.Key(key)).
		SetStatus("completed").
		SetResponseCode(code).
		SetResponseBody(body).
		Exec(ctx)
}

// rollback ends tx after err, keeping err.
func rollback(tx *ent.Tx, err error) error {
	if rerr := tx.Rollback(); rerr != nil {
		err = fmt.Errorf("%w: rolling back transaction: %v", err, rerr)
	}
	return err
}
