package entsvc

import (
	"context"
	"errors"

	"example.com/corpus/entsvc/ent"
	"example.com/corpus/entsvc/ent/idempotencykey"
	"example.com/corpus/entsvc/ent/payment"
	"example.com/corpus/entsvc/ent/processedevent"
	"example.com/corpus/entsvc/ent/refund"
)

// HandleEvent records a provider event once: a lookup by its ID, the
// merchant notified, then the record.
// corpus: bug checkthenact
// modelled on: NpoolPlatform/inspire-middleware pkg/mw/event/exist.go (Exist on the event's ID through the ent client)
func (s *Service) HandleEvent(ctx context.Context, ev Event) error {
	seen, err := s.client.ProcessedEvent.Query().
		Where(processedevent.EventID(ev.ID)).
		Exist(ctx)
	if err != nil {
		return err
	}
	if seen {
		return nil
	}
	if err := s.notify(ctx, ev); err != nil {
		return err
	}
	return s.client.ProcessedEvent.Create().
		SetEventID(ev.ID).
		SetSource("psp").
		SetStatus("processed").
		Exec(ctx)
}

// Charge returns the payment already made under key, or charges and
// records one.
// corpus: bug checkthenact
// modelled on: ent/ent doc/md/crud.md (Query().Where(...).Only(ctx) and Create().Set...().Save(ctx))
func (s *Service) Charge(ctx context.Context, key string, amount int64) (*Receipt, error) {
	p, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
	switch {
	case err == nil:
		return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
	case !ent.IsNotFound(err):
		return nil, err
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		return nil, err
	}
	p, err = s.client.Payment.Create().
		SetIdempotencyKey(key).
		SetAmount(amount).
		SetStatus("succeeded").
		Save(ctx)
	if err != nil {
		return nil, err
	}
	return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
}

// Refund refunds a payment once per key, counting earlier refunds first.
// corpus: bug checkthenact
// modelled on: Nasim043/go-realm app/ent-guide/ent-playground/query-comparison/page.md (Count and Exist as an ent query's answers)
func (s *Service) Refund(ctx context.Context, key string, paymentID int, amount int64) error {
	n, err := s.client.Refund.Query().Where(refund.IdempotencyKeyEQ(key)).Count(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err = s.client.Refund.Create().
		SetIdempotencyKey(key).
		SetPaymentID(paymentID).
		SetAmount(amount).
		SetStatus("requested").
		Save(ctx)
	return err
}

// ChargeViaRepo asks the repository for the payment, then charges and
// inserts through it.
// corpus: bug checkthenact
// modelled on: NpoolPlatform/inspire-middleware pkg/mw/invitation/registration/create.go (a handler's existence check and create through the ent client, in separate steps)
func (s *Service) ChargeViaRepo(ctx context.Context, key string, amount int64) (*Receipt, error) {
	if p, err := s.repo.FindPayment(ctx, key); err == nil {
		return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
	} else if !ent.IsNotFound(err) {
		return nil, err
	}
	ref, err := s.charge(ctx, key, amount)
	if err != nil {
		return nil, err
	}
	p, err := s.repo.InsertPayment(ctx, key, amount, ref)
	if err != nil {
		return nil, err
	}
	return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
}

// Remember stores a key row when the query held in a variable finds none.
// corpus: bug checkthenact
// modelled on: NpoolPlatform/inspire-middleware pkg/mw/event/exist.go (ExistEventConds: the query built first, Exist called on it)
func (s *Service) Remember(ctx context.Context, key string) error {
	q := s.client.IdempotencyKey.Query().Where(idempotencykey.Key(key))
	found, err := q.Exist(ctx)
	if err != nil || found {
		return err
	}
	b := s.client.IdempotencyKey.Create()
	b.SetKey(key)
	b.SetStatus("completed")
	_, err = b.Save(ctx)
	return err
}

// ChargeInTx looks the key up and inserts the payment in one ent
// transaction, which does not lock a row that is not there.
// corpus: bug checkthenact
// modelled on: ent/ent doc/md/transactions.md (GenTx: client.Tx, tx.User.Create(), rollback(tx, err), tx.Commit)
func (s *Service) ChargeInTx(ctx context.Context, key string, amount int64) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.Payment.Query().Where(payment.IdempotencyKey(key)).First(ctx); err == nil {
		return tx.Rollback()
	} else if !ent.IsNotFound(err) {
		return rollback(tx, err)
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		return rollback(tx, err)
	}
	if _, err := tx.Payment.Create().SetIdempotencyKey(key).SetAmount(amount).SetStatus("succeeded").Save(ctx); err != nil {
		return rollback(tx, err)
	}
	return tx.Commit()
}

