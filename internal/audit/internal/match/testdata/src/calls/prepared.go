package calls

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

func preparedCalls(ctx context.Context, db *sql.DB, tx *sql.Tx, x *sqlx.DB, id string) error {
	ins, err := db.PrepareContext(ctx, "INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
	if err != nil {
		return err
	}
	defer ins.Close()
	ins.ExecContext(ctx, id) // want `access claim INSERT record="sql processed_event" keys=<id> dest=<>`
	tx.Stmt(ins).Exec(id)    // want `access claim INSERT record="sql processed_event" keys=<id>`
	sel, _ := db.Prepare("SELECT 1 FROM processed_events WHERE event_id = $1")
	sel.QueryRow(id) // want `access read SELECT record="sql processed_event" keys=<id>`
	del, _ := x.Preparex("DELETE FROM processed_events WHERE event_id = ?")
	del.Exec(id) // want `access delete DELETE record="sql processed_event" keys=<id>`
	return nil
}

func preparedLookAlikes(ctx context.Context, db *sql.DB, given *sql.Stmt, query, id string) {
	given.Exec(id)
	dyn, _ := db.Prepare(query)
	dyn.Exec(id)
	re, _ := db.Prepare("SELECT 1 FROM processed_events WHERE event_id = $1")
	re, _ = db.Prepare("DELETE FROM processed_events")
	re.Exec(id)
	ch := make(chan *sql.Stmt)
	(<-ch).Exec(id)
}
