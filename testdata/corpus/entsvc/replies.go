package entsvc

import (
	"context"
	"encoding/json"
	"net/http"

	"example.com/corpus/entsvc/ent"
	"example.com/corpus/entsvc/ent/idempotencykey"
	"example.com/corpus/entsvc/ent/job"
	"example.com/corpus/entsvc/ent/payment"
)

// ServeCharge claims the request's key, charges, and marks the key
// completed without what it answered: a retry finds it done and has no
// body to give back.
// corpus: bug cacheresponse
// modelled on: Tales-K/wallet-api src/main/resources/db/changelog/005-create-idempotency-keys-table.sql (idempotency_keys with status, response_status and response_body)
func (s *Service) ServeCharge(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	_, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	ref, err := s.charge(ctx, key, 1000)
	if err != nil {
		_, _ = s.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	_ = s.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"charge": ref})
}

// Pay claims a processing payment row under the key and returns a receipt,
// marking the row succeeded with nothing of the receipt kept.
// corpus: bug cacheresponse
// modelled on: Fos7erX/nodejs-payment-service src/idempotencyKey/idempotency-key.entity.ts (a key row that keeps the response to replay)
func (s *Service) Pay(ctx context.Context, key string, amount int64) (*Receipt, error) {
	p, err := s.client.Payment.Create().SetIdempotencyKey(key).SetAmount(amount).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, errBusy
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		_, _ = s.client.Payment.Delete().Where(payment.IdempotencyKey(key)).Exec(ctx)
		return nil, err
	}
	rc := &Receipt{PaymentID: p.ID, Status: "succeeded"}
	_, err = s.client.Payment.Update().
		Where(payment.IdempotencyKey(key)).
		SetStatus("succeeded").
		Save(ctx)
	return rc, err
}

// ServeRefund claims the key and answers the refund, but never completes
// the key: a retry is told the request is still in progress.
// corpus: bug cacheresponse
// modelled on: Tales-K/wallet-api src/main/resources/db/changelog/005-create-idempotency-keys-table.sql (idempotency_keys with status, response_status and response_body)
func (s *Service) ServeRefund(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Exec(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	ref, err := s.charge(ctx, key, -500)
	if err != nil {
		_, _ = s.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
		http.Error(w, "refund failed", http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"refund": ref})
}

// ServePayout completes the key through the repository's MarkKeyDone,
// which stores a status alone.
// corpus: bug cacheresponse
// modelled on: 42milez/go-oidc-expt app/repository/repository.go (a repository over the ent client with its own helpers)
func (s *Service) ServePayout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.repo.ClaimKey(ctx, key)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	ref, err := s.charge(ctx, key, 250)
	if err != nil {
		_ = s.repo.ReleaseKey(ctx, key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	_ = s.repo.MarkKeyDone(ctx, key)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"payout": ref})
}

// ServeChargeRecorded completes the key with the status code and the body
// it answers.
// corpus: ok cacheresponse
// modelled on: Tales-K/wallet-api src/main/resources/db/changelog/005-create-idempotency-keys-table.sql (idempotency_keys with status, response_status and response_body)
func (s *Service) ServeChargeRecorded(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	_, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	ref, err := s.charge(ctx, key, 1000)
	if err != nil {
		_, _ = s.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]string{"charge": ref})
	_ = s.client.IdempotencyKey.Update().
		Where(idempotencykey.Key(key)).
		SetStatus("completed").
		SetResponseCode(http.StatusCreated).
		SetResponseBody(body).
		Exec(ctx)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// PayRecorded keeps the marshalled receipt on the payment row.
// corpus: ok cacheresponse
// modelled on: Fos7erX/nodejs-payment-service src/idempotencyKey/idempotency-key.entity.ts (a key row that keeps the response to replay)
func (s *Service) PayRecorded(ctx context.Context, key string, amount int64) (*Receipt, error) {
	p, err := s.client.Payment.Create().SetIdempotencyKey(key).SetAmount(amount).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, errBusy
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		_, _ = s.client.Payment.Delete().Where(payment.IdempotencyKey(key)).Exec(ctx)
		return nil, err
	}
	rc := &Receipt{PaymentID: p.ID, Status: "succeeded"}
	body, _ := json.Marshal(rc)
	_, err = s.client.Payment.Update().
		Where(payment.IdempotencyKey(key)).
		SetStatus("succeeded").
		SetResponseCode(http.StatusOK).
		SetResponseBody(body).
		Save(ctx)
	return rc, err
}

// ServePayoutRecorded completes the key through the repository's
// SaveResponse, with the code and body.
// corpus: ok cacheresponse
// modelled on: 42milez/go-oidc-expt app/repository/repository.go (a repository over the ent client with its own helpers)
func (s *Service) ServePayoutRecorded(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.repo.ClaimKey(ctx, key)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	ref, err := s.charge(ctx, key, 250)
	if err != nil {
		_ = s.repo.ReleaseKey(ctx, key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]string{"payout": ref})
	_ = s.repo.SaveResponse(ctx, key, http.StatusCreated, body)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// ApplyEvent is a consumer: it only succeeds or fails, so a status is all
// a redelivery needs to find.
// corpus: ok cacheresponse
// modelled on: iwanlothbrok/NinjaCards-Website prisma/migrations/20260113092850_add_webhook_event_idempotency/migration.sql (processing, processed, failed statuses)
func (s *Service) ApplyEvent(ctx context.Context, ev Event) error {
	_, err := s.client.IdempotencyKey.Create().SetKey(ev.ID).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.notify(ctx, ev); err != nil {
		_, _ = s.client.IdempotencyKey.Delete().Where(idempotencykey.Key(ev.ID)).Exec(ctx)
		return err
	}
	return s.client.IdempotencyKey.Update().Where(idempotencykey.Key(ev.ID)).SetStatus("completed").Exec(ctx)
}

// FinishJob marks a job done after its run: no caller waits on an answer.
// corpus: ok cacheresponse
// modelled on: apalis-dev/apalis-mysql queries/task/lock.sql (UPDATE jobs SET status = 'Running' WHERE id = ? AND status = 'Pending')
func (s *Service) FinishJob(ctx context.Context, id int, run func(context.Context) error) error {
	n, err := s.client.Job.Update().Where(job.ID(id), job.StatusEQ("pending")).SetStatus("running").Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	if err := run(ctx); err != nil {
		_ = s.client.Job.UpdateOneID(id).SetStatus("pending").Exec(ctx)
		return err
	}
	return s.client.Job.UpdateOneID(id).SetStatus("done").Exec(ctx)
}
