package releaseonerror

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"example.com/boiled/models"
	"github.com/volatiletech/sqlboiler/v4/boil"
)

// isUniqueViolation stands for the pq or pgconn check of SQLSTATE 23505.
func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "duplicate key")
}

// Positive: a sqlboiler model inserted as the in-progress row, its unique
// key answering the duplicate; the work's failure leaves the row.
func boiledClaim(ctx context.Context, db *sql.DB, id string) error {
	ev := &models.ProcessedEvent{EventID: id, Status: "processing"}
	if err := ev.Insert(ctx, db, boil.Infer()); err != nil {
		if isUniqueViolation(err) {
			return nil // a duplicate delivery
		}
		return err
	}
	if err := send(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by INSERT into ProcessedEvent at sqlboiler.go:\d+ held`
	}
	ev.Status = "done"
	_, err := ev.Update(ctx, db, boil.Infer())
	return err
}

// Negative: the same, deleting the row when the work fails.
func boiledClaimReleased(ctx context.Context, db *sql.DB, id string) error {
	ev := &models.ProcessedEvent{EventID: id, Status: "processing"}
	err := ev.Insert(ctx, db, boil.Infer())
	var code interface{ SQLState() string }
	switch {
	case errors.As(err, &code) && code.SQLState() == "23505":
		return nil
	case err != nil:
		return err
	}
	if err := send(ctx, id); err != nil {
		_, _ = ev.Delete(ctx, db)
		return err
	}
	ev.Status = "done"
	_, err = ev.Update(ctx, db, boil.Infer())
	return err
}

// Negative: an insert of a finished row whose duplicate is ignored
// claims nothing: the row says the work is done.
func boiledRecordDone(ctx context.Context, db *sql.DB, id string) error {
	if err := send(ctx, id); err != nil {
		return err
	}
	ev := &models.ProcessedEvent{EventID: id, Status: "done"}
	if err := ev.Insert(ctx, db, boil.Infer()); err != nil && !isUniqueViolation(err) {
		return err
	}
	return nil
}
