// Package pgx is a minimal copy of github.com/jackc/pgx/v5's signatures.
package pgx

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

var ErrNoRows = errors.New("no rows in result set")

type Rows interface {
	Close()
	Err() error
	Next() bool
	Scan(dest ...any) error
}

type Row interface {
	Scan(dest ...any) error
}

type Conn struct{}

func Connect(ctx context.Context, connString string) (*Conn, error) { return nil, nil }

func (c *Conn) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (Rows, error) { return nil, nil }
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) Row        { return nil }
func (c *Conn) Begin(ctx context.Context) (Tx, error)                            { return nil, nil }

type Tx interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Exec(ctx context.Context, sql string, arguments ...any) (commandTag pgconn.CommandTag, err error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
}

// Batches and COPY.

type Batch struct{}

type QueuedQuery struct{}

func (b *Batch) Queue(query string, arguments ...any) *QueuedQuery { return nil }

type BatchResults interface {
	Exec() (pgconn.CommandTag, error)
	Close() error
}

type Identifier []string

type CopyFromSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

func CopyFromRows(rows [][]any) CopyFromSource { return nil }

func (c *Conn) SendBatch(ctx context.Context, b *Batch) BatchResults { return nil }
func (c *Conn) CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error) {
	return 0, nil
}
