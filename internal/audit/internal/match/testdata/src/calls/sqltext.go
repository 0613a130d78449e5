package calls

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

const eventsTable = "processed_events"

func builtSQL(ctx context.Context, db *sql.DB, x *sqlx.DB, table, id string, ev Event, forUpdate bool) {
	var sb strings.Builder
	sb.Grow(64)
	sb.WriteString("SELECT id FROM ")
	sb.WriteString(eventsTable)
	fmt.Fprintf(&sb, " WHERE event_id = '%s'", id)
	if forUpdate {
		sb.WriteString(" FOR UPDATE")
	}
	var other strings.Builder
	other.WriteString(" FOR SHARE")
	db.QueryRowContext(ctx, sb.String()) // want `sql QueryRowContext SELECT processed_events const=false for-update=true conditional=false guarded=false columns=event_id$` `access read SELECT \.\.\. FOR UPDATE record="sql processed_event" keys=<id>`
	sb.WriteString(" AND tenant = $2")
	var late strings.Builder
	db.ExecContext(ctx, late.String(), id) // want `sql ExecContext SQL  const=false`
	late.WriteString("DELETE FROM processed_events")
	var spread strings.Builder
	fmt.Fprintf(&spread, "DELETE FROM processed_events WHERE event_id = %s", []any{id}...)
	db.ExecContext(ctx, spread.String(), id) // want `sql ExecContext SQL  const=false`
	var buf bytes.Buffer
	buf.WriteString("DELETE FROM ")
	buf.WriteString(table)
	buf.WriteString(" WHERE event_id = $1")
	db.ExecContext(ctx, buf.String(), id) // want `sql ExecContext DELETE  const=false for-update=false conditional=false guarded=false columns=event_id`
	var ins bytes.Buffer
	ins.WriteString("INSERT INTO processed_events (event_id) VALUES ($1)")
	db.ExecContext(ctx, ins.String(), id) // want `sql ExecContext INSERT processed_events const=false` `access write INSERT record="sql processed_event" keys=<id>`

	db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE event_id = $1", eventsTable), id) // want `sql ExecContext DELETE processed_events const=false` `access delete DELETE record="sql processed_event" keys=<id>`
	db.QueryRowContext(ctx, "SELECT 1 FROM "+table+" WHERE event_id = $1", id)              // want `sql QueryRowContext SELECT  const=false for-update=false conditional=false guarded=false columns=event_id`
	q := "SELECT status FROM jobs WHERE id = '" + id + "'"
	q += " FOR UPDATE"
	db.QueryRowContext(ctx, q) // want `sql QueryRowContext SELECT jobs const=false for-update=true` `access read SELECT \.\.\. FOR UPDATE record="sql job" keys=<id>`
	var del = "DELETE FROM processed_events WHERE event_id = $1"
	db.ExecContext(ctx, del, id) // want `sql ExecContext DELETE processed_events const=true` `access delete DELETE record="sql processed_event" keys=<id>`
	named, args, _ := sqlx.Named("INSERT INTO processed_events (event_id) VALUES (:event_id) ON CONFLICT DO NOTHING", ev)
	named = x.Rebind(named)
	x.ExecContext(ctx, named, args...) // want `sql ExecContext INSERT processed_events const=false for-update=false conditional=true` `access claim INSERT record="sql processed_event" keys=<args>`
	bound, bargs, _ := x.BindNamed("UPDATE jobs SET state = :state WHERE id = :id", ev)
	x.ExecContext(ctx, bound, bargs...) // want `sql ExecContext UPDATE jobs const=false` `access update UPDATE record="sql job" keys=<bargs>`
}
