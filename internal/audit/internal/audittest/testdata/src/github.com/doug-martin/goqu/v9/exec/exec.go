// Package exec is a minimal copy of github.com/doug-martin/goqu/v9/exec's signatures.
package exec

import (
	"context"
	"database/sql"
)

type QueryExecutor struct{}

func (q QueryExecutor) Exec() (sql.Result, error)                           { return nil, nil }
func (q QueryExecutor) ExecContext(ctx context.Context) (sql.Result, error) { return nil, nil }
func (q QueryExecutor) ScanStruct(i interface{}) (bool, error)              { return false, nil }
func (q QueryExecutor) ScanVal(i interface{}) (bool, error)                 { return false, nil }
