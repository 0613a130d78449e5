package checkthenact

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"example.com/boiled/models"
	"github.com/volatiletech/sqlboiler/v4/boil"
	"github.com/volatiletech/sqlboiler/v4/queries"
	"github.com/volatiletech/sqlboiler/v4/queries/qm"
)

type boiledMailer interface {
	Send(ctx context.Context, to, body string) error
}

func boiledExists(ctx context.Context, db *sql.DB, mail boiledMailer, id, to string) error {
	seen, err := models.ProcessedEventExists(ctx, db, id)
	if err != nil || seen {
		return err
	}
	if err := mail.Send(ctx, to, "welcome"); err != nil {
		return err
	}
	ev := &models.ProcessedEvent{EventID: id, Status: "done"}
	return ev.Insert(ctx, db, boil.Infer()) // want `INSERT into ProcessedEvent after the ProcessedEventExists at sqlboiler.go:\d+ races with a concurrent retry: both find nothing and both run Send first`
}

func boiledQueryExists(ctx context.Context, db *sql.DB, mail boiledMailer, id, to string) error {
	seen, err := models.ProcessedEvents(qm.Where("event_id = ?", id)).Exists(ctx, db)
	if err != nil || seen {
		return err
	}
	if err := mail.Send(ctx, to, "welcome"); err != nil {
		return err
	}
	ev := models.ProcessedEvent{EventID: id, Status: "done"}
	return ev.Insert(ctx, db, boil.Infer()) // want `INSERT into ProcessedEvent after the Exists at sqlboiler.go:\d+ races`
}

func boiledFind(ctx context.Context, db *sql.DB, mail boiledMailer, id, to string) error {
	_, err := models.FindProcessedEvent(ctx, db, id)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err := mail.Send(ctx, to, "welcome"); err != nil {
		return err
	}
	ev := &models.ProcessedEvent{EventID: id, Status: "done"}
	return ev.Insert(ctx, db, boil.Infer()) // want `INSERT into ProcessedEvent after the FindProcessedEvent at sqlboiler.go:\d+ races`
}

// boiledDuplicate takes the row first and answers a duplicate as done.
func boiledDuplicate(ctx context.Context, db *sql.DB, mail boiledMailer, id, to string) error {
	seen, err := models.ProcessedEventExists(ctx, db, id)
	if err != nil || seen {
		return err
	}
	ev := &models.ProcessedEvent{EventID: id, Status: "done"}
	if err := ev.Insert(ctx, db, boil.Infer()); err != nil {
		if strings.Contains(err.Error(), "23505") {
			return nil
		}
		return err
	}
	return mail.Send(ctx, to, "welcome")
}

func boiledNotify(ctx context.Context, db *sql.DB, no string) error {
	order, err := models.Orders(qm.Where("out_trade_no = ?", no)).One(ctx, db)
	if err != nil {
		return err
	}
	if order.Status == "PAID" {
		return nil
	}
	order.Status = "PAID"
	if _, err := order.Update(ctx, db, boil.Whitelist("status")); err != nil { // want `UPDATE of Order after the One at sqlboiler.go:\d+ races with a concurrent retry; compare what was read in its WHERE clause`
		return err
	}
	_, err = queries.Raw("UPDATE wallets SET balance = balance + $1 WHERE user_id = $2", order.Amount, order.UserID).ExecContext(ctx, db)
	return err
}

// boiledNotifyGuarded moves the order only from PENDING, and credits only
// when it did.
func boiledNotifyGuarded(ctx context.Context, db *sql.DB, no string, user, amount int64) error {
	n, err := models.Orders(qm.Where("out_trade_no = ? AND status = ?", no, "PENDING")).UpdateAll(ctx, db, models.M{"status": "PAID"})
	if err != nil || n == 0 {
		return err
	}
	_, err = queries.Raw("UPDATE wallets SET balance = balance + $1 WHERE user_id = $2", amount, user).ExecContext(ctx, db)
	return err
}

// boiledNotifyRechecked reads the order for its amount and a fast answer,
// then moves it only from PENDING, whatever it read, and credits only
// when it did: the UPDATE's WHERE compares the column it sets.
func boiledNotifyRechecked(ctx context.Context, db *sql.DB, no string) error {
	order, err := models.Orders(qm.Where("out_trade_no = ?", no)).One(ctx, db)
	if err != nil {
		return err
	}
	if order.Status == "PAID" {
		return nil
	}
	n, err := models.Orders(qm.Where("out_trade_no = ? AND status = ?", no, "PENDING")).UpdateAll(ctx, db, models.M{"status": "PAID"})
	if err != nil || n == 0 {
		return err
	}
	_, err = queries.Raw("UPDATE wallets SET balance = balance + $1 WHERE user_id = $2", order.Amount, order.UserID).ExecContext(ctx, db)
	return err
}
