package calls

import (
	"context"
	"database/sql"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

type Grant struct {
	UserID int    `db:"user_id"`
	Code   string `db:"code"`
}

func goquCalls(ctx context.Context, sdb *sql.DB, db *goqu.Database, g Grant, code string, user int) {
	var got Grant
	var n int
	db.From("grants").Where(goqu.Ex{"code": code}).ScanStruct(&got)                                                        // want `access read SELECT record="sql grant" keys=<code> dest=<&got> for-update=false appends=false`
	goqu.From(goqu.T("grants")).Where(goqu.C("code").Eq(code), goqu.Ex{"user_id": user}).ScanValContext(ctx, &n)           // want `access read SELECT record="sql grant" keys=<code; user> dest=<&n>`
	db.From("grants").Where(goqu.Ex{"code": code}).ForUpdate(exp.Wait).Count()                                             // want `access read SELECT \.\.\. FOR UPDATE record="sql grant" keys=<code> dest=<> for-update=true`
	db.Insert("grants").Rows(g).Executor().Exec()                                                                          // want `access write INSERT record="sql grant" keys=<g> dest=<> for-update=false appends=true`
	db.Insert("grants").Rows(g).OnConflict(goqu.DoNothing()).Executor().ExecContext(ctx)                                   // want `access claim INSERT record="sql grant" keys=<g>`
	db.Update("grants").Set(goqu.Record{"code": code}).Where(goqu.Ex{"user_id": user}).Executor().Exec()                   // want `access update UPDATE record="sql grant" keys=<user>`
	db.Update("grants").Set(goqu.Record{"status": "used"}).Where(goqu.Ex{"code": code, "status": "new"}).Executor().Exec() // want `access guarded update UPDATE record="sql grant"`
	db.From("old").From("grants").Where(goqu.Ex{"code": code}).Count()                                                     // want `access read SELECT record="sql grant"`
	db.Delete("grants").Where(goqu.Ex{"code": code}).Executor().Exec()                                                     // want `access delete DELETE record="sql grant" keys=<code>`
	db.From("grants").Where(goqu.Ex{"code": code}).Executor().ScanStruct(&got)                                             // want `access read SELECT record="sql grant" keys=<code> dest=<&got>`

	q, args, err := goqu.Insert("grants").Cols("user_id", "code").Vals([]interface{}{user, code}).OnConflict(goqu.DoNothing()).ToSQL()
	if err != nil {
		return
	}
	r, rargs, _ := db.Insert("grants").Rows(goqu.Record{"user_id": user, "code": code}).ToSQL()
	sdb.ExecContext(ctx, r, rargs...) // want `sql ExecContext INSERT grants const=false for-update=false conditional=false guarded=false columns=user_id,code` `access write INSERT record="sql grant"`
	sdb.ExecContext(ctx, q, args...)  // want `sql ExecContext INSERT grants const=false for-update=false conditional=true guarded=false columns=user_id,code` `access claim INSERT record="sql grant" keys=<args; \[\]interface\{\}\{…\}>`
}

// dataset has goqu's method names and is not goqu.
type dataset struct{}

func (d dataset) Where(e ...any) dataset         { return d }
func (d dataset) ScanStruct(v any) (bool, error) { return false, nil }
func (d dataset) Executor() dataset              { return d }
func (d dataset) Exec() (sql.Result, error)      { return nil, nil }

func goquLookAlikes(db *goqu.Database, d dataset, table, code string) {
	var got Grant
	d.Where(goqu.Ex{"code": code}).ScanStruct(&got)
	d.Executor().Exec()
	db.From(table).Where(goqu.Ex{"code": code}).ScanStruct(&got)
	db.From("grants").ToSQL()
	e := db.Delete("grants").Executor()
	e.Exec()
}
