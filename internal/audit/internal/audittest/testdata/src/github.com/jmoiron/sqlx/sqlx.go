// Package sqlx is a minimal copy of github.com/jmoiron/sqlx's signatures.
package sqlx

import (
	"context"
	"database/sql"
)

const (
	UNKNOWN = iota
	QUESTION
	DOLLAR
)

type Row struct{ err error }

func (r *Row) Scan(dest ...interface{}) error    { return nil }
func (r *Row) StructScan(dest interface{}) error { return nil }

type Rows struct{ *sql.Rows }

func (r *Rows) StructScan(dest interface{}) error { return nil }

type Queryer interface {
	Query(query string, args ...interface{}) (*sql.Rows, error)
	Queryx(query string, args ...interface{}) (*Rows, error)
	QueryRowx(query string, args ...interface{}) *Row
}

type DB struct {
	*sql.DB
}

func Connect(driverName, dataSourceName string) (*DB, error) { return nil, nil }

func (db *DB) BindNamed(query string, arg interface{}) (string, []interface{}, error) {
	return query, nil, nil
}
func (db *DB) Rebind(query string) string                                       { return query }
func (db *DB) NamedQuery(query string, arg interface{}) (*Rows, error)          { return nil, nil }
func (db *DB) NamedExec(query string, arg interface{}) (sql.Result, error)      { return nil, nil }
func (db *DB) Select(dest interface{}, query string, args ...interface{}) error { return nil }
func (db *DB) Get(dest interface{}, query string, args ...interface{}) error    { return nil }
func (db *DB) Beginx() (*Tx, error)                                             { return nil, nil }
func (db *DB) Queryx(query string, args ...interface{}) (*Rows, error)          { return nil, nil }
func (db *DB) QueryRowx(query string, args ...interface{}) *Row                 { return nil }
func (db *DB) MustExec(query string, args ...interface{}) sql.Result            { return nil }
func (db *DB) NamedExecContext(ctx context.Context, query string, arg interface{}) (sql.Result, error) {
	return nil, nil
}
func (db *DB) SelectContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}
func (db *DB) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}
func (db *DB) QueryRowxContext(ctx context.Context, query string, args ...interface{}) *Row {
	return nil
}

type Tx struct {
	*sql.Tx
}

func (tx *Tx) Rebind(query string) string                                       { return query }
func (tx *Tx) NamedExec(query string, arg interface{}) (sql.Result, error)      { return nil, nil }
func (tx *Tx) Select(dest interface{}, query string, args ...interface{}) error { return nil }
func (tx *Tx) Get(dest interface{}, query string, args ...interface{}) error    { return nil }
func (tx *Tx) MustExec(query string, args ...interface{}) sql.Result            { return nil }
func (tx *Tx) NamedExecContext(ctx context.Context, query string, arg interface{}) (sql.Result, error) {
	return nil, nil
}
func (tx *Tx) SelectContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}
func (tx *Tx) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func Get(q Queryer, dest interface{}, query string, args ...interface{}) error    { return nil }
func Select(q Queryer, dest interface{}, query string, args ...interface{}) error { return nil }
func Rebind(bindType int, query string) string                                    { return query }
func In(query string, args ...interface{}) (string, []interface{}, error)         { return query, args, nil }
func Named(query string, arg interface{}) (string, []interface{}, error)          { return query, nil, nil }

type Stmt struct{ *sql.Stmt }

func (db *DB) Preparex(query string) (*Stmt, error) { return nil, nil }

type ExecerContext interface {
	ExecContext(ctx context.Context, query string, args ...interface{}) (sql.Result, error)
}

type ExtContext interface {
	ExecerContext
	QueryContext(ctx context.Context, query string, args ...interface{}) (*sql.Rows, error)
}
