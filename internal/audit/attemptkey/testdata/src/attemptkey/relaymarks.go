package attemptkey

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"gorm.io/gorm"
)

// outboxRecord is a gorm model of an outbox row.
type outboxRecord struct {
	ID          uint
	EventID     string
	Subject     string
	Data        []byte
	Status      string
	Published   bool
	PublishedAt *time.Time
}

const (
	statusPending   = "PENDING"
	statusPublished = "PUBLISHED"
	statusFailed    = "PUBLISH_FAILED"
	statusNotSent   = "NOT_SENT"
)

type statusStore interface {
	UpdateStatus(ctx context.Context, id uint, status string) error
	Log(ctx context.Context, id uint, what string) error
}

type gormRelay struct {
	db     *gorm.DB
	sqlDB  *sql.DB
	js     jetstream.JetStream
	status statusStore
}

func (r *gormRelay) publish(ctx context.Context, rec outboxRecord, msgID string) error {
	_, err := r.js.Publish(ctx, rec.Subject, rec.Data, jetstream.WithMsgID(msgID))
	return err
}

// relayUpdateFlag marks the row with gorm's Update of a published flag.
func (r *gormRelay) relayUpdateFlag(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayUpdateFlag of rec at relaymarks.go:\d+ reaches publish`
		return err
	}
	return r.db.WithContext(ctx).Model(&rec).Update("published", true).Error
}

// relayUpdatesStatus marks the row with Updates of its status to
// published.
func (r *gormRelay) relayUpdatesStatus(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayUpdatesStatus of rec`
		return err
	}
	return r.db.Model(&outboxRecord{}).Where("id = ?", rec.ID).Updates(map[string]any{"status": statusPublished}).Error
}

// relaySave sets the row's PublishedAt and saves it.
func (r *gormRelay) relaySave(ctx context.Context, rec *outboxRecord) error {
	if err := r.publish(ctx, *rec, uuid.NewString()); err != nil { // want `inside the relay relaySave of rec`
		return err
	}
	now := time.Now()
	rec.PublishedAt = &now
	return r.db.Save(rec).Error
}

// relaySaveStatus moves the row's status to published and saves it.
func (r *gormRelay) relaySaveStatus(ctx context.Context, rec *outboxRecord) error {
	if err := r.publish(ctx, *rec, uuid.NewString()); err != nil { // want `inside the relay relaySaveStatus of rec`
		return err
	}
	rec.Status = statusPublished
	return r.db.Save(rec).Error
}

// relayStatusSQL marks the row with an UPDATE of its status column.
func (r *gormRelay) relayStatusSQL(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayStatusSQL of rec`
		return err
	}
	_, err := r.sqlDB.ExecContext(ctx, `UPDATE outbox_events SET status = 'SENT' WHERE id = $1`, rec.ID)
	return err
}

// relayStatusArg marks the row with an UPDATE whose status comes as an
// argument.
func (r *gormRelay) relayStatusArg(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayStatusArg of rec`
		return err
	}
	_, err := r.sqlDB.ExecContext(ctx, `UPDATE outbox_events SET status = $2 WHERE id = $1`, rec.ID, statusPublished)
	return err
}

// relayStatusMethod marks the row through a repository's UpdateStatus.
func (r *gormRelay) relayStatusMethod(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayStatusMethod of rec`
		return err
	}
	return r.status.UpdateStatus(ctx, rec.ID, statusPublished)
}

// relayStatusMethodKeyed marks the row the same way, and publishes under
// the row's event ID.
func (r *gormRelay) relayStatusMethodKeyed(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, rec.EventID); err != nil {
		return err
	}
	return r.status.UpdateStatus(ctx, rec.ID, statusPublished)
}

// noteFailure publishes an alert under a new ID and marks the row failed:
// a status that is no sent mark, so no relay.
func (r *gormRelay) noteFailure(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil {
		return err
	}
	if err := r.status.UpdateStatus(ctx, rec.ID, statusFailed); err != nil {
		return err
	}
	if err := r.status.UpdateStatus(ctx, rec.ID, statusNotSent); err != nil {
		return err
	}
	_, err := r.sqlDB.ExecContext(ctx, `UPDATE outbox_events SET status = 'FAILED' WHERE id = $1 AND status <> 'SENT'`, rec.ID)
	return err
}

// shipOrder publishes a new event and moves the order to shipped with
// gorm: a transition of the order, not a relay's mark.
func (r *gormRelay) shipOrder(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil {
		return err
	}
	return r.db.Model(&rec).Updates(map[string]any{"status": "SHIPPED", "shipped_at": time.Now()}).Error
}

// touchRecord logs the publish and saves the row's new subject: Save of
// a row none of whose sent fields changed.
func (r *gormRelay) touchRecord(ctx context.Context, rec *outboxRecord) error {
	if err := r.publish(ctx, *rec, uuid.NewString()); err != nil {
		return err
	}
	rec.Subject = "archived." + rec.Subject
	return r.db.Save(rec).Error
}

// logPublished publishes a new event and logs that it went out: a log
// line that says "published" is no mark on the row.
func (r *gormRelay) logPublished(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil {
		return err
	}
	return r.status.Log(ctx, rec.ID, statusPublished)
}

func (r *gormRelay) finish(ctx context.Context, id uint) error {
	return r.db.WithContext(ctx).Model(&outboxRecord{}).Where("id = ?", id).Update("published_at", time.Now()).Error
}

// relayThroughHelper marks the row through a helper whose gorm update
// sets its published_at.
func (r *gormRelay) relayThroughHelper(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayThroughHelper of rec`
		return err
	}
	return r.finish(ctx, rec.ID)
}

// relayProcessed marks the outbox row processed.
func (r *gormRelay) relayProcessed(ctx context.Context, rec outboxRecord) error {
	if err := r.publish(ctx, rec, uuid.NewString()); err != nil { // want `inside the relay relayProcessed of rec`
		return err
	}
	return r.db.Model(&rec).Update("processed_at", time.Now()).Error
}

type paymentRecord struct {
	ID      uint
	Subject string
	Data    []byte
}

// settlePayment publishes a new event and marks the payment processed:
// a payment is no queue of records waiting to be sent.
func (r *gormRelay) settlePayment(ctx context.Context, p paymentRecord) error {
	if err := r.publish(ctx, outboxRecord{Subject: p.Subject, Data: p.Data}, uuid.NewString()); err != nil {
		return err
	}
	return r.db.Model(&p).Update("processed_at", time.Now()).Error
}
