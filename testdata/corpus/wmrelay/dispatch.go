package wmrelay

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// PickupJob asks the carrier worker to book a pickup.
type PickupJob struct {
	JobID      string
	ShipmentID string
	Payload    []byte
}

// CarrierNotice tells a carrier's webhook about a shipment.
type CarrierNotice struct {
	ID             string
	IdempotencyKey string
	ShipmentID     string
	Status         string
}

// RelabelCommand asks the label service to print a label again.
type RelabelCommand struct {
	CommandID    string
	ShipmentID   string
	ExecutionKey string
}

// JobQueue takes jobs for the carrier workers.
type JobQueue interface {
	Enqueue(ctx context.Context, job PickupJob) error
}

// Notifier posts notices to carriers.
type Notifier interface {
	Publish(ctx context.Context, carrier string, body []byte) error
}

// CommandBus carries commands to the label service.
type CommandBus interface {
	Send(ctx context.Context, cmd RelabelCommand) error
}

// Dispatcher turns outbox rows into carrier work.
type Dispatcher struct {
	repo   OutboxRepo
	jobs   JobQueue
	notify Notifier
	bus    CommandBus
}

// DispatchPickups enqueues a pickup job for each row under a job ID made
// on this pass: a row whose mark failed is enqueued again as another job.
//
// corpus: bug attemptkey
// modelled on: k1networth/servicedesk-lite docs/services/outbox-relay/README.md (claims pending outbox rows, publishes each, marks it sent)
func (d *Dispatcher) DispatchPickups(ctx context.Context, rows []OutboxEvent) {
	for _, row := range rows {
		job := PickupJob{JobID: uuid.NewString(), ShipmentID: row.Topic, Payload: row.Payload}
		if err := d.jobs.Enqueue(ctx, job); err != nil {
			_ = d.repo.RecordFailure(ctx, row.ID, err.Error())
			continue
		}
		_ = d.repo.MarkDelivered(ctx, row.ID)
	}
}

// DispatchPickupsKeyed enqueues each job under the row's event ID.
//
// corpus: ok attemptkey
// modelled on: k1networth/servicedesk-lite docs/services/outbox-relay/README.md (claims pending outbox rows, publishes each, marks it sent)
func (d *Dispatcher) DispatchPickupsKeyed(ctx context.Context, rows []OutboxEvent) {
	for _, row := range rows {
		if err := d.jobs.Enqueue(ctx, PickupJob{JobID: row.EventID, ShipmentID: row.Topic, Payload: row.Payload}); err != nil {
			_ = d.repo.RecordFailure(ctx, row.ID, err.Error())
			continue
		}
		_ = d.repo.MarkDelivered(ctx, row.ID)
	}
}

// noticeRow posts one row's notice as JSON under an ID made on this call.
//
// corpus: bug attemptkey
// modelled on: tomtom215/cartographus internal/eventprocessor/forwarder.go (forward delivers one outbox message and marks it delivered or failed)
func (d *Dispatcher) noticeRow(ctx context.Context, row *OutboxEvent) error {
	n := CarrierNotice{ShipmentID: row.Topic, Status: "ready"}
	n.ID = ulid.Make().String()
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if err := d.notify.Publish(ctx, "carrier-hooks", body); err != nil {
		return d.repo.RecordFailure(ctx, row.ID, err.Error())
	}
	return d.repo.MarkDelivered(ctx, row.ID)
}

// noticeRowKeyed gives the notice a new ID but the row's event ID as its
// idempotency key, which the carriers go by.
//
// corpus: ok attemptkey
// modelled on: tomtom215/cartographus internal/eventprocessor/forwarder.go (forward delivers one outbox message and marks it delivered or failed)
func (d *Dispatcher) noticeRowKeyed(ctx context.Context, row *OutboxEvent) error {
	body, err := json.Marshal(CarrierNotice{ID: uuid.NewString(), IdempotencyKey: row.EventID, ShipmentID: row.Topic, Status: "ready"})
	if err != nil {
		return err
	}
	if err := d.notify.Publish(ctx, "carrier-hooks", body); err != nil {
		return d.repo.RecordFailure(ctx, row.ID, err.Error())
	}
	return d.repo.MarkDelivered(ctx, row.ID)
}

// Relabel sends the command with a new ID on every attempt; the label
// service prints once per command ID.
//
// corpus: bug attemptkey
// modelled on: avast/retry-go README.md (a call repeated with a delay until it works)
func (d *Dispatcher) Relabel(ctx context.Context, shipmentID string) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = d.bus.Send(ctx, RelabelCommand{CommandID: uuid.NewString(), ShipmentID: shipmentID}); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}

// RelabelOnce sends a new command ID per attempt, but the label service
// runs a command once per execution key, the same on every attempt.
//
// corpus: ok attemptkey
// modelled on: avast/retry-go README.md (a call repeated with a delay until it works)
func (d *Dispatcher) RelabelOnce(ctx context.Context, shipmentID string) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = d.bus.Send(ctx, RelabelCommand{CommandID: uuid.NewString(), ShipmentID: shipmentID, ExecutionKey: "relabel:" + shipmentID}); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}
