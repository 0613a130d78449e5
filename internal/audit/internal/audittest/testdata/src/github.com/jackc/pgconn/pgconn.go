// Package pgconn is a minimal copy of github.com/jackc/pgconn's signatures (pgx v4's).
package pgconn

type CommandTag []byte

func (ct CommandTag) RowsAffected() int64 { return 0 }
