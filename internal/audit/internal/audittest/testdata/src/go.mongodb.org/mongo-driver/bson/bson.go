// Package bson is a minimal copy of go.mongodb.org/mongo-driver/bson's signatures.
package bson

import "go.mongodb.org/mongo-driver/bson/primitive"

type (
	D = primitive.D
	E = primitive.E
	M = primitive.M
	A = primitive.A
)
