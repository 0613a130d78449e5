package written

import (
	"context"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
)

func entWrites(ctx context.Context, client *ent.Client, key string, code int, body []byte) {
	client.IdempotencyKey.Create().SetKey(key).SetStatus("processing").Save(ctx)                                        // want `written key=key status="processing"`
	client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetStatus("completed").Exec(ctx)                      // want `written status="completed"`
	client.IdempotencyKey.Update().Where(idempotencykey.Key(key)).SetResponseCode(code).SetResponseBody(body).Exec(ctx) // want `written response_code=code response_body=body`
	u := client.IdempotencyKey.UpdateOneID(1).SetStatus("failed")
	u.ClearResponseBody()
	u.Exec(ctx) // want `written status="failed" response_body=<nil>`
	client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Only(ctx)
}
