// Package queries is a minimal copy of sqlboiler's queries package.
package queries

import (
	"context"
	"database/sql"

	"github.com/volatiletech/sqlboiler/v4/boil"
)

// Query is a statement being built or sent.
type Query struct {
	raw  string
	args []interface{}
}

// Raw makes a query of SQL text.
func Raw(query string, args ...interface{}) *Query { return &Query{raw: query, args: args} }

// Bind runs the query and scans its rows into obj.
func (q *Query) Bind(ctx context.Context, exec boil.ContextExecutor, obj interface{}) error {
	return nil
}

// ExecContext runs the query.
func (q *Query) ExecContext(ctx context.Context, exec boil.ContextExecutor) (sql.Result, error) {
	return exec.ExecContext(ctx, q.raw, q.args...)
}

// QueryRowContext runs the query for one row.
func (q *Query) QueryRowContext(ctx context.Context, exec boil.ContextExecutor) *sql.Row {
	return exec.QueryRowContext(ctx, q.raw, q.args...)
}

// SetLimit limits the rows the query reads.
func SetLimit(q *Query, limit int) {}
