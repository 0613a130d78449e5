// Package qm is a minimal copy of sqlboiler's query mods.
package qm

import "github.com/volatiletech/sqlboiler/v4/queries"

// QueryMod changes a query.
type QueryMod interface {
	Apply(q *queries.Query)
}

type mod struct{}

func (mod) Apply(q *queries.Query) {}

// Where adds a condition.
func Where(clause string, args ...interface{}) QueryMod { return mod{} }

// And adds a condition.
func And(clause string, args ...interface{}) QueryMod { return mod{} }

// For adds a locking clause: For("update").
func For(clause string) QueryMod { return mod{} }
