package pgstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/pgstore"
)

// newAuditLog returns a migrated AuditLog in a schema of the test's own, dropped afterwards, and
// the quoted name of its table.
func newAuditLog(t *testing.T, pool *pgxpool.Pool, table string) (*pgstore.AuditLog, string) {
	t.Helper()
	schema := testenv.Name(t)
	t.Cleanup(func() { dropSchema(t, pool, schema) })
	l := pgstore.NewAuditLog(pool, pgstore.AuditOptions{Schema: schema, Table: table})
	if err := l.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if table == "" {
		table = pgstore.DefaultAuditTable
	}
	return l, pgx.Identifier{schema, table}.Sanitize()
}

// auditRows reads the table back, keyed by operation and key.
func auditRows(t *testing.T, pool *pgxpool.Pool, table string) map[[2]string]idem.AuditEntry {
	t.Helper()
	rows, err := pool.Query(t.Context(), "SELECT operation, key, status, completed_at FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (idem.AuditEntry, error) {
		var e idem.AuditEntry
		return e, row.Scan(&e.Operation, &e.Key, &e.Status, &e.At)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]idem.AuditEntry{}
	for _, e := range entries {
		got[[2]string{e.Operation, e.Key}] = e
	}
	return got
}

// TestAuditRecordOnce: sixteen concurrent records of one operation and key write one row, and
// exactly one of them reports it; the same key under another operation is another row.
func TestAuditRecordOnce(t *testing.T) {
	pool := connect(t)
	l, table := newAuditLog(t, pool, "")
	ctx := t.Context()
	var (
		recorded atomic.Int32
		wg       sync.WaitGroup
	)
	for i := range 16 {
		wg.Go(func() {
			ok, err := l.Record(ctx, idem.AuditEntry{Operation: "charge", Key: "k1", Status: 201 + i})
			if err != nil {
				t.Error(err)
			}
			if ok {
				recorded.Add(1)
			}
		})
	}
	wg.Wait()
	if n := recorded.Load(); n != 1 {
		t.Errorf("16 concurrent records of charge/k1 reported %d recorded, want 1", n)
	}
	if ok, err := l.Record(ctx, idem.AuditEntry{Operation: "refund", Key: "k1", Status: 200}); !ok || err != nil {
		t.Errorf("Record(refund, k1) = %v, %v; want recorded", ok, err)
	}
	if ok, err := l.Record(ctx, idem.AuditEntry{Operation: "charge", Key: "k1", Status: 500}); ok || err != nil {
		t.Errorf("Record(charge, k1) again = %v, %v; want not recorded", ok, err)
	}
	got := auditRows(t, pool, table)
	if len(got) != 2 {
		t.Fatalf("%d rows, want charge/k1 and refund/k1: %+v", len(got), got)
	}
	if e, ok := got[[2]string{"charge", "k1"}]; !ok || e.Status < 201 || e.Status > 216 {
		t.Errorf("charge/k1 row = %+v, %v; want one of the concurrent records (status 201-216)", e, ok)
	}
	if e, ok := got[[2]string{"refund", "k1"}]; !ok || e.Status != 200 {
		t.Errorf("refund/k1 row = %+v, %v; want status 200", e, ok)
	}
}

// TestAuditRecordTime: an explicit At is stored as given; a zero one is the server's clock.
func TestAuditRecordTime(t *testing.T) {
	pool := connect(t)
	l, table := newAuditLog(t, pool, "")
	ctx := t.Context()
	explicit := time.Date(2024, 2, 29, 12, 30, 45, 123456000, time.UTC)
	for _, e := range []idem.AuditEntry{
		{Operation: "charge", Key: "explicit", Status: 201, At: explicit},
		{Operation: "charge", Key: "zero", Status: 201},
	} {
		if ok, err := l.Record(ctx, e); !ok || err != nil {
			t.Fatalf("Record(%+v) = %v, %v; want recorded", e, ok, err)
		}
	}
	got := auditRows(t, pool, table)
	if e := got[[2]string{"charge", "explicit"}]; !e.At.Equal(explicit) {
		t.Errorf("explicit At stored as %v, want %v", e.At, explicit)
	}
	if e := got[[2]string{"charge", "zero"}]; e.At.IsZero() || time.Since(e.At).Abs() > time.Minute {
		t.Errorf("zero At stored as %v, want the server's now (within a minute of %v)", e.At, time.Now())
	}
}

