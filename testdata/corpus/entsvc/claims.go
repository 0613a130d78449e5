package entsvc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"example.com/corpus/entsvc/ent"
	"example.com/corpus/entsvc/ent/idempotencykey"
	"example.com/corpus/entsvc/ent/job"
	"example.com/corpus/entsvc/ent/processedevent"
)

// errBusy says another worker holds the key.
var errBusy = errors.New("request in progress")

// Settle claims the key with a processing row, then runs the settlement;
// a failed settlement returns with the row still processing.
// corpus: bug releaseonerror
// modelled on: iwanlothbrok/NinjaCards-Website prisma/migrations/20260113092850_add_webhook_event_idempotency/migration.sql (a row whose status starts at processing)
func (s *Service) Settle(ctx context.Context, key string, run func(context.Context) error) error {
	_, err := s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return errBusy
	}
	if err != nil {
		return err
	}
	if err := run(ctx); err != nil {
		return fmt.Errorf("settle %s: %w", key, err)
	}
	return s.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// ConsumeEvent claims the event with an upsert that does nothing when the
// row exists (ent answers sql.ErrNoRows then); a failed notification
// leaves the event claimed, and the redelivery is skipped.
// corpus: bug releaseonerror
// modelled on: llmos-ai/llmos-dashboard pkg/generated/ent/modelfile_create.go (the generated OnConflict and DoNothing of a create builder)
func (s *Service) ConsumeEvent(ctx context.Context, ev Event) error {
	err := s.client.ProcessedEvent.Create().
		SetEventID(ev.ID).
		SetSource("psp").
		SetStatus("processing").
		OnConflictColumns(processedevent.FieldEventID).
		DoNothing().
		Exec(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.notify(ctx, ev); err != nil {
		return err
	}
	return s.client.ProcessedEvent.Update().Where(processedevent.EventID(ev.ID)).SetStatus("processed").Exec(ctx)
}

// SettleInTx claims inside a transaction but returns on the failed work
// without rolling it back: the claim stays pending on an open transaction.
// corpus: bug releaseonerror
// modelled on: ent/ent doc/md/transactions.md (GenTx: client.Tx, tx.User.Create(), rollback(tx, err), tx.Commit)
func (s *Service) SettleInTx(ctx context.Context, key string, run func(context.Context, *ent.Tx) error) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		return rollback(tx, err)
	}
	if err := run(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// RunJob takes a pending job by moving it to running where it is still
// pending; a failed run leaves it running, so no worker takes it again.
// corpus: bug releaseonerror
// modelled on: apalis-dev/apalis-mysql queries/task/lock.sql (UPDATE jobs SET status = 'Running' WHERE id = ? AND status = 'Pending')
func (s *Service) RunJob(ctx context.Context, id int, run func(context.Context) error) error {
	n, err := s.client.Job.Update().
		Where(job.ID(id), job.StatusEQ("pending")).
		SetStatus("running").
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := run(ctx); err != nil {
		return fmt.Errorf("job %d: %w", id, err)
	}
	return s.client.Job.UpdateOneID(id).SetStatus("done").Exec(ctx)
}

// ChargeClaimed claims through the repository and charges; a failed charge
// returns with the key held.
// corpus: bug releaseonerror
// modelled on: 42milez/go-oidc-expt app/repository/repository.go (a repository over the ent client with its own helpers)
func (s *Service) ChargeClaimed(ctx context.Context, key string, amount int64) error {
	ok, err := s.repo.ClaimKey(ctx, key)
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		return err
	}
	return s.repo.MarkKeyDone(ctx, key)
}

// SettleReleased deletes the processing row when the settlement fails.
// corpus: ok releaseonerror
// modelled on: iwanlothbrok/NinjaCards-Website prisma/migrations/20260113092850_add_webhook_event_idempotency/migration.sql (a row whose status starts at processing)
func (s *Service) SettleReleased(ctx context.Context, key string, run func(context.Context) error) (err error) {
	_, err = s.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return errBusy
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = s.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(context.WithoutCancel(ctx))
		}
	}()
	if err := run(ctx); err != nil {
		return fmt.Errorf("settle %s: %w", key, err)
	}
	return s.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// SettleInTxRolledBack claims inside a transaction and rolls it back on
// every failure, through the rollback helper.
// corpus: ok releaseonerror
// modelled on: ent/ent doc/md/transactions.md (GenTx: client.Tx, tx.User.Create(), rollback(tx, err), tx.Commit)
func (s *Service) SettleInTxRolledBack(ctx context.Context, key string, run func(context.Context, *ent.Tx) error) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		return rollback(tx, err)
	}
	if err := run(ctx, tx); err != nil {
		return rollback(tx, err)
	}
	return tx.Commit()
}

// SettleInTxDeferred rolls back however the function leaves; after a
// commit the rollback does nothing.
// corpus: ok releaseonerror
// modelled on: a20070322/go_fast_admin utils/ent_utils/with_tx.go (WithTx: Rollback on error or panic, Commit at the end)
func (s *Service) SettleInTxDeferred(ctx context.Context, key string, run func(context.Context, *ent.Tx) error) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		return err
	}
	if err := run(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// RunJobReset puts the job back to pending when its run fails.
// corpus: ok releaseonerror
// modelled on: apalis-dev/apalis-mysql queries/task/lock.sql (UPDATE jobs SET status = 'Running' WHERE id = ? AND status = 'Pending')
func (s *Service) RunJobReset(ctx context.Context, id int, run func(context.Context) error) error {
	n, err := s.client.Job.Update().
		Where(job.ID(id), job.StatusEQ("pending")).
		SetStatus("running").
		Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	if err := run(ctx); err != nil {
		if rerr := s.client.Job.UpdateOneID(id).SetStatus("pending").AddAttempts(1).Exec(ctx); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return s.client.Job.UpdateOneID(id).SetStatus("done").Exec(ctx)
}

// MarkEvent inserts a processed marker first: its unique index answers a
// redelivery, and the marker needs no release.
// corpus: ok releaseonerror
// modelled on: alissoonluan/payments-api prisma/migrations/20260107222738_add_webhook_events/migration.sql (webhook_events with a unique idempotency key)
func (s *Service) MarkEvent(ctx context.Context, ev Event, apply func(context.Context, Event) error) error {
	err := s.client.ProcessedEvent.Create().SetEventID(ev.ID).SetSource("psp").SetStatus("processed").Exec(ctx)
	if ent.IsConstraintError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return apply(ctx, ev)
}

// ChargeClaimedReleased gives the key back through the repository when the
// charge fails.
// corpus: ok releaseonerror
// modelled on: 42milez/go-oidc-expt app/repository/repository.go (a repository over the ent client with its own helpers)
func (s *Service) ChargeClaimedReleased(ctx context.Context, key string, amount int64) error {
	ok, err := s.repo.ClaimKey(ctx, key)
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	if _, err := s.charge(ctx, key, amount); err != nil {
		_ = s.repo.ReleaseKey(ctx, key)
		return err
	}
	return s.repo.MarkKeyDone(ctx, key)
}
