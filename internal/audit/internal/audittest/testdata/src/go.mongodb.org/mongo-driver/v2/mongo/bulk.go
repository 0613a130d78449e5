package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type InsertManyResult struct{ InsertedIDs []any }

type BulkWriteResult struct {
	InsertedCount int64
	MatchedCount  int64
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

type InsertOneModel struct{ Document any }

func NewInsertOneModel() *InsertOneModel                      { return &InsertOneModel{} }
func (m *InsertOneModel) SetDocument(doc any) *InsertOneModel { return m }
func (*InsertOneModel) writeModel()                           {}

type UpdateOneModel struct {
	Filter any
	Update any
	Upsert *bool
}

func NewUpdateOneModel() *UpdateOneModel                   { return &UpdateOneModel{} }
func (m *UpdateOneModel) SetFilter(f any) *UpdateOneModel  { return m }
func (m *UpdateOneModel) SetUpdate(u any) *UpdateOneModel  { return m }
func (m *UpdateOneModel) SetUpsert(b bool) *UpdateOneModel { return m }
func (*UpdateOneModel) writeModel()                        {}

type ReplaceOneModel struct {
	Filter      any
	Replacement any
	Upsert      *bool
}

func NewReplaceOneModel() *ReplaceOneModel                       { return &ReplaceOneModel{} }
func (m *ReplaceOneModel) SetFilter(f any) *ReplaceOneModel      { return m }
func (m *ReplaceOneModel) SetReplacement(r any) *ReplaceOneModel { return m }
func (m *ReplaceOneModel) SetUpsert(b bool) *ReplaceOneModel     { return m }
func (*ReplaceOneModel) writeModel()                             {}

type DeleteOneModel struct{ Filter any }

func NewDeleteOneModel() *DeleteOneModel                  { return &DeleteOneModel{} }
func (m *DeleteOneModel) SetFilter(f any) *DeleteOneModel { return m }
func (*DeleteOneModel) writeModel()                       {}

func (coll *Collection) InsertMany(ctx context.Context, documents any, opts ...options.Lister[options.InsertManyOptions]) (*InsertManyResult, error) {
	return nil, nil
}

func (coll *Collection) BulkWrite(ctx context.Context, models []WriteModel, opts ...options.Lister[options.BulkWriteOptions]) (*BulkWriteResult, error) {
	return nil, nil
}
