// Package bun is a minimal copy of github.com/uptrace/bun's signatures.
package bun

import (
	"context"
	"database/sql"
)

type IDB interface {
	NewSelect() *SelectQuery
	NewInsert() *InsertQuery
	NewUpdate() *UpdateQuery
	NewDelete() *DeleteQuery
	NewRaw(query string, args ...any) *RawQuery
}

type DB struct {
	*sql.DB
}

func (db *DB) NewSelect() *SelectQuery                    { return nil }
func (db *DB) NewInsert() *InsertQuery                    { return nil }
func (db *DB) NewUpdate() *UpdateQuery                    { return nil }
func (db *DB) NewDelete() *DeleteQuery                    { return nil }
func (db *DB) NewRaw(query string, args ...any) *RawQuery { return nil }
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return nil, nil
}

type Tx struct {
	*sql.Tx
}

func (tx Tx) NewSelect() *SelectQuery { return nil }
func (tx Tx) NewInsert() *InsertQuery { return nil }

type SelectQuery struct{}

func (q *SelectQuery) Model(model any) *SelectQuery                          { return q }
func (q *SelectQuery) Table(tables ...string) *SelectQuery                   { return q }
func (q *SelectQuery) ModelTableExpr(query string, args ...any) *SelectQuery { return q }
func (q *SelectQuery) Column(columns ...string) *SelectQuery                 { return q }
func (q *SelectQuery) WherePK(cols ...string) *SelectQuery                   { return q }
func (q *SelectQuery) Where(query string, args ...any) *SelectQuery          { return q }
func (q *SelectQuery) For(s string, args ...any) *SelectQuery                { return q }
func (q *SelectQuery) Limit(n int) *SelectQuery                              { return q }
func (q *SelectQuery) Scan(ctx context.Context, dest ...any) error           { return nil }
func (q *SelectQuery) Count(ctx context.Context) (int64, error)              { return 0, nil }
func (q *SelectQuery) ScanAndCount(ctx context.Context, dest ...any) (int64, error) {
	return 0, nil
}
func (q *SelectQuery) Exists(ctx context.Context) (bool, error) { return false, nil }

type InsertQuery struct{}

func (q *InsertQuery) Model(model any) *InsertQuery                     { return q }
func (q *InsertQuery) Table(tables ...string) *InsertQuery              { return q }
func (q *InsertQuery) Ignore() *InsertQuery                             { return q }
func (q *InsertQuery) On(s string, args ...any) *InsertQuery            { return q }
func (q *InsertQuery) Set(query string, args ...any) *InsertQuery       { return q }
func (q *InsertQuery) Returning(query string, args ...any) *InsertQuery { return q }
func (q *InsertQuery) Exec(ctx context.Context, dest ...any) (sql.Result, error) {
	return nil, nil
}
func (q *InsertQuery) Scan(ctx context.Context, dest ...any) error { return nil }

type UpdateQuery struct{}

func (q *UpdateQuery) Model(model any) *UpdateQuery                 { return q }
func (q *UpdateQuery) Table(tables ...string) *UpdateQuery          { return q }
func (q *UpdateQuery) Set(query string, args ...any) *UpdateQuery   { return q }
func (q *UpdateQuery) Column(columns ...string) *UpdateQuery        { return q }
func (q *UpdateQuery) WherePK(cols ...string) *UpdateQuery          { return q }
func (q *UpdateQuery) Where(query string, args ...any) *UpdateQuery { return q }
func (q *UpdateQuery) Exec(ctx context.Context, dest ...any) (sql.Result, error) {
	return nil, nil
}

type DeleteQuery struct{}

func (q *DeleteQuery) Model(model any) *DeleteQuery                          { return q }
func (q *DeleteQuery) ModelTableExpr(query string, args ...any) *DeleteQuery { return q }
func (q *DeleteQuery) Table(tables ...string) *DeleteQuery                   { return q }
func (q *DeleteQuery) WherePK(cols ...string) *DeleteQuery                   { return q }
func (q *DeleteQuery) Where(query string, args ...any) *DeleteQuery          { return q }
func (q *DeleteQuery) Exec(ctx context.Context, dest ...any) (sql.Result, error) {
	return nil, nil
}

type RawQuery struct{}

func (q *RawQuery) Scan(ctx context.Context, dest ...any) error { return nil }
func (q *RawQuery) Exec(ctx context.Context, dest ...any) (sql.Result, error) {
	return nil, nil
}
