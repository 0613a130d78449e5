// Package options is a minimal copy of go.mongodb.org/mongo-driver/v2/mongo/options's signatures.
package options

type Lister[T any] interface{ List() []func(*T) error }

type ReturnDocument int8

const (
	Before ReturnDocument = iota
	After
)

type InsertOneOptions struct{}
type FindOneOptions struct{}
type FindOptions struct{}
type CountOptions struct{}
type DeleteOneOptions struct{}
type ReplaceOptions struct{}

type UpdateOneOptions struct{ Upsert *bool }

type UpdateOneOptionsBuilder struct {
	Opts []func(*UpdateOneOptions) error
}

func UpdateOne() *UpdateOneOptionsBuilder                                    { return &UpdateOneOptionsBuilder{} }
func (u *UpdateOneOptionsBuilder) List() []func(*UpdateOneOptions) error     { return u.Opts }
func (u *UpdateOneOptionsBuilder) SetUpsert(b bool) *UpdateOneOptionsBuilder { return u }

type FindOneAndUpdateOptions struct{ Upsert *bool }

type FindOneAndUpdateOptionsBuilder struct {
	Opts []func(*FindOneAndUpdateOptions) error
}

func FindOneAndUpdate() *FindOneAndUpdateOptionsBuilder { return &FindOneAndUpdateOptionsBuilder{} }
func (f *FindOneAndUpdateOptionsBuilder) List() []func(*FindOneAndUpdateOptions) error {
	return f.Opts
}
func (f *FindOneAndUpdateOptionsBuilder) SetUpsert(b bool) *FindOneAndUpdateOptionsBuilder { return f }
func (f *FindOneAndUpdateOptionsBuilder) SetReturnDocument(rd ReturnDocument) *FindOneAndUpdateOptionsBuilder {
	return f
}

type FindOneAndReplaceOptions struct{}
type FindOneAndDeleteOptions struct{}

type InsertManyOptions struct{ Ordered *bool }

type InsertManyOptionsBuilder struct {
	Opts []func(*InsertManyOptions) error
}

func InsertMany() *InsertManyOptionsBuilder                                     { return &InsertManyOptionsBuilder{} }
func (i *InsertManyOptionsBuilder) List() []func(*InsertManyOptions) error      { return i.Opts }
func (i *InsertManyOptionsBuilder) SetOrdered(b bool) *InsertManyOptionsBuilder { return i }

type BulkWriteOptions struct{ Ordered *bool }

type BulkWriteOptionsBuilder struct {
	Opts []func(*BulkWriteOptions) error
}

func BulkWrite() *BulkWriteOptionsBuilder                                     { return &BulkWriteOptionsBuilder{} }
func (b *BulkWriteOptionsBuilder) List() []func(*BulkWriteOptions) error      { return b.Opts }
func (b *BulkWriteOptionsBuilder) SetOrdered(o bool) *BulkWriteOptionsBuilder { return b }
