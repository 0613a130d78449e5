package entsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
)

// ConsumeCharges records a payment for each delivered charge message,
// keyed by a value made for the delivery: a redelivery records another.
// corpus: bug attemptkey
// modelled on: rabbitmq/amqp091-go _examples/consumer/consumer.go (range over the deliveries channel, Ack each)
func (s *Service) ConsumeCharges(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var ev Event
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			_ = d.Nack(false, false)
			continue
		}
		err := s.client.Payment.Create().
			SetIdempotencyKey(uuid.NewString()).
			SetAmount(ev.Amount).
			SetStatus("succeeded").
			Exec(ctx)
		if err != nil {
			slog.Error("record payment", "err", err)
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// ConsumeChargesKeyed keys each payment by the message's own ID, which a
// redelivery carries again.
// corpus: ok attemptkey
// modelled on: rabbitmq/amqp091-go _examples/consumer/consumer.go (range over the deliveries channel, Ack each)
func (s *Service) ConsumeChargesKeyed(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var ev Event
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			_ = d.Nack(false, false)
			continue
		}
		err := s.client.Payment.Create().
			SetIdempotencyKey(d.MessageId).
			SetAmount(ev.Amount).
			SetStatus("succeeded").
			Exec(ctx)
		if err != nil {
			slog.Error("record payment", "err", err)
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// RunNightlyPayouts records tonight's payout under a key made from the
// clock's nanoseconds: a rerun of the job pays again.
// corpus: bug attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RunNightlyPayouts(ctx context.Context, amount int64) error {
	key := fmt.Sprintf("payout-%d", time.Now().UnixNano())
	return s.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(amount).
		SetStatus("requested").
		Exec(ctx)
}

// RunNightlyPayoutsDated keys tonight's payout by the date: a rerun the
// same night finds it.
// corpus: ok attemptkey
// modelled on: ent/ent doc/md/crud.md (Create().Set...().Save(ctx) of an entity)
func (s *Service) RunNightlyPayoutsDated(ctx context.Context, amount int64) error {
	key := "payout-" + time.Now().UTC().Format("2006-01-02")
	return s.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(amount).
		SetStatus("requested").
		Exec(ctx)
}

// ServeCapture completes the claimed key row by its ID with a status alone.
// corpus: bug cacheresponse
// modelled on: Tales-K/wallet-api src/main/resources/db/changelog/005-create-idempotency-keys-table.sql (idempotency_keys with status, response_status and response_body)
func (s *Service) ServeCapture(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	rec, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if err != nil {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	ref, err := s.charge(ctx, key, 700)
	if err != nil {
		_ = s.client.IdempotencyKey.DeleteOneID(rec.ID).Exec(ctx)
		http.Error(w, "capture failed", http.StatusBadGateway)
		return
	}
	_ = s.client.IdempotencyKey.UpdateOneID(rec.ID).SetStatus("completed").Exec(ctx)
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]string{"capture": ref})
}

// ServeCaptureRecorded completes the claimed row through the entity's own
// Update, with the body it answers.
// corpus: ok cacheresponse
// modelled on: Tales-K/wallet-api src/main/resources/db/changelog/005-create-idempotency-keys-table.sql (idempotency_keys with status, response_status and response_body)
func (s *Service) ServeCaptureRecorded(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	rec, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if err != nil {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	ref, err := s.charge(ctx, key, 700)
	if err != nil {
		_ = s.client.IdempotencyKey.DeleteOneID(rec.ID).Exec(ctx)
		http.Error(w, "capture failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(map[string]string{"capture": ref})
	_ = rec.Update().SetStatus("completed").SetResponseCode(http.StatusOK).SetResponseBody(body).Exec(ctx)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
