package attemptkey

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// Job is what a worker queue runs: named for no message, but sent with
// an ID of its own.
type Job struct {
	ID      string
	Kind    string
	Payload []byte
}

// Notification is sent as JSON, with an ID the receiver keeps.
type Notification struct {
	NotificationID string
	OrderID        int64
	TraceID        string
	Text           string
}

// Command goes over a command bus.
type Command struct {
	CommandID string
	Name      string
}

// AuditEntry is stored, never sent.
type AuditEntry struct {
	ID     string
	RowID  int64
	Action string
}

type jobQueue interface {
	Enqueue(ctx context.Context, j Job) error
}

type notifier interface {
	Publish(ctx context.Context, topic string, body []byte, attrs map[string]string) error
}

type commandBus interface {
	Send(ctx context.Context, cmd *Command) error
}

type auditLog interface {
	Append(ctx context.Context, e AuditEntry) error
}

type jobRow struct {
	ID      int64
	JobID   string
	Kind    string
	OrderID int64
	Payload []byte
}

type jobOutbox interface {
	MarkDispatched(ctx context.Context, id int64) error
}

type jobRelay struct {
	queue  jobQueue
	notify notifier
	bus    commandBus
	audit  auditLog
	marks  jobOutbox
}

// dispatchJobs enqueues a job for each row under an ID made on this pass.
func (r *jobRelay) dispatchJobs(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		job := Job{ID: uuid.NewString(), Kind: row.Kind, Payload: row.Payload} // want `inside the relay loop over row at sentrecords.go:\d+ reaches the ID of a Job sent by Enqueue`
		if err := r.queue.Enqueue(ctx, job); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// dispatchJobsKeyed enqueues each job under the row's job ID.
func (r *jobRelay) dispatchJobsKeyed(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		if err := r.queue.Enqueue(ctx, Job{ID: row.JobID, Kind: row.Kind, Payload: row.Payload}); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// notifyRow sends a notification as JSON, its ID made on each pass.
func (r *jobRelay) notifyRow(ctx context.Context, row *jobRow) error {
	n := Notification{OrderID: row.OrderID, Text: "shipped"}
	n.NotificationID = ulid.Make().String() // want `inside the relay notifyRow of row at sentrecords.go:\d+ reaches the NotificationID of a Notification sent by Publish`
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if err := r.notify.Publish(ctx, "notifications", body, nil); err != nil {
		return err
	}
	return r.marks.MarkDispatched(ctx, row.ID)
}

// notifyRowTraced keeps the row's ID; a trace ID is new on every send.
func (r *jobRelay) notifyRowTraced(ctx context.Context, row *jobRow) error {
	body, err := json.Marshal(Notification{NotificationID: row.JobID, OrderID: row.OrderID, TraceID: uuid.NewString()})
	if err != nil {
		return err
	}
	if err := r.notify.Publish(ctx, "notifications", body, nil); err != nil {
		return err
	}
	return r.marks.MarkDispatched(ctx, row.ID)
}

// auditRow records each pass in an audit log: a new entry per pass is
// what an audit log keeps, and nothing is sent.
func (r *jobRelay) auditRow(ctx context.Context, row jobRow) error {
	if err := r.queue.Enqueue(ctx, Job{ID: row.JobID, Kind: row.Kind}); err != nil {
		return err
	}
	if err := r.audit.Append(ctx, AuditEntry{ID: uuid.NewString(), RowID: row.ID, Action: "dispatched"}); err != nil {
		return err
	}
	return r.marks.MarkDispatched(ctx, row.ID)
}

// sendCommandRetried makes a new command ID on every attempt.
func (r *jobRelay) sendCommandRetried(ctx context.Context, name string) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		cmd := &Command{CommandID: uuid.NewString(), Name: name} // want `inside the retry loop at sentrecords.go:\d+ reaches the CommandID of a Command sent by Send`
		if err = r.bus.Send(ctx, cmd); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// sendCommandOnce names the command before its retries.
func (r *jobRelay) sendCommandOnce(ctx context.Context, name string) error {
	cmd := &Command{CommandID: uuid.NewString(), Name: name}
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = r.bus.Send(ctx, cmd); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// enqueueJobs makes one job for each kind: a loop over items.
func (r *jobRelay) enqueueJobs(ctx context.Context, kinds []string) {
	for _, k := range kinds {
		_ = r.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: k})
	}
}

// newJob builds a job under a new ID.
func newJob(kind string, payload []byte) Job {
	return Job{ID: uuid.NewString(), Kind: kind, Payload: payload}
}

// sendJob builds a job and enqueues it.
func (r *jobRelay) sendJob(ctx context.Context, kind string, payload []byte) error {
	return r.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: kind, Payload: payload})
}

