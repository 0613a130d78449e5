// Package mongo is a minimal copy of go.mongodb.org/mongo-driver/v2/mongo's signatures.
package mongo

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

var ErrNoDocuments = errors.New("mongo: no documents in result")

func IsDuplicateKeyError(err error) bool { return false }

type WriteException struct{}

func (e WriteException) Error() string { return "" }

type Client struct{}

func (c *Client) Database(name string) *Database { return &Database{} }

type Database struct{}

func (d *Database) Collection(name string) *Collection { return &Collection{} }

type Collection struct{}

type InsertOneResult struct{ InsertedID any }

type UpdateResult struct {
	MatchedCount  int64
	ModifiedCount int64
	UpsertedCount int64
	UpsertedID    any
}

type DeleteResult struct{ DeletedCount int64 }

type SingleResult struct{}

func (sr *SingleResult) Decode(v any) error { return nil }
func (sr *SingleResult) Err() error         { return nil }

type Cursor struct{}

func (c *Cursor) Next(ctx context.Context) bool              { return false }
func (c *Cursor) All(ctx context.Context, results any) error { return nil }

func (coll *Collection) Name() string { return "" }

func (coll *Collection) InsertOne(ctx context.Context, document any, opts ...options.Lister[options.InsertOneOptions]) (*InsertOneResult, error) {
	return nil, nil
}

func (coll *Collection) FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *SingleResult {
	return nil
}

func (coll *Collection) Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*Cursor, error) {
	return nil, nil
}

func (coll *Collection) CountDocuments(ctx context.Context, filter any, opts ...options.Lister[options.CountOptions]) (int64, error) {
	return 0, nil
}

func (coll *Collection) UpdateOne(ctx context.Context, filter any, update any, opts ...options.Lister[options.UpdateOneOptions]) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) UpdateByID(ctx context.Context, id any, update any, opts ...options.Lister[options.UpdateOneOptions]) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) ReplaceOne(ctx context.Context, filter any, replacement any, opts ...options.Lister[options.ReplaceOptions]) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) DeleteOne(ctx context.Context, filter any, opts ...options.Lister[options.DeleteOneOptions]) (*DeleteResult, error) {
	return nil, nil
}

func (coll *Collection) FindOneAndUpdate(ctx context.Context, filter any, update any, opts ...options.Lister[options.FindOneAndUpdateOptions]) *SingleResult {
	return nil
}

func (coll *Collection) FindOneAndReplace(ctx context.Context, filter any, replacement any, opts ...options.Lister[options.FindOneAndReplaceOptions]) *SingleResult {
	return nil
}

func (coll *Collection) FindOneAndDelete(ctx context.Context, filter any, opts ...options.Lister[options.FindOneAndDeleteOptions]) *SingleResult {
	return nil
}
