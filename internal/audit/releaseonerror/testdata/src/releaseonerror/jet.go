package releaseonerror

import (
	"context"
	"database/sql"

	. "github.com/go-jet/jet/v2/postgres"

	"example.com/jetgen/table"
)

// jetClaim takes the row as processing and leaves it so on a failure.
func jetClaim(ctx context.Context, db *sql.DB, send func(context.Context, string) error, id, to string) error {
	res, err := table.ProcessedEvents.INSERT(table.ProcessedEvents.EventID, table.ProcessedEvents.Status).
		VALUES(id, "processing").
		ON_CONFLICT(table.ProcessedEvents.EventID).DO_NOTHING().
		ExecContext(ctx, db)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := send(ctx, to); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into processed_events at jet.go:\d+ held`
	}
	_, err = table.ProcessedEvents.UPDATE(table.ProcessedEvents.Status).SET(String("done")).WHERE(table.ProcessedEvents.EventID.EQ(String(id))).ExecContext(ctx, db)
	return err
}

// jetClaimReleased deletes the row when the work fails.
func jetClaimReleased(ctx context.Context, db *sql.DB, send func(context.Context, string) error, id, to string) error {
	res, err := table.ProcessedEvents.INSERT(table.ProcessedEvents.EventID, table.ProcessedEvents.Status).
		VALUES(id, "processing").
		ON_CONFLICT(table.ProcessedEvents.EventID).DO_NOTHING().
		ExecContext(ctx, db)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := send(ctx, to); err != nil {
		_, _ = table.ProcessedEvents.DELETE().WHERE(table.ProcessedEvents.EventID.EQ(String(id))).ExecContext(context.WithoutCancel(ctx), db)
		return err
	}
	_, err = table.ProcessedEvents.UPDATE(table.ProcessedEvents.Status).SET(String("done")).WHERE(table.ProcessedEvents.EventID.EQ(String(id))).ExecContext(ctx, db)
	return err
}
