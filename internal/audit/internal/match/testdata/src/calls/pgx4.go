package calls

import (
	"context"

	pgx4 "github.com/jackc/pgx/v4"
	pgxpool4 "github.com/jackc/pgx/v4/pgxpool"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func pgxV4(ctx context.Context, conn *pgx4.Conn, pool *pgxpool4.Pool, tx pgx4.Tx, id string, rows [][]interface{}) {
	conn.QueryRow(ctx, "SELECT 1 FROM webhook_inbox WHERE id = $1", id)                          // want `sql QueryRow SELECT webhook_inbox` `access read SELECT record="sql webhook_inbox" keys=<id>`
	pool.Exec(ctx, "INSERT INTO webhook_inbox (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", id) // want `sql Exec INSERT webhook_inbox const=true for-update=false conditional=true` `access claim INSERT record="sql webhook_inbox" keys=<id>`
	tx.Exec(ctx, "UPDATE webhook_inbox SET done = true WHERE id = $1", id)                       // want `sql Exec UPDATE webhook_inbox` `access update UPDATE record="sql webhook_inbox" keys=<id>`
	pool.QueryRow(ctx, "SELECT 1 FROM webhook_inbox WHERE id = $1 FOR UPDATE", id)               // want `sql QueryRow SELECT webhook_inbox const=true for-update=true` `access read SELECT \.\.\. FOR UPDATE`
	b := &pgx4.Batch{}
	b.Queue("INSERT INTO webhook_inbox (id) VALUES ($1)", id)                                               // want `sql Queue INSERT webhook_inbox` `access write INSERT record="sql webhook_inbox" keys=<id> dest=<> for-update=false appends=true`
	conn.CopyFrom(ctx, pgx4.Identifier{"public", "Webhook_Inbox"}, []string{"id"}, pgx4.CopyFromRows(rows)) // want `access write COPY record="sql webhook_inbox" keys=<pgx4.CopyFromRows\(rows\)> dest=<> for-update=false appends=true`
	tx.CopyFrom(ctx, pgx4.Identifier{"ledger"}, []string{"id"}, pgx4.CopyFromRows(rows))                    // want `access write COPY record="sql ledger" keys=<pgx4.CopyFromRows\(rows\)>`
}

func pgxV5Batch(ctx context.Context, conn *pgx.Conn, pool *pgxpool.Pool, id string, table string, rows [][]any) {
	var b pgx.Batch
	b.Queue("SELECT 1 FROM webhook_inbox WHERE id = $1", id)                             // want `sql Queue SELECT webhook_inbox` `access read SELECT record="sql webhook_inbox" keys=<id>`
	b.Queue("DELETE FROM webhook_inbox WHERE id = $1", id)                               // want `sql Queue DELETE webhook_inbox` `access delete DELETE`
	pool.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"id"}, pgx.CopyFromRows(rows)) // want `access write COPY record="sql event"`
	conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id"}, pgx.CopyFromRows(rows))
	conn.SendBatch(ctx, &b)
}

// queue has a pgx Batch's Queue and is a job queue.
type queue struct{}

func (queue) Queue(query string, args ...interface{}) {}

// Copier has pgx's CopyFrom and is no pgx.
type Copier interface {
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
}

func pgxLookAlikes(ctx context.Context, q queue, c Copier, rows [][]any) {
	q.Queue("INSERT INTO webhook_inbox (id) VALUES ($1)", 1)
	c.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"id"}, pgx.CopyFromRows(rows))
}