// dispatchThroughHelper relays each row through sendJob.
func (r *jobRelay) dispatchThroughHelper(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		if err := r.sendJob(ctx, row.Kind, row.Payload); err != nil { // want `made by sendJob \(uuid.NewString at sentrecords.go:\d+, reaching the ID of a Job sent by Enqueue at sentrecords.go:\d+\) inside the relay loop over row`
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// jobsForReport builds jobs in a relay pass without sending them.
func (r *jobRelay) jobsForReport(ctx context.Context, rows []jobRow) []Job {
	var out []Job
	for _, row := range rows {
		out = append(out, newJob(row.Kind, nil))
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
	return out
}

// LifecycleJob carries an idempotency key besides its own ID.
type LifecycleJob struct {
	ID             string
	IdempotencyKey string
	Kind           string
}

type lifecycleQueue interface {
	EnqueueLifecycleJob(ctx context.Context, j LifecycleJob) error
}

// dispatchLifecycle gives each job a new ID but the row's key: the queue
// drops a repeat by the key.
func (r *jobRelay) dispatchLifecycle(ctx context.Context, q lifecycleQueue, rows []jobRow) {
	for _, row := range rows {
		if err := q.EnqueueLifecycleJob(ctx, LifecycleJob{ID: uuid.NewString(), IdempotencyKey: "reclaim:" + row.JobID, Kind: row.Kind}); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// dispatchLifecycleFresh makes the key itself on each pass.
func (r *jobRelay) dispatchLifecycleFresh(ctx context.Context, q lifecycleQueue, rows []jobRow) {
	for _, row := range rows {
		job := LifecycleJob{ID: row.JobID, Kind: row.Kind}
		job.IdempotencyKey = uuid.NewString() // want `inside the relay loop over row at sentrecords.go:\d+ reaches IdempotencyKey`
		if err := q.EnqueueLifecycleJob(ctx, job); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// Delivery is a webhook delivery a relay hands to its sender, keyed by
// the event it delivers.
type Delivery struct {
	ID      string
	EventID string
	URL     string
}

type deliverer interface {
	Deliver(ctx context.Context, d Delivery) error
}

// deliverRows names each delivery anew but sends the row's event ID,
// which the receiver deduplicates by.
func (r *jobRelay) deliverRows(ctx context.Context, out deliverer, rows []jobRow) {
	for _, row := range rows {
		d := Delivery{ID: uuid.NewString(), EventID: row.JobID, URL: "https://hooks.example.com"}
		if err := out.Deliver(ctx, d); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// deliverRowsFresh makes the event ID on each pass.
func (r *jobRelay) deliverRowsFresh(ctx context.Context, out deliverer, rows []jobRow) {
	for _, row := range rows {
		if err := out.Deliver(ctx, Delivery{ID: row.JobID, EventID: uuid.NewString()}); err != nil { // want `inside the relay loop over row at sentrecords.go:\d+ reaches the EventID of a Delivery`
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// ExecCommand is run once per execution key, whatever its ID.
type ExecCommand struct {
	ID           string
	ExecutionKey string
	PartitionKey string
}

type execBus interface {
	Dispatch(ctx context.Context, c ExecCommand) error
}

// dispatchExecRetried makes a new ID per attempt, but the executor runs a
// command once per execution key.
func dispatchExecRetried(ctx context.Context, bus execBus, key string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = bus.Dispatch(ctx, ExecCommand{ID: uuid.NewString(), ExecutionKey: key}); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// dispatchPartitionedRetried makes a new ID per attempt; a partition key
// orders commands and tells no repeat from a new one.
func dispatchPartitionedRetried(ctx context.Context, bus execBus, key string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = bus.Dispatch(ctx, ExecCommand{ID: uuid.NewString(), PartitionKey: key}); err == nil { // want `inside the retry loop at sentrecords.go:\d+ reaches the ID of a ExecCommand sent by Dispatch`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
