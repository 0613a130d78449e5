// Package qrm is a minimal copy of go-jet's query result mapping: the
// connections statements are sent over.
package qrm

import (
	"context"
	"database/sql"
)

// Queryable runs a query: a *sql.DB or *sql.Tx.
type Queryable interface {
	QueryContext(ctx context.Context, query string, args ...interface{}) (*sql.Rows, error)
}

// Executable runs a statement: a *sql.DB or *sql.Tx.
type Executable interface {
	ExecContext(ctx context.Context, query string, args ...interface{}) (sql.Result, error)
}