// ChargeFirst inserts first; a constraint error means the key was used,
// and only then is the earlier payment read back.
// corpus: ok checkthenact
// modelled on: ent/ent doc/md/crud.md (Create().Save(ctx) and the Query().Where(...).Only(ctx) that reads a row back)
func (s *Service) ChargeFirst(ctx context.Context, key string, amount int64) (*Receipt, error) {
	p, err := s.client.Payment.Create().SetIdempotencyKey(key).SetAmount(amount).SetStatus("pending").Save(ctx)
	if ent.IsConstraintError(err) {
		p, err = s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
		if err != nil {
			return nil, err
		}
		return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Receipt{PaymentID: p.ID, Status: p.Status}, nil
}

// RecordEvent skips a known event cheaply, and inserts with an upsert that
// does nothing on conflict, so a concurrent duplicate inserts nothing.
// corpus: ok checkthenact
// modelled on: llmos-ai/llmos-dashboard pkg/generated/ent/modelfile_create.go (the generated OnConflict and DoNothing of a create builder)
func (s *Service) RecordEvent(ctx context.Context, ev Event) error {
	seen, err := s.client.ProcessedEvent.Query().Where(processedevent.EventID(ev.ID)).Exist(ctx)
	if err != nil || seen {
		return err
	}
	return s.client.ProcessedEvent.Create().
		SetEventID(ev.ID).
		SetSource("psp").
		SetStatus("processed").
		OnConflictColumns(processedevent.FieldEventID).
		DoNothing().
		Exec(ctx)
}

// RefundOnce counts earlier refunds, but the insert's unique index is what
// decides: a constraint error is the duplicate.
// corpus: ok checkthenact
// modelled on: ent/ent entc/integration/ent/ent.go (IsConstraintError, the generated test of a unique violation)
func (s *Service) RefundOnce(ctx context.Context, key string, paymentID int, amount int64) error {
	n, err := s.client.Refund.Query().Where(refund.IdempotencyKey(key)).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	_, err = s.client.Refund.Create().
		SetIdempotencyKey(key).
		SetPaymentID(paymentID).
		SetAmount(amount).
		SetStatus("requested").
		Save(ctx)
	switch {
	case ent.IsConstraintError(err):
		return nil
	case err != nil:
		return err
	}
	return nil
}

// Capture reads the payment, then moves it from authorized to captured
// only while it still is authorized.
// corpus: ok checkthenact
// modelled on: uniteweb/entkit README.md (optimistic locking: an update whose Where compares what was read)
func (s *Service) Capture(ctx context.Context, key string) error {
	p, err := s.client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx)
	if err != nil {
		return err
	}
	if p.Status != "authorized" {
		return nil
	}
	n, err := s.client.Payment.Update().
		Where(payment.IdempotencyKey(key), payment.StatusEQ("authorized")).
		SetStatus("captured").
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("payment changed under us")
	}
	return nil
}

// RememberLocked does the lookup and the insert under the service's mutex.
// corpus: ok checkthenact
// modelled on: a20070322/go_fast_admin utils/ent_utils/with_tx.go (the ent work wrapped so that one caller runs it at a time)
func (s *Service) RememberLocked(ctx context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	found, err := s.client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Exist(ctx)
	if err != nil || found {
		return err
	}
	return s.client.IdempotencyKey.Create().SetKey(key).SetStatus("completed").Exec(ctx)
}

// ChargeViaRepoAtomic charges and then inserts through the repository's
// upsert, which does nothing when the key is there.
// corpus: ok checkthenact
// modelled on: NpoolPlatform/inspire-middleware pkg/mw/invitation/registration/create.go (a handler's existence check and create through the ent client, in separate steps)
func (s *Service) ChargeViaRepoAtomic(ctx context.Context, key string, amount int64) error {
	if _, err := s.repo.FindPayment(ctx, key); err == nil {
		return nil
	} else if !ent.IsNotFound(err) {
		return err
	}
	return s.repo.InsertPaymentIfAbsent(ctx, key, amount)
}
