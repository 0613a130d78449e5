package checkthenact

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
	"example.com/shop/ent/payment"
)

type entService struct {
	client *ent.Client
	hc     *http.Client
}

func (s *entService) charge(ctx context.Context, key string) error {
	_, err := s.hc.Post("https://psp.example.com/charges", "text/plain", strings.NewReader(key))
	return err
}

// A lookup by the key answered by ent.IsNotFound, then an unconditional
// Create: two retries both find nothing and both insert.
func (s *entService) recordOnce(ctx context.Context, key string, amount int64) error {
	_, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
	if err == nil {
		return nil
	}
	if !ent.IsNotFound(err) {
		return err
	}
	_, err = s.client.Payment.Create(). // want `Create of Payment after the Only at ent.go:\d+ races with a concurrent retry; use Create with a unique index on the key`
						SetIdempotencyKey(key).
						SetAmount(amount).
						Save(ctx)
	return err
}

// Exist gates the work and the marker's Create.
func (s *entService) chargeOnce(ctx context.Context, key string) error {
	seen, err := s.client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Exist(ctx)
	if err != nil || seen {
		return err
	}
	if err := s.charge(ctx, key); err != nil {
		return err
	}
	return s.client.IdempotencyKey.Create().SetKey(key).SetStatus("done").Exec(ctx) // want `Create of IdempotencyKey after the Exist at ent.go:\d+ races with a concurrent retry: both find nothing and both run http.Post first`
}

// A query and a create each kept in a variable.
func (s *entService) ensure(ctx context.Context, key string) (*ent.Payment, error) {
	q := s.client.Payment.Query().Where(payment.IdempotencyKey(key))
	p, err := q.First(ctx)
	if err == nil {
		return p, nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	b := s.client.Payment.Create()
	b.SetIdempotencyKey(key)
	return b.Save(ctx) // want `Create of Payment after the First at ent.go:\d+ races`
}

// The Create's unique index answers: a constraint error is the repeat.
func (s *entService) recordClaimed(ctx context.Context, key string, amount int64) error {
	if n, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Count(ctx); err != nil || n > 0 {
		return err
	}
	_, err := s.client.Payment.Create().SetIdempotencyKey(key).SetAmount(amount).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil
	}
	return err
}

// An upsert that does nothing on conflict is the check itself.
func (s *entService) markOnce(ctx context.Context, key string) error {
	seen, err := s.client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Exist(ctx)
	if err != nil || seen {
		return err
	}
	return s.client.IdempotencyKey.Create().SetKey(key).
		OnConflictColumns(idempotencykey.FieldKey).DoNothing().Exec(ctx)
}

// A claim first, then the work: no race.
func (s *entService) chargeClaimed(ctx context.Context, key string) error {
	if _, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		if ent.IsConstraintError(err) {
			return nil
		}
		return err
	}
	return s.charge(ctx, key)
}

// A guarded update after the read: only one retry moves it on.
func (s *entService) settle(ctx context.Context, key string) error {
	p, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
	if err != nil {
		return err
	}
	if p.Status != "pending" {
		return errors.New("not pending")
	}
	n, err := s.client.Payment.Update().
		Where(payment.IdempotencyKey(key), payment.StatusEQ("pending")).
		SetStatus("done").
		Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	return nil
}

// An unguarded Update gated by the read, with a payment in between.
func (s *entService) settleUnguarded(ctx context.Context, key string) error {
	p, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
	if err != nil {
		return err
	}
	if p.Status == "done" {
		return nil
	}
	if err := s.charge(ctx, key); err != nil {
		return err
	}
	return s.client.Payment.Update().Where(payment.IdempotencyKey(key)).SetStatus("done").Exec(ctx) // want `Update of Payment after the Only at ent.go:\d+ races`
}

// A locking read in a transaction locks no row that is not there yet.
func (s *entService) recordLocked(ctx context.Context, key string) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.Payment.Query().Where(payment.IdempotencyKey(key)).ForUpdate().Only(ctx); !ent.IsNotFound(err) {
		_ = tx.Rollback()
		return err
	}
	if _, err := tx.Payment.Create().SetIdempotencyKey(key).Save(ctx); err != nil { // want `Create of Payment after the Only \(which cannot lock a row that does not exist yet\) at ent.go:\d+ races`
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
