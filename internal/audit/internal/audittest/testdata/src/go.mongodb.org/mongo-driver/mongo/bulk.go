package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/mongo/options"
)

type InsertManyResult struct{ InsertedIDs []interface{} }

type BulkWriteResult struct {
	InsertedCount int64
	UpsertedCount int64
}

type WriteError struct {
	Index   int
	Code    int
	Message string
}

type BulkWriteError struct {
	WriteError
	Request WriteModel
}

type BulkWriteException struct {
	WriteErrors []BulkWriteError
}

func (bwe BulkWriteException) Error() string { return "" }

type WriteModel interface{ writeModel() }

type InsertOneModel struct{ Document interface{} }

func NewInsertOneModel() *InsertOneModel                              { return &InsertOneModel{} }
func (m *InsertOneModel) SetDocument(doc interface{}) *InsertOneModel { return m }
func (*InsertOneModel) writeModel()                                   {}

type UpdateOneModel struct {
	Filter interface{}
	Update interface{}
	Upsert *bool
}

func NewUpdateOneModel() *UpdateOneModel                          { return &UpdateOneModel{} }
func (m *UpdateOneModel) SetFilter(f interface{}) *UpdateOneModel { return m }
func (m *UpdateOneModel) SetUpdate(u interface{}) *UpdateOneModel { return m }
func (m *UpdateOneModel) SetUpsert(b bool) *UpdateOneModel        { return m }
func (*UpdateOneModel) writeModel()                               {}

func (coll *Collection) InsertMany(ctx context.Context, documents []interface{}, opts ...*options.InsertManyOptions) (*InsertManyResult, error) {
	return nil, nil
}

func (coll *Collection) BulkWrite(ctx context.Context, models []WriteModel, opts ...*options.BulkWriteOptions) (*BulkWriteResult, error) {
	return nil, nil
}
