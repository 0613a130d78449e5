package pgstore

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DefaultAuditTable is the audit table's name when AuditOptions.Table is empty.
const DefaultAuditTable = "idempotency_audit"

// AuditOptions configures an AuditLog.
type AuditOptions struct {
	// Schema holds the table; empty means the connection's search_path. Migrate creates it.
	Schema string
	// Table is the table's name. Default DefaultAuditTable.
	Table string
}

// AuditLog is an idem.AuditLog on Postgres: one row per operation and key, with the operation
// and key as primary key. Unlike the store's records, rows do not expire and the runtime never
// deletes them; keeping or pruning them is the business's retention policy.
//
// Record writes in a statement of its own: run after the work has committed, a crash between
// the two leaves the work without its entry. RecordTx is the transaction-safe way: it writes in the
// caller's transaction, so the business write and its audit row commit or roll back together.
type AuditLog struct {
	db              DB
	migrate, record string
}

var _ idem.AuditLog = (*AuditLog)(nil)

//go:embed auditlog.sql
var auditSQL string

// NewAuditLog returns an AuditLog over db. Call Migrate once before use.
func NewAuditLog(db DB, opts AuditOptions) *AuditLog {
	if opts.Table == "" {
		opts.Table = DefaultAuditTable
	}
	r, migrate := tableSQL(opts.Schema, opts.Table, "", auditSQL)
	return &AuditLog{
		db:      db,
		migrate: migrate,
		record:  r.Replace(recordSQL),
	}
}

// recordSQL: $1 operation, $2 key, $3 status, $4 completed at, or NULL for the server's now()
// (the start of the transaction it runs in, so a RecordTx is stamped like the transaction's writes).
const recordSQL = `
INSERT INTO {{table}} (operation, key, status, completed_at)
VALUES ($1, $2, $3, coalesce($4::timestamptz, now()))
ON CONFLICT (operation, key) DO NOTHING`

// Migrate creates the schema (when set) and the table if they are missing; safe to run
// concurrently from every instance.
func (l *AuditLog) Migrate(ctx context.Context) error {
	if _, err := l.db.Exec(ctx, l.migrate); err != nil {
		return fmt.Errorf("pgstore: migrate audit log: %w", err)
	}
	return nil
}

// Record implements idem.AuditLog. A zero e.At is the database's now().
func (l *AuditLog) Record(ctx context.Context, e idem.AuditEntry) (bool, error) {
	return l.recordIn(ctx, l.db, e)
}

// RecordTx records e in the caller's transaction, so the entry exists exactly when the business
// write does: a rolled-back transaction leaves none, and a retry that commits later records it
// then. A concurrent RecordTx of the same operation and key waits for tx and then records
// nothing if tx committed.
func (l *AuditLog) RecordTx(ctx context.Context, tx pgx.Tx, e idem.AuditEntry) (bool, error) {
	return l.recordIn(ctx, tx, e)
}

func (l *AuditLog) recordIn(ctx context.Context, db DB, e idem.AuditEntry) (bool, error) {
	if err := idem.CheckAuditEntry(e); err != nil {
		return false, fmt.Errorf("pgstore: audit: %w", err)
	}
	var at *time.Time
	if !e.At.IsZero() {
		at = &e.At
	}
	tag, err := db.Exec(ctx, l.record, e.Operation, e.Key, e.Status, at)
	if err != nil {
		return false, idem.Unavailable(ctx, fmt.Sprintf("pgstore: audit %q %q", e.Operation, e.Key), err)
	}
	return tag.RowsAffected() == 1, nil
}
