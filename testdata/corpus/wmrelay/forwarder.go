// Package wmrelay forwards the shipping service's outbox with watermill.
// A pass publishes every row not yet marked; a row whose publish failed,
// or whose mark did not land, goes out again on the next pass, so the
// consumers, which drop a copy by the message's UUID or by an ID in its
// metadata, need the same one on every pass.
package wmrelay

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
)

// OutboxEvent is one row of shipment_outbox.
type OutboxEvent struct {
	ID       int64
	EventID  string
	Topic    string
	Payload  []byte
	Metadata map[string]string
	Attempts int
}

// OutboxRepo reads and marks shipment_outbox.
type OutboxRepo interface {
	LockPending(ctx context.Context, tx *sql.Tx, limit int) ([]OutboxEvent, error)
	MarkEventPublished(ctx context.Context, tx *sql.Tx, id int64) error
	MarkDelivered(ctx context.Context, id int64) error
	RecordFailure(ctx context.Context, id int64, reason string) error
}

// Forwarder moves shipment_outbox to the broker.
type Forwarder struct {
	db   *sql.DB
	repo OutboxRepo
	pub  message.Publisher
	log  *slog.Logger
}

// inTx runs fn in one transaction, committing when it returns nil.
func (f *Forwarder) inTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ForwardBatch locks a batch of rows and publishes each under a UUID made
// on this pass; a row whose publish fails stays for the next pass, which
// names it anew.
//
// corpus: bug attemptkey
// modelled on: Black-And-White-Club/frolf-bot app/modules/guild/application/outbox_forwarder.go (forward publishes each locked outbox row and marks it published inside RunInTx)
func (f *Forwarder) ForwardBatch(ctx context.Context) error {
	return f.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		events, err := f.repo.LockPending(ctx, tx, 50)
		if err != nil {
			return err
		}
		for _, evt := range events {
			msg := message.NewMessage(watermill.NewUUID(), evt.Payload)
			msg.SetContext(ctx)
			if err := f.pub.Publish(evt.Topic, msg); err != nil {
				f.log.ErrorContext(ctx, "shipment outbox publish", "id", evt.ID, "err", err)
				continue
			}
			if err := f.repo.MarkEventPublished(ctx, tx, evt.ID); err != nil {
				f.log.ErrorContext(ctx, "shipment outbox mark", "id", evt.ID, "err", err)
			}
		}
		return nil
	})
}

// ForwardBatchKeyed publishes each row under the event ID written with it.
//
// corpus: ok attemptkey
// modelled on: Black-And-White-Club/frolf-bot app/modules/guild/application/outbox_forwarder.go (forward publishes each locked outbox row and marks it published inside RunInTx)
func (f *Forwarder) ForwardBatchKeyed(ctx context.Context) error {
	return f.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		events, err := f.repo.LockPending(ctx, tx, 50)
		if err != nil {
			return err
		}
		for _, evt := range events {
			msg := message.NewMessage(evt.EventID, evt.Payload)
			msg.SetContext(ctx)
			if err := f.pub.Publish(evt.Topic, msg); err != nil {
				continue
			}
			if err := f.repo.MarkEventPublished(ctx, tx, evt.ID); err != nil {
				f.log.ErrorContext(ctx, "shipment outbox mark", "id", evt.ID, "err", err)
			}
		}
		return nil
	})
}

// deliver publishes one row with a short UUID of its own and its stored
// metadata; the row is marked delivered only if the publish went through.
//
// corpus: bug attemptkey
// modelled on: tomtom215/cartographus internal/eventprocessor/forwarder.go (forward builds a watermill message for one outbox message, copies its metadata, marks it delivered or failed)
func (f *Forwarder) deliver(ctx context.Context, evt *OutboxEvent) error {
	msg := message.NewMessage(watermill.NewShortUUID(), evt.Payload)
	for k, v := range evt.Metadata {
		msg.Metadata.Set(k, v)
	}
	if err := f.pub.Publish(evt.Topic, msg); err != nil {
		return f.repo.RecordFailure(ctx, evt.ID, err.Error())
	}
	return f.repo.MarkDelivered(ctx, evt.ID)
}

// deliverKeyed publishes one row under its event ID.
//
// corpus: ok attemptkey
// modelled on: tomtom215/cartographus internal/eventprocessor/forwarder.go (forward builds a watermill message from the outbox message's own ID)
func (f *Forwarder) deliverKeyed(ctx context.Context, evt *OutboxEvent) error {
	msg := message.NewMessage(evt.EventID, evt.Payload)
	for k, v := range evt.Metadata {
		msg.Metadata.Set(k, v)
	}
	if err := f.pub.Publish(evt.Topic, msg); err != nil {
		return f.repo.RecordFailure(ctx, evt.ID, err.Error())
	}
	return f.repo.MarkDelivered(ctx, evt.ID)
}

// deliverTagged names each copy anew but carries the event ID in the
// metadata, which the consumers deduplicate by.
//
// corpus: ok attemptkey
// modelled on: tomtom215/cartographus internal/eventprocessor/forwarder.go (forward copies the outbox message's metadata onto the watermill message)
func (f *Forwarder) deliverTagged(ctx context.Context, evt *OutboxEvent) error {
	msg := message.NewMessage(watermill.NewUUID(), evt.Payload)
	msg.Metadata.Set("event_id", evt.EventID)
	if err := f.pub.Publish(evt.Topic, msg); err != nil {
		return f.repo.RecordFailure(ctx, evt.ID, err.Error())
	}
	return f.repo.MarkDelivered(ctx, evt.ID)
}

// Drain reads the outbox into rows of its own and deletes each once it
// is published, in one transaction with SKIP LOCKED; each row goes out
// under a new UUID, and a crash after the publish but before the commit
// sends it again under another.
//
// corpus: bug attemptkey
// modelled on: Black-And-White-Club/frolf-bot app/modules/guild/application/outbox_forwarder.go (a forwarder publishing outbox rows claimed with FOR UPDATE SKIP LOCKED)
func (f *Forwarder) Drain(ctx context.Context) (int, error) {
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("shipment outbox: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `SELECT id, topic, payload FROM shipment_outbox ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED`)
	if err != nil {
		return 0, fmt.Errorf("shipment outbox: %w", err)
	}
	type queued struct {
		id      int64
		topic   string
		payload []byte
	}
	var batch []queued
	for rows.Next() {
		var q queued
		if err := rows.Scan(&q.id, &q.topic, &q.payload); err != nil {
			rows.Close()
			return 0, fmt.Errorf("shipment outbox: %w", err)
		}
		batch = append(batch, q)
	}
	rows.Close()
	for _, q := range batch {
		if err := f.pub.Publish(q.topic, message.NewMessage(watermill.NewUUID(), q.payload)); err != nil {
			return 0, fmt.Errorf("shipment outbox publish %s: %w", q.topic, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM shipment_outbox WHERE id = $1`, q.id); err != nil {
			return 0, fmt.Errorf("shipment outbox: %w", err)
		}
	}
	return len(batch), tx.Commit()
}

// Run drains the outbox every few seconds until ctx ends.
func (f *Forwarder) Run(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := f.Drain(ctx); err != nil {
				f.log.ErrorContext(ctx, "shipment outbox drain", "err", err)
			}
		}
	}
}
