// Package sql is a copy of the signatures of entgo.io/ent/dialect/sql
// that the code ent generates calls.
package sql

// Selector builds a SELECT statement.
type Selector struct{}

type conflict struct{ columns []string }

// ConflictOption configures an INSERT's ON CONFLICT clause.
type ConflictOption func(*conflict)

// ConflictColumns sets the conflict target.
func ConflictColumns(names ...string) ConflictOption {
	return func(c *conflict) { c.columns = names }
}

// DoNothing makes the conflict action DO NOTHING.
func DoNothing() ConflictOption { return func(*conflict) {} }

// ResolveWithNewValues updates the conflicting row with the new values.
func ResolveWithNewValues() ConflictOption { return func(*conflict) {} }

// FieldEQ returns a predicate comparing a field for equality.
func FieldEQ(name string, v any) func(*Selector) { return func(*Selector) {} }

// FieldNEQ returns a predicate comparing a field for inequality.
func FieldNEQ(name string, v any) func(*Selector) { return func(*Selector) {} }

// FieldLT returns a predicate comparing a field with less-than.
func FieldLT(name string, v any) func(*Selector) { return func(*Selector) {} }

// FieldIn returns a predicate matching a field against values.
func FieldIn[T any](name string, vs ...T) func(*Selector) { return func(*Selector) {} }
