package calls

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

func squirrelCalls(ctx context.Context, db *sql.DB, code string, n int) {
	var got string
	sq.Select("code").From("redemptions").Where(sq.Eq{"code": code}).RunWith(db).QueryRow().Scan(&got) // want `access read SELECT record="sql redemption" keys=<code> dest=<&got> for-update=false appends=false`
	sq.Select("code").From("redemptions").Where("code = ? AND n = ?", code, n).RunWith(db).Scan(&got)  // want `access read SELECT record="sql redemption" keys=<code; n> dest=<&got>`
	psql := sq.StatementBuilder.PlaceholderFormat(sq.Dollar)
	psql.Select("1").From("redemptions").Where(sq.And{sq.Eq{"code": code}, sq.Eq{"n": n}}).Suffix("FOR UPDATE").RunWith(db).QueryRowContext(ctx) // want `access read SELECT \.\.\. FOR UPDATE record="sql redemption" keys=<code; n> dest=<> for-update=true`
	sq.Insert("redemptions").Columns("code").Values(code).RunWith(db).Exec()                                                                     // want `access write INSERT record="sql redemption" keys=<code> dest=<> for-update=false appends=true`
	sq.Insert("redemptions").Columns("code").Values(code).Suffix("ON CONFLICT (code) DO NOTHING").RunWith(db).ExecContext(ctx)                   // want `access claim INSERT record="sql redemption" keys=<code>`
	sq.Insert("").Into("redemptions").Options("IGNORE").Values(code).RunWith(db).Exec()                                                          // want `access claim INSERT record="sql redemption"`
	sq.Update("redemptions").Set("status", "used").Where(sq.Eq{"code": code}).RunWith(db).Exec()                                                 // want `access update UPDATE record="sql redemption" keys=<code>`
	sq.Update("redemptions").Set("status", "used").Where(sq.Eq{"code": code, "status": "new"}).RunWith(db).Exec()                                // want `access guarded update UPDATE record="sql redemption"`
	sq.Delete("redemptions").Where(sq.Eq{"code": code}).RunWith(db).Exec()                                                                       // want `access delete DELETE record="sql redemption" keys=<code>`

	query, args, err := sq.Select("1").From("redemptions").Where(sq.Eq{"code": code}).ToSql()
	if err != nil {
		return
	}
	db.QueryRowContext(ctx, query, args...) // want `sql QueryRowContext SELECT redemptions const=false` `access read SELECT record="sql redemption" keys=<args; code>`
	ins, iargs, _ := psql.Insert("redemptions").Columns("code").Values(code).Suffix("ON CONFLICT DO NOTHING").ToSql()
	sm, smargs, _ := sq.Insert("redemptions").SetMap(map[string]interface{}{"code": code, "n": n}).ToSql()
	db.ExecContext(ctx, sm, smargs...) // want `sql ExecContext INSERT redemptions const=false for-update=false conditional=false guarded=false columns=code,n` `access write INSERT`
	upd, uargs, _ := sq.Update("redemptions").SetMap(map[string]interface{}{"status": "used"}).Where(sq.Eq{"status": "new"}).ToSql()
	db.ExecContext(ctx, upd, uargs...) // want `sql ExecContext UPDATE redemptions const=false for-update=false conditional=false guarded=true` `access guarded update`
	db.ExecContext(ctx, ins, iargs...) // want `sql ExecContext INSERT redemptions const=false for-update=false conditional=true guarded=false columns=code` `access claim INSERT record="sql redemption" keys=<iargs; code>`
}

// builder has squirrel's method names and is not squirrel.
type builder struct{}

func (b builder) From(t string) builder                 { return b }
func (b builder) Where(p any, args ...any) builder      { return b }
func (b builder) Exec() (sql.Result, error)             { return nil, nil }
func (b builder) ToSql() (string, []interface{}, error) { return "", nil, nil }

func squirrelLookAlikes(ctx context.Context, db *sql.DB, b builder, table, code string) {
	b.From("redemptions").Where("code = ?", code).Exec()
	sq.Select("1").From(table).Where(sq.Eq{"code": code}).RunWith(db).Exec()
	sq.Select("1").From("redemptions").Where(sq.Eq{"code": code}).ToSql()
	q, args, _ := b.ToSql()
	db.ExecContext(ctx, q, args...) // want `sql ExecContext SQL  const=false`
	q2, args2, _ := sq.Delete("redemptions").Where(sq.Eq{"code": code}).ToSql()
	q2 = "DELETE FROM " + table
	db.ExecContext(ctx, q2, args2...) // want `sql ExecContext SQL  const=false`
}
