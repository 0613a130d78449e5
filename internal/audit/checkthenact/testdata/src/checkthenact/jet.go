package checkthenact

import (
	"context"
	"database/sql"

	. "github.com/go-jet/jet/v2/postgres"

	"example.com/jetgen/table"
)

type jetMailer interface {
	Send(ctx context.Context, to string) error
}

type jetSvc struct {
	db   *sql.DB
	mail jetMailer
}

type jetRow struct{ EventID string }

// Handle checks the table, works, then inserts.
func (s *jetSvc) Handle(ctx context.Context, id, to string) error {
	var dest []jetRow
	stmt := SELECT(table.ProcessedEvents.EventID).FROM(table.ProcessedEvents).WHERE(table.ProcessedEvents.EventID.EQ(String(id)))
	if err := stmt.QueryContext(ctx, s.db, &dest); err != nil {
		return err
	}
	if len(dest) > 0 {
		return nil
	}
	if err := s.mail.Send(ctx, to); err != nil {
		return err
	}
	_, err := table.ProcessedEvents.INSERT(table.ProcessedEvents.EventID, table.ProcessedEvents.Status).VALUES(id, "done").ExecContext(ctx, s.db) // want `INSERT into processed_events after the SELECT at jet.go:\d+ races with a concurrent retry: both find nothing and both run Send first`
	return err
}

// HandleOK claims the row first.
func (s *jetSvc) HandleOK(ctx context.Context, id, to string) error {
	res, err := table.ProcessedEvents.INSERT(table.ProcessedEvents.EventID, table.ProcessedEvents.Status).
		VALUES(id, "done").
		ON_CONFLICT(table.ProcessedEvents.EventID).DO_NOTHING().
		ExecContext(ctx, s.db)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return s.mail.Send(ctx, to)
}

// Notify reads the status, then moves it and credits.
func (s *jetSvc) Notify(ctx context.Context, no string, amount int64) error {
	var o struct{ Status string }
	err := SELECT(table.Orders.Status).FROM(table.Orders).WHERE(table.Orders.OutTradeNo.EQ(String(no))).QueryContext(ctx, s.db, &o)
	if err != nil {
		return err
	}
	if o.Status == "PAID" {
		return nil
	}
	if _, err := table.Orders.UPDATE(table.Orders.Status).SET(String("PAID")).WHERE(table.Orders.OutTradeNo.EQ(String(no))).ExecContext(ctx, s.db); err != nil { // want `UPDATE of orders after the SELECT at jet.go:\d+ races with a concurrent retry; compare what was read in its WHERE clause`
		return err
	}
	_, err = s.db.ExecContext(ctx, "UPDATE wallets SET balance = balance + $1 WHERE order_no = $2", amount, no)
	return err
}

// NotifyOK moves the order only from PENDING.
func (s *jetSvc) NotifyOK(ctx context.Context, no string, amount int64) error {
	res, err := table.Orders.UPDATE(table.Orders.Status).SET(String("PAID")).
		WHERE(table.Orders.OutTradeNo.EQ(String(no)).AND(table.Orders.Status.EQ(String("PENDING")))).
		ExecContext(ctx, s.db)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = s.db.ExecContext(ctx, "UPDATE wallets SET balance = balance + $1 WHERE order_no = $2", amount, no)
	return err
}
