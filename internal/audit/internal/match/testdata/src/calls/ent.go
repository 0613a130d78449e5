package calls

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"example.com/shop/ent"
	"example.com/shop/ent/idempotencykey"
	"example.com/shop/ent/payment"
)

func entCalls(ctx context.Context, client *ent.Client, key string, id int, body []byte) error {
	p, err := client.Payment.Query().Where(payment.IdempotencyKey(key)).Only(ctx) // want `access read Only record="ent payment" keys=<key> dest=<>`
	if ent.IsNotFound(err) {
		client.Payment.Create().SetIdempotencyKey(key).SetStatus("pending").Save(ctx) // want `access write Create record="ent payment" keys=<key; "pending"> dest=<> for-update=false appends=true`
	}
	client.Payment.Query().Where(payment.And(payment.IdempotencyKeyEQ(key), payment.StatusNEQ("failed"))).Exist(ctx)        // want `access read Exist record="ent payment" keys=<key>`
	client.Payment.Get(ctx, id)                                                                                             // want `access read Get record="ent payment" keys=<id>`
	client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Count(ctx)                                                 // want `access read Count record="ent idempotency_key" keys=<key>`
	if _, err := client.IdempotencyKey.Create().SetStatus("processing").SetKey(key).Save(ctx); ent.IsConstraintError(err) { // want `access claim Create record="ent idempotency_key" keys=<key; "processing">`
		return err
	}
	client.IdempotencyKey.Create().SetKey(key).OnConflictColumns(idempotencykey.FieldKey).DoNothing().Exec(ctx)         // want `access claim Create ... OnConflict record="ent idempotency_key" keys=<key>`
	client.IdempotencyKey.Create().SetKey(key).OnConflictColumns(idempotencykey.FieldKey).UpdateNewValues().Exec(ctx)   // want `access write Create ... OnConflict record="ent idempotency_key" keys=<key> dest=<> for-update=false appends=false`
	client.Payment.Update().Where(payment.IdempotencyKey(key), payment.StatusEQ("pending")).SetStatus("done").Save(ctx) // want `access guarded update Update record="ent payment" keys=<key; "pending">`
	client.Payment.Update().Where(payment.IdempotencyKey(key)).SetStatus("done").Exec(ctx)                              // want `access update Update record="ent payment" keys=<key>`
	client.Payment.UpdateOneID(id).SetStatus("done").Exec(ctx)                                                          // want `access update UpdateOne record="ent payment" keys=<id>`
	p.Update().SetResponseBody(body).Save(ctx)                                                                          // want `access update UpdateOne record="ent payment" keys=<p>`
	client.Payment.Delete().Where(payment.IdempotencyKey(key)).Exec(ctx)                                                // want `access delete Delete record="ent payment" keys=<key>`
	client.Payment.DeleteOneID(id).Exec(ctx)                                                                            // want `access delete DeleteOne record="ent payment" keys=<id>`
	b := client.Payment.Create().SetAmount(10)
	b.SetIdempotencyKey(key)
	b.Save(ctx) // want `access write Create record="ent payment" keys=<key; 10>`
	tx, err := client.Tx(ctx)
	if err != nil {
		return err
	}
	tx.Payment.Update().Where(payment.ID(id), payment.VersionEQ(3)).AddAmount(5).SetVersion(4).Exec(ctx) // want `access guarded update Update record="ent payment" keys=<id; 3>`
	return tx.Commit()
}

// PaymentQuery is a type of the service's own named like ent's builder:
// its package imports no ent, so its methods are no ent calls.
type PaymentQuery struct{}

func (PaymentQuery) Only(ctx context.Context) (*ent.Payment, error) { return nil, nil }

type PaymentCreate struct{}

func (PaymentCreate) Save(ctx context.Context) error { return nil }

func entMore(ctx context.Context, client *ent.Client, key string, builders []*ent.PaymentCreate) {
	client.Payment.Query().Where(payment.IdempotencyKey(key)).ExistX(ctx)                                     // want `access read ExistX record="ent payment" keys=<key>`
	client.Payment.Create().SetIdempotencyKey(key).SaveX(ctx)                                                 // want `access write Create record="ent payment" keys=<key>`
	client.Payment.CreateBulk(builders...).Save(ctx)                                                          // want `access write CreateBulk record="ent payment" keys=<builders>`
	client.Payment.Create().SetIdempotencyKey(key).OnConflict(sql.DoNothing()).Exec(ctx)                      // want `access claim Create ... OnConflict record="ent payment" keys=<key>`
	client.Payment.Create().SetIdempotencyKey(key).OnConflict(sql.ResolveWithNewValues()).ID(ctx)             // want `access write Create ... OnConflict record="ent payment" keys=<key>`
	client.Payment.Query().Where(payment.StatusIn("pending", "failed"), payment.IdempotencyKey(key)).All(ctx) // want `access read All record="ent payment" keys=<key>`
	client.Payment.Query().Where(payment.IdempotencyKey(key)).ForUpdate().Only(ctx)                           // want `access read Only record="ent payment" keys=<key> dest=<> for-update=true`
	PaymentQuery{}.Only(ctx)
	PaymentCreate{}.Save(ctx)
}
