package calls

import (
	"context"
	"errors"
	"time"

	bsonv1 "go.mongodb.org/mongo-driver/bson"
	mongov1 "go.mongodb.org/mongo-driver/mongo"
	optionsv1 "go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type mongoStore struct {
	requests *mongo.Collection
	locks    *mongo.Collection
	db       *mongo.Database
}

type requestDoc struct {
	ID    string `bson:"_id"`
	State string `bson:"state"`
	Body  []byte `bson:"body,omitempty"`
}

func mongoCalls(ctx context.Context, s *mongoStore, key string, body []byte) error {
	var doc requestDoc
	s.requests.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&doc) // want `access read FindOne record="mongo request" keys=<key> dest=<&doc>`
	err := s.requests.FindOne(ctx, bson.M{"_id": key}).Err()               // want `access read FindOne record="mongo request" keys=<key> dest=<>`
	if errors.Is(err, mongo.ErrNoDocuments) {
		s.requests.InsertOne(ctx, requestDoc{ID: key, State: "done"}) // want `access write InsertOne record="mongo request" keys=<key> dest=<> for-update=false appends=true`
	}
	s.db.Collection("processed_events").CountDocuments(ctx, bson.D{{"event_id", key}}) // want `access read CountDocuments record="mongo processed_event" keys=<key>`
	s.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},                        // want `access update UpdateOne record="mongo request" keys=<key>`
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "completed"}}}})
	s.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "state", Value: "pending"}}, // want `access guarded update UpdateOne record="mongo request" keys=<key; "pending">`
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "completed"}}}})
	s.requests.UpdateOne(ctx, bson.M{"_id": key, "batches": bson.M{"$ne": "b1"}}, // want `access guarded update UpdateOne record="mongo request" keys=<key>`
		bson.M{"$inc": bson.M{"n": 1}})
	s.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"body": body}}, options.UpdateOne().SetUpsert(true)) // want `access write UpdateOne record="mongo request" keys=<key>`
	s.requests.FindOneAndUpdate(ctx, bson.M{"_id": key}, bson.M{"$setOnInsert": bson.M{"state": "processing"}},              // want `access claim FindOneAndUpdate record="mongo request" keys=<key>`
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before))
	s.requests.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}}) // want `access delete DeleteOne record="mongo request" keys=<key>`
	lockID := "close:" + key
	if _, err := s.locks.InsertOne(ctx, bson.D{{Key: "_id", Value: lockID}, {Key: "at", Value: time.Now()}}); mongo.IsDuplicateKeyError(err) { // want `access claim InsertOne record="mongo lock" keys=<lockID> dest=<> for-update=false appends=true`
		return err
	}
	coll := s.db.Collection("idempotency_keys")
	coll.ReplaceOne(ctx, bson.M{"_id": key}, requestDoc{ID: key, State: "done", Body: body}) // want `access write ReplaceOne record="mongo idempotency_key" keys=<key>`
	return nil
}

func mongoV1(ctx context.Context, c *mongov1.Collection, id string) error {
	if err := c.FindOne(ctx, bsonv1.M{"_id": id}).Err(); err != mongov1.ErrNoDocuments { // want `access read FindOne record="mongo c" keys=<id>`
		return err
	}
	_, err := c.InsertOne(ctx, bsonv1.D{{Key: "_id", Value: id}, {Key: "state", Value: "processing"}}) // want `access claim InsertOne record="mongo c" keys=<id>`
	if isDup(err) {
		return nil
	}
	_, err = c.UpdateOne(ctx, bsonv1.M{"_id": id}, bsonv1.M{"$set": bsonv1.M{"state": "done"}}, optionsv1.Update().SetUpsert(true)) // want `access write UpdateOne record="mongo c" keys=<id>`
	return err
}

func isDup(err error) bool { return mongov1.IsDuplicateKeyError(err) }

// notMongo has a collection's method names and is its own type.
type notMongo struct{}

func (notMongo) InsertOne(ctx context.Context, doc any) error { return nil }

func mongoLookAlikes(ctx context.Context, n notMongo, id string) {
	n.InsertOne(ctx, id)
}

// markSeen inserts the event and calls a duplicate a success: its caller
// gets nil whether or not the event was new, so the insert claims
// nothing.
func markSeen(ctx context.Context, c *mongov1.Collection, id string) error {
	if _, err := c.InsertOne(ctx, bsonv1.D{{Key: "_id", Value: id}}); err != nil { // want `access write InsertOne record="mongo c" keys=<id>`
		if mongov1.IsDuplicateKeyError(err) {
			return nil
		}
		return err
	}
	return nil
}
