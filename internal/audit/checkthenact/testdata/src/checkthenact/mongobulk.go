package checkthenact

import (
	"context"
	"errors"

	mongov1 "go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A lookup, the work, then a bulk write whose insert model writes the
// marker: no duplicate test, so both deliveries notify.
func (c *mongoConsumer) handleBulk(ctx context.Context, id string) error {
	if err := c.events.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
		return nil
	} else if !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}
	if err := c.notify(ctx, id); err != nil {
		return err
	}
	models := []mongo.WriteModel{
		mongo.NewInsertOneModel().SetDocument(bson.M{"_id": id, "kind": "notified"}),
	}
	_, err := c.events.BulkWrite(ctx, models) // want `BulkWrite InsertOne of events after the FindOne at mongobulk.go:16 races with a concurrent retry: both find nothing and both run`
	return err
}

// The bulk write's model upserts by the key with $setOnInsert alone, and
// the upserted count says whether this delivery inserted it.
func (c *mongoConsumer) handleBulkUpsert(ctx context.Context, id string) error {
	if err := c.events.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
		return nil
	}
	m := mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": id}).SetUpdate(bson.M{"$setOnInsert": bson.M{"kind": "notified"}}).SetUpsert(true)
	res, err := c.events.BulkWrite(ctx, []mongo.WriteModel{m})
	if err != nil || res.UpsertedCount == 0 {
		return err
	}
	return c.notify(ctx, id)
}

// InsertMany of markers after a lookup, with no duplicate test.
func (c *mongoConsumer) handleMany(ctx context.Context, v1 *mongov1.Collection, ids []string) error {
	for _, id := range ids {
		if err := v1.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
			continue
		}
		if err := c.notify(ctx, id); err != nil {
			return err
		}
		_, err := v1.InsertMany(ctx, []interface{}{bson.M{"_id": id}}) // want `InsertMany of v1 after the FindOne at mongobulk.go:48 races with a concurrent retry: both find nothing and both run`
		if err != nil {
			return err
		}
	}
	return nil
}

// Unordered InsertMany of the markers first, each duplicate read from
// the bulk exception: the inserted ones are this delivery's to notify.
func (c *mongoConsumer) handleManyClaimed(ctx context.Context, ids []string) error {
	var docs []any
	for _, id := range ids {
		if err := c.events.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
			continue
		}
		docs = append(docs, bson.M{"_id": id})
	}
	_, err := c.events.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	taken := map[int]bool{}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		for _, we := range bwe.WriteErrors {
			if we.Code != 11000 {
				return err
			}
			taken[we.Index] = true
		}
	} else if err != nil {
		return err
	}
	for i, id := range ids {
		if !taken[i] {
			if err := c.notify(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}
