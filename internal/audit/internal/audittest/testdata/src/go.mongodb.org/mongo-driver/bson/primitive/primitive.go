// Package primitive is a minimal copy of go.mongodb.org/mongo-driver/bson/primitive's signatures.
package primitive

type E struct {
	Key   string
	Value interface{}
}

type D []E

type M map[string]interface{}

type A []interface{}
