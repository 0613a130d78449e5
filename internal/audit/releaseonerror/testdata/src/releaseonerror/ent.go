package releaseonerror

import (
	"context"
	"fmt"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
	"example.com/shop/ent/payment"
)

type entKeys struct {
	client *ent.Client
}

// A processing row inserted under a unique key: the work fails and the
// row stays, so every retry finds the key taken.
func (k *entKeys) run(ctx context.Context, key string, work func(context.Context) error) error {
	_, err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return fmt.Errorf("request %s in progress", key)
	}
	if err != nil {
		return err
	}
	if err := work(ctx); err != nil {
		return err // want `this error return leaves the key claimed by Create into IdempotencyKey at ent.go:\d+ held: every retry is refused as in progress until its TTL or lease runs out; defer a Delete of the row right after the claim`
	}
	return k.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// The same, deleting the row when the work fails.
func (k *entKeys) runReleased(ctx context.Context, key string, work func(context.Context) error) error {
	_, err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return fmt.Errorf("request %s in progress", key)
	}
	if err != nil {
		return err
	}
	if err := work(ctx); err != nil {
		_, _ = k.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
		return err
	}
	return k.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// An upsert that does nothing on conflict claims too.
func (k *entKeys) runUpsert(ctx context.Context, key string, work func(context.Context) error) error {
	err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").
		OnConflictColumns(idempotencykey.FieldKey).DoNothing().Exec(ctx)
	if err != nil {
		return err
	}
	if err := work(ctx); err != nil {
		return fmt.Errorf("work: %w", err) // want `this error return leaves the key claimed by Create ... OnConflict into IdempotencyKey at ent.go:\d+ held`
	}
	return k.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// Claimed inside a transaction: the failed work rolls it back.
func (k *entKeys) runInTx(ctx context.Context, key string, work func(context.Context) error) error {
	tx, err := k.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		_ = tx.Rollback()
		if ent.IsConstraintError(err) {
			return nil
		}
		return err
	}
	if err := work(ctx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Claimed inside a transaction that the failed work leaves open.
func (k *entKeys) runInTxLeaked(ctx context.Context, key string, work func(context.Context) error) error {
	tx, err := k.client.Tx(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx); err != nil {
		_ = tx.Rollback()
		if ent.IsConstraintError(err) {
			return nil
		}
		return err
	}
	if err := work(ctx); err != nil {
		return err // want `this error return leaves the key claimed by Create into IdempotencyKey at ent.go:\d+ held`
	}
	return tx.Commit()
}

// A done marker inserted once: nothing to give back.
func (k *entKeys) markDone(ctx context.Context, key string, work func(context.Context) error) error {
	if err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("done").Exec(ctx); err != nil {
		if ent.IsConstraintError(err) {
			return nil
		}
		return err
	}
	return work(ctx)
}

// A pending payment taken by a guarded update: the failed work leaves it
// processing, and no retry can take it again.
func (k *entKeys) settle(ctx context.Context, id int, work func(context.Context) error) error {
	n, err := k.client.Payment.Update().
		Where(payment.ID(id), payment.StatusEQ("pending")).
		SetStatus("processing").
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := work(ctx); err != nil {
		return err // want `this error return leaves the key claimed by Update into Payment at ent.go:\d+ held`
	}
	return k.client.Payment.UpdateOneID(id).SetStatus("settled").Exec(ctx)
}

// The same, putting it back to pending when the work fails.
func (k *entKeys) settleReset(ctx context.Context, id int, work func(context.Context) error) error {
	n, err := k.client.Payment.Update().
		Where(payment.ID(id), payment.StatusEQ("pending")).
		SetStatus("processing").
		Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	if err := work(ctx); err != nil {
		_ = k.client.Payment.UpdateOneID(id).SetStatus("pending").Exec(ctx)
		return err
	}
	return k.client.Payment.UpdateOneID(id).SetStatus("settled").Exec(ctx)
}

// The claimed row given back by its ID when the work fails.
func (k *entKeys) runByID(ctx context.Context, key string, work func(context.Context) error) error {
	rec, err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if err != nil {
		return err
	}
	if err := work(ctx); err != nil {
		_ = k.client.IdempotencyKey.DeleteOneID(rec.ID).Exec(ctx)
		return err
	}
	return rec.Update().SetStatus("completed").Exec(ctx)
}
