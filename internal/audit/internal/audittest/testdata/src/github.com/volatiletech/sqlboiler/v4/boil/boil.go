// Package boil is a minimal copy of sqlboiler's boil package: the
// executors and column lists generated models take.
package boil

import (
	"context"
	"database/sql"
)

// Executor runs statements without a context.
type Executor interface {
	Exec(query string, args ...interface{}) (sql.Result, error)
	Query(query string, args ...interface{}) (*sql.Rows, error)
	QueryRow(query string, args ...interface{}) *sql.Row
}

// ContextExecutor runs statements with a context: a *sql.DB or *sql.Tx.
type ContextExecutor interface {
	Executor
	ExecContext(ctx context.Context, query string, args ...interface{}) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...interface{}) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...interface{}) *sql.Row
}

// Columns says which columns an insert or update writes.
type Columns struct {
	Kind int
	Cols []string
}

// Infer writes the columns sqlboiler works out.
func Infer() Columns { return Columns{} }

// Whitelist writes the columns named.
func Whitelist(cols ...string) Columns { return Columns{Kind: 2, Cols: cols} }

// None writes no column.
func None() Columns { return Columns{Kind: 1} }
