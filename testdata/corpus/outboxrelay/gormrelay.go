package outboxrelay

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"gorm.io/gorm"
)

// Outbox is the gorm model of a row of the notifications outbox.
type Outbox struct {
	ID          string `gorm:"primaryKey"`
	Name        string
	Subject     string
	Data        []byte
	Status      string
	Processed   bool
	PublishedAt *time.Time
}

// The statuses an outbox message moves through.
const (
	OutboxStatusPending   = "PENDING"
	OutboxStatusPublished = "PUBLISHED"
	OutboxStatusFailed    = "FAILED"
)

// StatusStore updates an outbox message's status.
type StatusStore interface {
	UpdateStatus(ctx context.Context, id string, status string) error
}

// GormRelay publishes the notifications outbox to JetStream.
type GormRelay struct {
	db     *gorm.DB
	sqlDB  *sql.DB
	js     jetstream.JetStream
	status StatusStore
}

// send publishes one message under the Nats-Msg-Id it is given.
func (r *GormRelay) send(ctx context.Context, m Outbox, msgID string) error {
	_, err := r.js.Publish(ctx, m.Subject, m.Data, jetstream.WithMsgID(msgID))
	return err
}

// PublishBatch publishes each unpublished message under a Nats-Msg-Id
// made for this pass, then stamps its published_at with gorm.
//
// corpus: bug attemptkey
// modelled on: Chengxufeng1994/event-driven-arch-in-go internal/outboxstore/gorm/outbox_store.go (FindUnpublished, then MarkPublished with Update("published_at", time.Now()))
func (r *GormRelay) PublishBatch(ctx context.Context, msgs []Outbox) {
	for _, m := range msgs {
		if err := r.send(ctx, m, uuid.NewString()); err != nil {
			continue
		}
		r.db.WithContext(ctx).Model(&m).Update("published_at", time.Now())
	}
}

// PublishBatchKeyed publishes each unpublished message under its own id.
//
// corpus: ok attemptkey
// modelled on: Chengxufeng1994/event-driven-arch-in-go internal/outboxstore/gorm/outbox_store.go (FindUnpublished, then MarkPublished with Update("published_at", time.Now()))
func (r *GormRelay) PublishBatchKeyed(ctx context.Context, msgs []Outbox) {
	for _, m := range msgs {
		if err := r.send(ctx, m, m.ID); err != nil {
			continue
		}
		r.db.WithContext(ctx).Model(&m).Update("published_at", time.Now())
	}
}

// PublishOne publishes one message under a new id, then moves it to
// PUBLISHED and saves it.
//
// corpus: bug attemptkey
// modelled on: bhtoan2204/ecommerce-backend app/payment/app/infrastructure/persistent/postgresql/persistent_object/outbox.po.go (an Outbox row with Processed and ProcessedAt, saved once handled)
func (r *GormRelay) PublishOne(ctx context.Context, m *Outbox) error {
	if err := r.send(ctx, *m, uuid.NewString()); err != nil {
		return err
	}
	now := time.Now()
	m.Status = OutboxStatusPublished
	m.PublishedAt = &now
	return r.db.WithContext(ctx).Save(m).Error
}

// RenameOne publishes a rename notice under a new id and saves the
// message's new subject: nothing marks it sent.
//
// corpus: ok attemptkey
// modelled on: bhtoan2204/ecommerce-backend app/payment/app/infrastructure/persistent/postgresql/persistent_object/outbox.po.go (an Outbox row saved with gorm)
func (r *GormRelay) RenameOne(ctx context.Context, m *Outbox, subject string) error {
	if err := r.send(ctx, *m, uuid.NewString()); err != nil {
		return err
	}
	m.Subject = subject
	return r.db.WithContext(ctx).Save(m).Error
}

// DispatchOne publishes one message under a new id, then sets its status
// with a parameterised UPDATE.
//
// corpus: bug attemptkey
// modelled on: floroz/gavel pkg/events/outbox.go (OutboxStatusPublished set once the event is out)
func (r *GormRelay) DispatchOne(ctx context.Context, m Outbox) error {
	if err := r.send(ctx, m, uuid.NewString()); err != nil {
		return err
	}
	_, err := r.sqlDB.ExecContext(ctx, `UPDATE outbox_messages SET status = $2 WHERE id = $1`, m.ID, OutboxStatusPublished)
	return err
}

// ReleaseOne publishes one message under a new id, then moves it back
// to pending for another pass: no sent mark.
//
// corpus: ok attemptkey
// modelled on: floroz/gavel pkg/events/outbox.go (a failed event's status set back for a retry)
func (r *GormRelay) ReleaseOne(ctx context.Context, m Outbox) error {
	if err := r.send(ctx, m, uuid.NewString()); err != nil {
		return err
	}
	_, err := r.sqlDB.ExecContext(ctx, `UPDATE outbox_messages SET status = $2 WHERE id = $1`, m.ID, OutboxStatusPending)
	return err
}

// ForwardOne publishes one message under a new id and marks it sent
// through the status store.
//
// corpus: bug attemptkey
// modelled on: sonuudigital/microservices order-service/internal/db/migrations/000002_create_outbox_event_table.up.sql (an outbox status UNPUBLISHED, PUBLISHED, CANCELLED)
func (r *GormRelay) ForwardOne(ctx context.Context, m Outbox) error {
	if err := r.send(ctx, m, uuid.NewString()); err != nil {
		return err
	}
	return r.status.UpdateStatus(ctx, m.ID, OutboxStatusPublished)
}

// FailOne publishes an alert under a new id and marks the message
// failed: no sent mark.
//
// corpus: ok attemptkey
// modelled on: sonuudigital/microservices order-service/internal/db/migrations/000002_create_outbox_event_table.up.sql (an outbox status column)
func (r *GormRelay) FailOne(ctx context.Context, m Outbox) error {
	if err := r.send(ctx, m, uuid.NewString()); err != nil {
		return err
	}
	return r.status.UpdateStatus(ctx, m.ID, OutboxStatusFailed)
}

// SendPending publishes each message under a new id and moves it to
// SENT with plain SQL.
//
// corpus: bug attemptkey
// modelled on: sonuudigital/microservices order-service/internal/db/migrations/000002_create_outbox_event_table.up.sql (an outbox status column moved on publish)
func (r *GormRelay) SendPending(ctx context.Context, msgs []Outbox) {
	for _, m := range msgs {
		if err := r.send(ctx, m, uuid.NewString()); err != nil {
			continue
		}
		_, _ = r.sqlDB.ExecContext(ctx, `UPDATE outbox_messages SET status = 'SENT' WHERE id = $1`, m.ID)
	}
}
