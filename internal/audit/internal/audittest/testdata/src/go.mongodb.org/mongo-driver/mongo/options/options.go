// Package options is a minimal copy of go.mongodb.org/mongo-driver/mongo/options's signatures.
package options

type ReturnDocument int8

const (
	Before ReturnDocument = iota
	After
)

type InsertOneOptions struct{}
type FindOneOptions struct{}
type DeleteOptions struct{}
type ReplaceOptions struct{ Upsert *bool }

type UpdateOptions struct{ Upsert *bool }

func Update() *UpdateOptions                             { return &UpdateOptions{} }
func (u *UpdateOptions) SetUpsert(b bool) *UpdateOptions { return u }

type FindOneAndUpdateOptions struct{ Upsert *bool }

func FindOneAndUpdate() *FindOneAndUpdateOptions                             { return &FindOneAndUpdateOptions{} }
func (f *FindOneAndUpdateOptions) SetUpsert(b bool) *FindOneAndUpdateOptions { return f }
func (f *FindOneAndUpdateOptions) SetReturnDocument(rd ReturnDocument) *FindOneAndUpdateOptions {
	return f
}

type InsertManyOptions struct{ Ordered *bool }

func InsertMany() *InsertManyOptions                              { return &InsertManyOptions{} }
func (i *InsertManyOptions) SetOrdered(b bool) *InsertManyOptions { return i }

type BulkWriteOptions struct{ Ordered *bool }

func BulkWrite() *BulkWriteOptions                              { return &BulkWriteOptions{} }
func (b *BulkWriteOptions) SetOrdered(o bool) *BulkWriteOptions { return b }
