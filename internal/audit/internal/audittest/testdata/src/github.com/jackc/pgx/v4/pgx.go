// Package pgx is a minimal copy of github.com/jackc/pgx/v4's signatures.
package pgx

import (
	"context"
	"errors"

	"github.com/jackc/pgconn"
)

var ErrNoRows = errors.New("no rows in result set")

type Rows interface {
	Close()
	Next() bool
	Scan(dest ...interface{}) error
}

type Row interface {
	Scan(dest ...interface{}) error
}

type Identifier []string

type CopyFromSource interface {
	Next() bool
	Values() ([]interface{}, error)
	Err() error
}

func CopyFromRows(rows [][]interface{}) CopyFromSource { return nil }

type Batch struct{}

func (b *Batch) Queue(query string, arguments ...interface{}) {}

type BatchResults interface {
	Exec() (pgconn.CommandTag, error)
	Close() error
}

type Conn struct{}

func Connect(ctx context.Context, connString string) (*Conn, error) { return nil, nil }

func (c *Conn) Exec(ctx context.Context, sql string, arguments ...interface{}) (pgconn.CommandTag, error) {
	return nil, nil
}
func (c *Conn) Query(ctx context.Context, sql string, args ...interface{}) (Rows, error) {
	return nil, nil
}
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...interface{}) Row { return nil }
func (c *Conn) Begin(ctx context.Context) (Tx, error)                             { return nil, nil }
func (c *Conn) SendBatch(ctx context.Context, b *Batch) BatchResults              { return nil }
func (c *Conn) CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error) {
	return 0, nil
}

type Tx interface {
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Exec(ctx context.Context, sql string, arguments ...interface{}) (commandTag pgconn.CommandTag, err error)
	Query(ctx context.Context, sql string, args ...interface{}) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...interface{}) Row
	SendBatch(ctx context.Context, b *Batch) BatchResults
	CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error)
}
