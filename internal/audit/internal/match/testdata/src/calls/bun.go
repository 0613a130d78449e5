package calls

import (
	"context"

	"github.com/uptrace/bun"
)

type Redemption struct {
	Code   string
	Status string
}

func bunCalls(ctx context.Context, db *bun.DB, idb bun.IDB, tx bun.Tx, code string) {
	var r Redemption
	var rs []Redemption
	var codes []string
	db.NewSelect().Model(&r).Where("code = ?", code).Exists(ctx)                                               // want `access read SELECT record="sql redemption" keys=<code> dest=<> for-update=false appends=false`
	idb.NewSelect().Model(&r).Where("code = ?", code).Scan(ctx)                                                // want `access read SELECT record="sql redemption" keys=<code> dest=<&r>`
	idb.NewSelect().Model(&rs).Where("code = ?", code).Limit(1).Scan(ctx, &rs)                                 // want `access read SELECT record="sql redemption" keys=<code> dest=<&rs>`
	db.NewSelect().Table("grants").Where("user_id = ? AND code = ?", 1, code).Count(ctx)                       // want `access read SELECT record="sql grant" keys=<1; code> dest=<>`
	tx.NewSelect().Model(&r).WherePK().For("UPDATE").Scan(ctx)                                                 // want `access read SELECT \.\.\. FOR UPDATE record="sql redemption" keys=<&r> dest=<&r> for-update=true`
	db.NewInsert().Model(&r).Exec(ctx)                                                                         // want `access write INSERT record="sql redemption" keys=<&r> dest=<> for-update=false appends=true`
	tx.NewInsert().Model(&r).On("CONFLICT (code) DO NOTHING").Exec(ctx)                                        // want `access claim INSERT record="sql redemption" keys=<&r>`
	db.NewInsert().Model(&r).Ignore().Returning("*").Exec(ctx)                                                 // want `access claim INSERT record="sql redemption"`
	db.NewUpdate().Model(&r).Set("status = ?", "used").Where("code = ?", code).Exec(ctx)                       // want `access update UPDATE record="sql redemption" keys=<code; "used">`
	db.NewUpdate().Model(&r).Set("status = ?", "used").Where("code = ? AND status = ?", code, "new").Exec(ctx) // want `access guarded update UPDATE record="sql redemption"`
	db.NewUpdate().Model(&r).WherePK().Exec(ctx)                                                               // want `access update UPDATE record="sql redemption" keys=<&r>`
	db.NewDelete().Model((*Redemption)(nil)).Where("code = ?", code).Exec(ctx)                                 // want `access delete DELETE record="sql redemption" keys=<code>`
	db.NewDelete().ModelTableExpr("redemptions AS r").Where("r.code = ?", code).Exec(ctx)                      // want `access delete DELETE record="sql redemption" keys=<code>`
	db.NewDelete().Model(&r).WherePK("code").Exec(ctx)                                                         // want `access delete DELETE record="sql redemption" keys=<&r>`
	db.NewSelect().Table("grants").Column("code").Where("user_id = ?", 1).Scan(ctx, &codes)                    // want `access read SELECT record="sql grant" keys=<1> dest=<&codes>`
	db.NewRaw("SELECT 1 FROM redemptions WHERE code = ?", code).Scan(ctx, &r)                                  // want `access read SELECT record="sql redemption" keys=<code> dest=<&r>`
	db.ExecContext(ctx, "DELETE FROM redemptions WHERE code = ?", code)                                        // want `sql ExecContext DELETE redemptions` `access delete DELETE record="sql redemption"`
}

// query has bun's method names and is not bun.
type query struct{}

func (q query) Model(m any) query                        { return q }
func (q query) Where(s string, args ...any) query        { return q }
func (q query) Exists(ctx context.Context) (bool, error) { return false, nil }
func (q query) Exec(ctx context.Context) (any, error)    { return nil, nil }
func newQuery() query                                    { return query{} }

func bunLookAlikes(ctx context.Context, db *bun.DB, table, code string) {
	var r Redemption
	newQuery().Model(&r).Where("code = ?", code).Exists(ctx)
	newQuery().Model(&r).Exec(ctx)
	db.NewSelect().Table(table).Where("code = ?", code).Exists(ctx)
	db.NewInsert().Table(table).Exec(ctx)
	db.NewInsert().Model(&r).On("CONFLICT (code) DO UPDATE SET status = EXCLUDED.status").Exec(ctx) // want `access claim INSERT`
}
