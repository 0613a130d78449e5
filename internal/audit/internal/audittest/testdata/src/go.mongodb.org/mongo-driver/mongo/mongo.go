// Package mongo is a minimal copy of go.mongodb.org/mongo-driver/mongo's signatures.
package mongo

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/mongo/options"
)

var ErrNoDocuments = errors.New("mongo: no documents in result")

func IsDuplicateKeyError(err error) bool { return false }

type Database struct{}

func (d *Database) Collection(name string) *Collection { return &Collection{} }

type Collection struct{}

type InsertOneResult struct{ InsertedID interface{} }

type UpdateResult struct {
	MatchedCount  int64
	ModifiedCount int64
	UpsertedCount int64
	UpsertedID    interface{}
}

type DeleteResult struct{ DeletedCount int64 }

type SingleResult struct{}

func (sr *SingleResult) Decode(v interface{}) error { return nil }
func (sr *SingleResult) Err() error                 { return nil }

func (coll *Collection) InsertOne(ctx context.Context, document interface{}, opts ...*options.InsertOneOptions) (*InsertOneResult, error) {
	return nil, nil
}

func (coll *Collection) FindOne(ctx context.Context, filter interface{}, opts ...*options.FindOneOptions) *SingleResult {
	return nil
}

func (coll *Collection) UpdateOne(ctx context.Context, filter interface{}, update interface{}, opts ...*options.UpdateOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) ReplaceOne(ctx context.Context, filter interface{}, replacement interface{}, opts ...*options.ReplaceOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) DeleteOne(ctx context.Context, filter interface{}, opts ...*options.DeleteOptions) (*DeleteResult, error) {
	return nil, nil
}

func (coll *Collection) FindOneAndUpdate(ctx context.Context, filter interface{}, update interface{}, opts ...*options.FindOneAndUpdateOptions) *SingleResult {
	return nil
}
