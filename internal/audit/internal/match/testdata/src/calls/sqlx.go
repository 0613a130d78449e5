package calls

import (
	"context"

	"github.com/jmoiron/sqlx"
)

type Event struct {
	EventID string `db:"event_id"`
}

// Querier is a repository's own sqlx-shaped interface.
type Querier interface {
	GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error
	NamedExecContext(ctx context.Context, query string, arg interface{}) (interface{}, error)
}

// RowGetter has a GetContext without a destination.
type RowGetter interface {
	GetContext(ctx context.Context, query string, args ...interface{}) error
}

func sqlxCalls(ctx context.Context, db *sqlx.DB, tx *sqlx.Tx, q Querier, g RowGetter, id string, ids []string) {
	var n int
	var ev Event
	var evs []Event
	db.Get(&n, "SELECT count(*) FROM processed_events WHERE event_id = ?", id)                                                                    // want `sql Get SELECT processed_events const=true` `access read SELECT record="sql processed_event" keys=<id> dest=<&n>`
	db.GetContext(ctx, &ev, db.Rebind("SELECT * FROM processed_events WHERE event_id = ?"), id)                                                   // want `sql GetContext SELECT processed_events const=false` `access read SELECT record="sql processed_event" keys=<id> dest=<&ev>`
	tx.SelectContext(ctx, &evs, "SELECT event_id FROM processed_events WHERE event_id = $1", id)                                                  // want `sql SelectContext SELECT processed_events` `access read SELECT record="sql processed_event" keys=<id> dest=<&evs>`
	tx.Get(&ev, sqlx.Rebind(sqlx.DOLLAR, "SELECT * FROM processed_events WHERE event_id = ? FOR UPDATE"), id)                                     // want `sql Get SELECT processed_events const=false for-update=true` `access read SELECT \.\.\. FOR UPDATE record="sql processed_event" keys=<id> dest=<&ev> for-update=true`
	db.NamedExec("INSERT INTO processed_events (event_id) VALUES (:event_id)", ev)                                                                // want `sql NamedExec INSERT processed_events` `access write INSERT record="sql processed_event" keys=<ev> dest=<> for-update=false appends=true`
	tx.NamedExecContext(ctx, "INSERT INTO processed_events (event_id) VALUES (:event_id) ON CONFLICT DO NOTHING", map[string]any{"event_id": id}) // want `sql NamedExecContext INSERT processed_events const=true for-update=false conditional=true` `access claim INSERT record="sql processed_event" keys=<map\[string\]any\{…\}>`
	db.MustExec("DELETE FROM processed_events WHERE event_id = $1", id)                                                                           // want `sql MustExec DELETE processed_events` `access delete DELETE record="sql processed_event" keys=<id>`
	tx.MustExec("UPDATE jobs SET state = 'done' WHERE id = $1 AND state = 'running'", id)                                                         // want `sql MustExec UPDATE jobs` `access guarded update UPDATE record="sql job" keys=<id>`
	db.QueryRowx("SELECT 1 FROM processed_events WHERE event_id = $1", id)                                                                        // want `sql QueryRowx SELECT processed_events` `access read SELECT record="sql processed_event" keys=<id> dest=<>`
	db.Queryx("SELECT event_id FROM processed_events")                                                                                            // want `sql Queryx SELECT processed_events` `access read SELECT`
	sqlx.Get(db, &n, "SELECT 1 FROM processed_events WHERE event_id = $1", id)                                                                    // want `sql Get SELECT processed_events` `access read SELECT record="sql processed_event" keys=<id> dest=<&n>`
	q.GetContext(ctx, &ev, "SELECT * FROM processed_events WHERE event_id = $1", id)                                                              // want `sql GetContext SELECT processed_events` `access read SELECT record="sql processed_event" keys=<id> dest=<&ev>`
	q.NamedExecContext(ctx, "INSERT INTO processed_events (event_id) VALUES (:event_id)", &ev)                                                    // want `sql NamedExecContext INSERT processed_events` `access write INSERT record="sql processed_event" keys=<&ev>`
	g.GetContext(ctx, "SELECT 1 FROM processed_events WHERE event_id = $1", id)                                                                   // want `sql GetContext SELECT processed_events` `access read SELECT record="sql processed_event" keys=<id> dest=<>`

	query, args, err := sqlx.In("SELECT event_id FROM processed_events WHERE event_id IN (?)", ids)
	if err != nil {
		return
	}
	query = db.Rebind(query)
	db.Select(&evs, query, args...) // want `sql Select SELECT processed_events const=false` `access read SELECT record="sql processed_event" keys=<args> dest=<&evs>`
}

// kv has sqlx's method names and is not a database.
type kv struct{}

func (kv) Get(dest interface{}, key string, args ...interface{}) error { return nil }
func (kv) MustExec(cmd string, args ...interface{}) error              { return nil }

// Cache has a Get that sends no SQL.
type Cache interface {
	Get(ctx context.Context, key string) (string, error)
}

func sqlxLookAlikes(ctx context.Context, db *sqlx.DB, k kv, c Cache, query, id string) {
	var n int
	k.Get(&n, "SELECT 1 FROM processed_events WHERE event_id = $1", id)
	k.MustExec("DELETE FROM processed_events")
	c.Get(ctx, "SELECT 1 FROM processed_events")
	db.Rebind("SELECT 1 FROM processed_events WHERE event_id = ?")
	sqlx.In("SELECT 1 FROM processed_events WHERE event_id IN (?)", []string{id})
	db.Get(&n, query, id)            // want `sql Get SQL  const=false`
	db.Get(&n, "SHOW search_path")   // want `sql Get SQL  const=true`
	db.Get(&n, db.Rebind(query), id) // want `sql Get SQL  const=false`
	q2 := "SELECT 1 FROM processed_events WHERE event_id = ?"
	q2 = query
	db.Get(&n, q2, id) // want `sql Get SQL  const=false`
}

// sqlx's interfaces declare database/sql's methods.
func sqlxInterfaces(ctx context.Context, db sqlx.ExtContext, key string) {
	db.ExecContext(ctx, "UPDATE idempotency_keys SET status = 'done' WHERE key = $1", key) // want `sql ExecContext UPDATE idempotency_keys` `access update UPDATE record="sql idempotency_key" keys=<key>`
}
