// Package goqu is a minimal copy of github.com/doug-martin/goqu/v9's signatures.
package goqu

import (
	"context"
	"database/sql"

	"github.com/doug-martin/goqu/v9/exec"
	"github.com/doug-martin/goqu/v9/exp"
)

type (
	Ex     = exp.Ex
	Record = exp.Record
)

func From(table ...interface{}) *SelectDataset                          { return nil }
func Insert(table interface{}) *InsertDataset                           { return nil }
func Update(table interface{}) *UpdateDataset                           { return nil }
func Delete(table interface{}) *DeleteDataset                           { return nil }
func C(col string) exp.IdentifierExpression                             { return nil }
func T(table string) exp.IdentifierExpression                           { return nil }
func DoNothing() exp.ConflictExpression                                 { return nil }
func DoUpdate(target string, update interface{}) exp.ConflictExpression { return nil }

type Database struct{}

func New(dialect string, db *sql.DB) *Database              { return nil }
func (d *Database) From(from ...interface{}) *SelectDataset { return nil }
func (d *Database) Insert(table interface{}) *InsertDataset { return nil }
func (d *Database) Update(table interface{}) *UpdateDataset { return nil }
func (d *Database) Delete(table interface{}) *DeleteDataset { return nil }

type SelectDataset struct{}

func (sd *SelectDataset) From(from ...interface{}) *SelectDataset            { return sd }
func (sd *SelectDataset) Where(expressions ...exp.Expression) *SelectDataset { return sd }
func (sd *SelectDataset) ForUpdate(waitOption exp.WaitOption, of ...exp.IdentifierExpression) *SelectDataset {
	return sd
}
func (sd *SelectDataset) ScanStructs(i interface{}) error        { return nil }
func (sd *SelectDataset) ScanStruct(i interface{}) (bool, error) { return false, nil }
func (sd *SelectDataset) ScanVal(i interface{}) (bool, error)    { return false, nil }
func (sd *SelectDataset) Count() (int64, error)                  { return 0, nil }
func (sd *SelectDataset) ScanStructContext(ctx context.Context, i interface{}) (bool, error) {
	return false, nil
}
func (sd *SelectDataset) ScanValContext(ctx context.Context, i interface{}) (bool, error) {
	return false, nil
}
func (sd *SelectDataset) CountContext(ctx context.Context) (int64, error)      { return 0, nil }
func (sd *SelectDataset) ToSQL() (sql string, params []interface{}, err error) { return "", nil, nil }
func (sd *SelectDataset) Executor() exec.QueryExecutor                         { return exec.QueryExecutor{} }

type InsertDataset struct{}

func (id *InsertDataset) Into(into interface{}) *InsertDataset                      { return id }
func (id *InsertDataset) Cols(cols ...interface{}) *InsertDataset                   { return id }
func (id *InsertDataset) Vals(vals ...[]interface{}) *InsertDataset                 { return id }
func (id *InsertDataset) Rows(rows ...interface{}) *InsertDataset                   { return id }
func (id *InsertDataset) OnConflict(conflict exp.ConflictExpression) *InsertDataset { return id }
func (id *InsertDataset) ToSQL() (sql string, params []interface{}, err error)      { return "", nil, nil }
func (id *InsertDataset) Executor() exec.QueryExecutor                              { return exec.QueryExecutor{} }

type UpdateDataset struct{}

func (ud *UpdateDataset) Set(values interface{}) *UpdateDataset                { return ud }
func (ud *UpdateDataset) Where(expressions ...exp.Expression) *UpdateDataset   { return ud }
func (ud *UpdateDataset) ToSQL() (sql string, params []interface{}, err error) { return "", nil, nil }
func (ud *UpdateDataset) Executor() exec.QueryExecutor                         { return exec.QueryExecutor{} }

type DeleteDataset struct{}

func (dd *DeleteDataset) Where(expressions ...exp.Expression) *DeleteDataset   { return dd }
func (dd *DeleteDataset) ToSQL() (sql string, params []interface{}, err error) { return "", nil, nil }
func (dd *DeleteDataset) Executor() exec.QueryExecutor                         { return exec.QueryExecutor{} }
