// Package pgxpool is a minimal copy of github.com/jackc/pgx/v4/pgxpool's signatures.
package pgxpool

import (
	"context"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
)

type Pool struct{}

func Connect(ctx context.Context, connString string) (*Pool, error) { return nil, nil }

func (p *Pool) Exec(ctx context.Context, sql string, arguments ...interface{}) (pgconn.CommandTag, error) {
	return nil, nil
}
func (p *Pool) Query(ctx context.Context, sql string, args ...interface{}) (pgx.Rows, error) {
	return nil, nil
}
func (p *Pool) QueryRow(ctx context.Context, sql string, args ...interface{}) pgx.Row { return nil }
func (p *Pool) Begin(ctx context.Context) (pgx.Tx, error)                             { return nil, nil }
func (p *Pool) CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	return 0, nil
}
