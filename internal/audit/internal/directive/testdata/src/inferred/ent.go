package inferred

import (
	"context"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
)

type EntKeys struct {
	client *ent.Client
}

// Claim inserts a processing row under the unique key; a constraint
// error means taken.
func (k *EntKeys) Claim(ctx context.Context, key string) (bool, error) { // want Claim:"inferred claim of parameter 1 in IdempotencyKey"
	_, err := k.client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)
	if ent.IsConstraintError(err) {
		return false, nil
	}
	return err == nil, err
}

// Finish marks the row completed and keeps nothing a replay could answer.
func (k *EntKeys) Finish(ctx context.Context, key string) error { // want Finish:"inferred complete of parameter 1 in IdempotencyKey, status only"
	return k.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)
}

// Record stores the response with the status.
func (k *EntKeys) Record(ctx context.Context, key string, code int, body []byte) error { // want Record:"inferred complete of parameter 1 in IdempotencyKey$"
	return k.client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).
		SetStatus("completed").SetResponseCode(code).SetResponseBody(body).Exec(ctx)
}

// Drop deletes the row.
func (k *EntKeys) Drop(ctx context.Context, key string) error { // want Drop:"inferred release of parameter 1 in IdempotencyKey"
	_, err := k.client.IdempotencyKey.Delete().Where(idempotencykey.Key(key)).Exec(ctx)
	return err
}
