// Package pgconn is a minimal copy of github.com/jackc/pgx/v5/pgconn's signatures.
package pgconn

type CommandTag struct{ s string }

func (ct CommandTag) RowsAffected() int64 { return 0 }