// TestAuditRecordTx: the audit row commits or rolls back with the caller's transaction.
func TestAuditRecordTx(t *testing.T) {
	pool := connect(t)
	l, table := newAuditLog(t, pool, "")
	ctx := t.Context()
	run := func(commit bool) bool {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		ok, err := l.RecordTx(ctx, tx, idem.AuditEntry{Operation: "charge", Key: "k1", Status: 201})
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return ok
	}
	if !run(false) {
		t.Error("RecordTx in the first transaction reported nothing recorded")
	}
	if got := auditRows(t, pool, table); len(got) != 0 {
		t.Fatalf("after rollback: rows %+v, want none", got)
	}
	if !run(true) {
		t.Error("RecordTx after the rollback reported nothing recorded")
	}
	if got := auditRows(t, pool, table); len(got) != 1 || got[[2]string{"charge", "k1"}].Status != 201 {
		t.Fatalf("after commit: rows %+v, want charge/k1 with status 201", got)
	}
	if run(true) {
		t.Error("RecordTx after the commit recorded charge/k1 again")
	}
}

// TestAuditRecordInvalid: an entry without an operation or a key is refused before the database:
// the log is built on a DB that fails the test if used.
func TestAuditRecordInvalid(t *testing.T) {
	l := pgstore.NewAuditLog(failDB{t}, pgstore.AuditOptions{})
	for _, e := range []idem.AuditEntry{{Key: "k1", Status: 201}, {Operation: "charge", Status: 201}, {}, {Operation: "charge", Key: "k\x00"}, {Operation: "\xff", Key: "k1"}} {
		if ok, err := l.Record(t.Context(), e); ok || !errors.Is(err, idem.ErrAuditInvalid) {
			t.Errorf("Record(%+v) = %v, %v; want ErrAuditInvalid", e, ok, err)
		}
		if ok, err := l.RecordTx(t.Context(), nil, e); ok || !errors.Is(err, idem.ErrAuditInvalid) {
			t.Errorf("RecordTx(%+v) = %v, %v; want ErrAuditInvalid", e, ok, err)
		}
	}
}

// failDB is a DB any use of which fails the test.
type failDB struct{ t *testing.T }

func (d failDB) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	d.t.Error("Exec reached the database")
	return pgconn.CommandTag{}, errors.New("failDB")
}

func (d failDB) QueryRow(context.Context, string, ...any) pgx.Row {
	d.t.Error("QueryRow reached the database")
	return nil
}

// TestAuditQuotedNames: a schema and a table whose names need quoting, migrated twice.
func TestAuditQuotedNames(t *testing.T) {
	pool := connect(t)
	schema := testenv.Name(t) + ` "Ops"; -`
	t.Cleanup(func() { dropSchema(t, pool, schema) })
	const tableName = `Audit "Log"; DROP TABLE x`
	l := pgstore.NewAuditLog(pool, pgstore.AuditOptions{Schema: schema, Table: tableName})
	for range 2 {
		if err := l.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := l.Record(t.Context(), idem.AuditEntry{Operation: "charge", Key: "k1", Status: 201}); !ok || err != nil {
		t.Fatalf("Record = %v, %v; want recorded", ok, err)
	}
	got := auditRows(t, pool, pgx.Identifier{schema, tableName}.Sanitize())
	if len(got) != 1 || got[[2]string{"charge", "k1"}].Status != 201 {
		t.Errorf("rows in %q.%q: %+v, want charge/k1 with status 201", schema, tableName, got)
	}
}

// TestAuditMigrateTwice: migrating an existing table keeps its rows.
func TestAuditMigrateTwice(t *testing.T) {
	pool := connect(t)
	l, table := newAuditLog(t, pool, "")
	if ok, err := l.Record(t.Context(), idem.AuditEntry{Operation: "charge", Key: "k1", Status: 201}); !ok || err != nil {
		t.Fatalf("Record = %v, %v; want recorded", ok, err)
	}
	if err := l.Migrate(t.Context()); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if got := auditRows(t, pool, table); len(got) != 1 {
		t.Errorf("after a second Migrate: rows %+v, want charge/k1 kept", got)
	}
}
