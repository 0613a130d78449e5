package calls

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
)

func scans(ctx context.Context, db *sql.DB, conn *pgx.Conn, x *sqlx.DB, id string) {
	var n int
	var ev Event
	db.QueryRowContext(ctx, "SELECT count(*) FROM processed_events WHERE event_id = $1", id).Scan(&n) // want `sql QueryRowContext` `access read SELECT record="sql processed_event" keys=<id> dest=<&n>`
	conn.QueryRow(ctx, "SELECT 1 FROM processed_events WHERE event_id = $1", id).Scan(&n, &ev)        // want `sql QueryRow` `access read SELECT record="sql processed_event" keys=<id> dest=<&n; &ev>`
	x.QueryRowx("SELECT * FROM processed_events WHERE event_id = $1", id).StructScan(&ev)             // want `sql QueryRowx` `access read SELECT record="sql processed_event" keys=<id> dest=<&ev>`
	row := db.QueryRow("SELECT 1 FROM processed_events WHERE event_id = $1", id)                      // want `sql QueryRow` `access read SELECT record="sql processed_event" keys=<id> dest=<&n>`
	if row.Err() != nil {
		return
	}
	if err := row.Scan(&n); err != nil {
		return
	}
	other := db.QueryRow("SELECT 1 FROM processed_events WHERE event_id = $1", id) // want `sql QueryRow` `access read SELECT .* dest=<>`
	row.Scan(&ev)
	_ = other
	rows, _ := db.Query("SELECT event_id FROM processed_events WHERE event_id = $1", id) // want `sql Query` `access read SELECT record="sql processed_event" keys=<id> dest=<>`
	rows.Scan(&n)
	pass(db.QueryRow("SELECT 1 FROM processed_events WHERE event_id = $1", id).Scan) // want `sql QueryRow` `access read SELECT .* dest=<>`
	_ = db.QueryRow("SELECT 1 FROM processed_events WHERE event_id = $1", id).Err()  // want `sql QueryRow` `access read SELECT .* dest=<>`
}

func pass(scan func(dest ...any) error) {}

var scanInClosure = func(db *sql.DB, id string) (n int) {
	row := db.QueryRow("SELECT count(*) FROM processed_events WHERE event_id = $1", id) // want `sql QueryRow` `access read SELECT .* dest=<&n>`
	row.Scan(&n)
	return n
}
