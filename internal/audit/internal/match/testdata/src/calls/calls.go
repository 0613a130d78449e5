package calls

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

const insertEvent = `INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING`

// DBTX is the interface sqlc generates.
type DBTX interface {
	ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

func databaseSQL(ctx context.Context, db *sql.DB, tx *sql.Tx, q DBTX, query string) {
	db.QueryRow("SELECT 1 FROM processed_events WHERE event_id = $1", 1)                     // want `sql QueryRow SELECT processed_events const=true for-update=false conditional=false guarded=false` `access read SELECT record="sql processed_event" keys=<1> dest=<>`
	tx.QueryRowContext(ctx, "SELECT 1 FROM processed_events WHERE event_id = $1 FOR UPDATE") // want `sql QueryRowContext SELECT processed_events const=true for-update=true` `access read SELECT \.\.\. FOR UPDATE record="sql processed_event" keys=<> dest=<>`
	db.ExecContext(ctx, insertEvent, 1)                                                      // want `sql ExecContext INSERT processed_events const=true for-update=false conditional=true` `access claim INSERT record="sql processed_event" keys=<1> dest=<>`
	q.ExecContext(ctx, "UPDATE orders SET paid = true WHERE id = $1 AND version = $2")       // want `sql ExecContext UPDATE orders const=true for-update=false conditional=false guarded=true` `access guarded update UPDATE record="sql order" keys=<> dest=<>`
	db.Exec(query)                                                                           // want `sql Exec SQL  const=false`
	db.Ping()
}

func pgxCalls(ctx context.Context, conn *pgx.Conn, pool *pgxpool.Pool, tx pgx.Tx) {
	conn.QueryRow(ctx, "SELECT 1 FROM webhook_inbox WHERE id = $1", 1) // want `sql QueryRow SELECT webhook_inbox` `access read SELECT record="sql webhook_inbox" keys=<1> dest=<>`
	pool.Exec(ctx, "INSERT INTO webhook_inbox (id) VALUES ($1)", 1)    // want `sql Exec INSERT webhook_inbox const=true for-update=false conditional=false` `access write INSERT record="sql webhook_inbox" keys=<1> dest=<>`
	tx.Query(ctx, "SELECT id FROM jobs")                               // want `sql Query SELECT jobs` `access read SELECT record="sql job" keys=<> dest=<>`
	tx.Commit(ctx)
	var tag pgconn.CommandTag
	tag.RowsAffected()
}

type ProcessedEvent struct{ ID string }

func gormCalls(db *gorm.DB) {
	var ev ProcessedEvent
	var n int64
	db.First(&ev, "id = ?", 1)                                 // want `orm First op=1 model=ProcessedEvent on-conflict=false locking=false` `access read First record="sql processed_event" keys=<"id = \?"; 1> dest=<&ev>`
	db.Model(&ProcessedEvent{}).Where("id = ?", 1).Count(&n)   // want `orm Count op=1 model=ProcessedEvent` `access read Count record="sql processed_event" keys=<1> dest=<&n>`
	db.Table("webhook_inbox").Find(&[]map[string]any{})        // want `orm Find op=1 model=webhook_inbox` `access read Find record="sql webhook_inbox" keys=<> dest=<&\[\]map\[string\]any\{\}>`
	db.Create(&ev)                                             // want `orm Create op=2 model=ProcessedEvent on-conflict=false` `access write Create record="sql processed_event" keys=<&ev> dest=<>`
	db.Clauses(clause.OnConflict{DoNothing: true}).Create(&ev) // want `orm Create op=2 model=ProcessedEvent on-conflict=true` `access claim Create record="sql processed_event" keys=<&ev> dest=<>`
	db.Clauses(clause.Locking{Strength: "UPDATE"}).First(&ev)  // want `orm First op=1 model=ProcessedEvent on-conflict=false locking=true` `access read First record="sql processed_event" keys=<> dest=<&ev>`
	db.FirstOrCreate(&ev, ProcessedEvent{ID: "x"})             // want `orm FirstOrCreate op=3 model=ProcessedEvent`
	db.Save(&ev)                                               // want `orm Save op=4 model=ProcessedEvent` `access update Save record="sql processed_event" keys=<&ev>`
}

func redisCalls(ctx context.Context, rdb *redis.Client, c redis.Cmdable, u redis.UniversalClient, key string) {
	rdb.Get(ctx, "idem:"+key)                                           // want `redis Get GET key=\*ast.BinaryExpr` `access read GET record="redis idem:\{\}" keys=<"idem:" \+ key> dest=<>`
	c.Exists(ctx, "seen:1")                                             // want `redis Exists EXISTS key="seen:1"` `access read EXISTS record="redis seen:1" keys=<"seen:1"> dest=<>`
	rdb.Set(ctx, key, 1, time.Hour)                                     // want `redis Set SET key=\*ast.Ident` `access write SET record="redis {}" keys=<key> dest=<>`
	rdb.SetNX(ctx, key, 1, time.Hour)                                   // want `redis SetNX SET NX key=\*ast.Ident` `access claim SET NX record="redis {}" keys=<key> dest=<>`
	rdb.SetArgs(ctx, key, 1, redis.SetArgs{Mode: "NX", TTL: time.Hour}) // want `redis SetArgs SET NX key=\*ast.Ident command=SET$` `access claim SET NX record="redis {}" keys=<key> dest=<>`
	rdb.SetArgs(ctx, key, 1, redis.SetArgs{TTL: time.Hour})             // want `redis SetArgs SET key` `access write SET record="redis {}" keys=<key> dest=<>`
	rdb.SetArgs(ctx, key, 1, redis.SetArgs{Mode: "XX"})                 // want `access guarded update SET XX record="redis {}" keys=<key> dest=<>`
	u.Do(ctx, "set", key, "v", "EX", 60, "nx")                          // want `redis Do SET NX` `access claim SET NX record="redis {}" keys=<key> dest=<>`
	u.Do(ctx, "SET", key, "v")                                          // want `redis Do SET key` `access write SET record="redis {}" keys=<key> dest=<>`
	u.Do(ctx, "SET", key, "v", "XX")                                    // want `access guarded update SET XX record="redis {}" keys=<key> dest=<>`
	u.Do(ctx, "GET", key)                                               // want `redis Do GET` `access read GET record="redis {}" keys=<key> dest=<>`
	rdb.Del(ctx, key)                                                   // want `redis Del DEL` `access delete DEL record="redis {}" keys=<key> dest=<> .* key-record="redis {}"`
	rdb.Do(ctx, "PING", 1)
}
