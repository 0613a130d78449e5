// Package postgres is a minimal copy of go-jet's PostgreSQL statements:
// tables and columns generated for a schema build them, and QueryContext
// or ExecContext sends them.
package postgres

import (
	"context"
	"database/sql"

	"github.com/go-jet/jet/v2/qrm"
)

// Expression is any SQL expression.
type Expression interface{ expression() }

// BoolExpression is a condition.
type BoolExpression interface {
	Expression
	AND(BoolExpression) BoolExpression
}

// StringExpression is a text value.
type StringExpression interface{ Expression }

// Projection is what a SELECT reads.
type Projection interface{}

// Column is a table's column.
type Column interface{ Expression }

// ColumnString is a text column.
type ColumnString interface {
	Column
	EQ(StringExpression) BoolExpression
}

// ColumnList is a list of columns.
type ColumnList []Column

// RowLock is a lock clause.
type RowLock interface{}

// Statement is any statement that can be sent.
type Statement interface {
	QueryContext(ctx context.Context, db qrm.Queryable, destination interface{}) error
	ExecContext(ctx context.Context, db qrm.Executable) (sql.Result, error)
}

// SelectStatement is a SELECT.
type SelectStatement interface {
	Statement
	FROM(tables ...ReadableTable) SelectStatement
	WHERE(condition BoolExpression) SelectStatement
	FOR(lock RowLock) SelectStatement
}

// InsertStatement is an INSERT.
type InsertStatement interface {
	Statement
	VALUES(value interface{}, values ...interface{}) InsertStatement
	MODEL(data interface{}) InsertStatement
	ON_CONFLICT(columns ...Column) OnConflict
}

// OnConflict is an INSERT's conflict clause.
type OnConflict interface {
	DO_NOTHING() InsertStatement
}

// UpdateStatement is an UPDATE.
type UpdateStatement interface {
	Statement
	SET(value interface{}, values ...interface{}) UpdateStatement
	WHERE(condition BoolExpression) UpdateStatement
}

// DeleteStatement is a DELETE.
type DeleteStatement interface {
	Statement
	WHERE(condition BoolExpression) DeleteStatement
}

// ReadableTable can be read from.
type ReadableTable interface{}

// Table is a generated table's embedded base.
type Table interface {
	INSERT(columns ...Column) InsertStatement
	UPDATE(columns ...Column) UpdateStatement
	DELETE() DeleteStatement
}

// SELECT starts a SELECT.
func SELECT(projection Projection, projections ...Projection) SelectStatement { return nil }

// String is a text literal.
func String(value string) StringExpression { return nil }

// UPDATE is FOR UPDATE's lock.
func UPDATE() RowLock { return nil }

// StringColumn makes a text column.
func StringColumn(name string) ColumnString { return nil }

// NewTable makes a table.
func NewTable(schema, name, alias string, columns ...Column) Table { return nil }
