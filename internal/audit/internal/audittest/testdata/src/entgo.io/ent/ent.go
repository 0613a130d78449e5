// Package ent is a copy of the signatures of entgo.io/ent that the
// packages ent generates refer to.
package ent

import "context"

type (
	// Value is what a mutation or a query returns.
	Value any
	// Mutation is a change to one entity's fields.
	Mutation interface{ Op() Op }
	// Op is a mutation's operation.
	Op uint
	// Mutator is what a Hook wraps.
	Mutator interface {
		Mutate(context.Context, Mutation) (Value, error)
	}
	// Hook is a mutation middleware.
	Hook func(Mutator) Mutator
)
