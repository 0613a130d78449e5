package checkthenact

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// carrier hands parcels over.
type carrier interface {
	Ship(ctx context.Context, id string) error
}

type shipments struct {
	col     *mongo.Collection
	carrier carrier
}

// dispatch decodes the shipment to skip one already sent, claims it with
// an upsert of $setOnInsert alone, and ships only when the upsert
// inserted: the claim decides.
func (s *shipments) dispatch(ctx context.Context, id string) error {
	var doc struct{ Status string }
	if err := s.col.FindOne(ctx, bson.M{"_id": id}).Decode(&doc); err == nil && doc.Status == "sent" {
		return nil
	}
	res, err := s.col.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$setOnInsert": bson.M{"status": "sending"}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	if err := s.carrier.Ship(ctx, id); err != nil {
		s.col.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": id})
		return err
	}
	_, err = s.col.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"status": "sent"}})
	return err
}
