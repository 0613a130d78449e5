package checkthenact

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	bsonv1 "go.mongodb.org/mongo-driver/bson"
	mongov1 "go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type mongoConsumer struct {
	events   *mongo.Collection
	balances *mongo.Collection
	hc       *http.Client
}

func (c *mongoConsumer) notify(ctx context.Context, id string) error {
	_, err := c.hc.Post("https://hooks.example.com/"+id, "text/plain", strings.NewReader(id))
	return err
}

// A lookup by _id, then the work, then the insert of the marker: two
// deliveries both find nothing and both notify.
func (c *mongoConsumer) handleOnce(ctx context.Context, id string) error {
	err := c.events.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err()
	if err == nil {
		return nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}
	if err := c.notify(ctx, id); err != nil {
		return err
	}
	_, err = c.events.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "at", Value: time.Now()}}) // want `InsertOne of events after the FindOne at mongo.go:31 races with a concurrent retry: both find nothing and both run http.Post first; claim in the check.s place \(InsertOne of a document whose _id is the key, treating mongo.IsDuplicateKeyError as already done, before the work\)`
	return err
}

// The same with an upsert recording the marker.
func (c *mongoConsumer) handleOnceUpsert(ctx context.Context, id string) error {
	var seen struct{ At time.Time }
	if err := c.events.FindOne(ctx, bson.M{"_id": id}).Decode(&seen); err == nil {
		return nil
	}
	if err := c.notify(ctx, id); err != nil {
		return err
	}
	_, err := c.events.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"at": time.Now()}}, options.UpdateOne().SetUpsert(true)) // want `UpdateOne of events after the FindOne at mongo.go:48 races`
	return err
}

// The insert is the check: its duplicate-key error is the answer.
func (c *mongoConsumer) handleInsertFirst(ctx context.Context, id string) error {
	_, err := c.events.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "at", Value: time.Now()}})
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.notify(ctx, id)
}

// A fast path read, then an insert whose duplicate key means done, with
// nothing between them.
func (c *mongoConsumer) recordFastPath(ctx context.Context, id string) error {
	if err := c.events.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
		return nil
	}
	_, err := c.events.InsertOne(ctx, bson.M{"_id": id, "at": time.Now()})
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	return err
}

// A read, then an update whose filter compares what it changes: the
// second retry's update matches nothing.
func (c *mongoConsumer) credit(ctx context.Context, account, batch string, cents int64) error {
	var bal struct{ Applied []string }
	err := c.balances.FindOne(ctx, bson.D{{Key: "_id", Value: account}}).Decode(&bal)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}
	_, err = c.balances.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: account}, {Key: "applied", Value: bson.D{{Key: "$ne", Value: batch}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "cents", Value: cents}}}, {Key: "$push", Value: bson.D{{Key: "applied", Value: batch}}}})
	return err
}

// An upsert that only sets on insert, returning the document before: no
// document means this call inserted it.
func (c *mongoConsumer) claimByUpsert(ctx context.Context, id string) error {
	if err := c.events.FindOne(ctx, bson.M{"_id": id}).Err(); err == nil {
		return nil
	}
	err := c.events.FindOneAndUpdate(ctx, bson.M{"_id": id}, bson.M{"$setOnInsert": bson.M{"at": time.Now()}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before)).Err()
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}
	return c.notify(ctx, id)
}

// The v1 driver, the same race.
func (c *mongoConsumer) handleV1(ctx context.Context, events *mongov1.Collection, id string) error {
	if err := events.FindOne(ctx, bsonv1.M{"_id": id}).Err(); err != mongov1.ErrNoDocuments {
		return err
	}
	if err := c.notify(ctx, id); err != nil {
		return err
	}
	_, err := events.InsertOne(ctx, bsonv1.M{"_id": id}) // want `InsertOne of events after the FindOne at mongo.go:113 races`
	return err
}
