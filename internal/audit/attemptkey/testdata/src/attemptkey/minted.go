package attemptkey

import (
	"context"
	"encoding/json"
	"time"

	"example.com/jobspec"
	"github.com/google/uuid"
)

// newPaymentJob builds a payment job through newJob: the ID is newJob's.
func newPaymentJob(payload []byte) Job { return newJob("payment", payload) }

// newCommand names a command after building it.
func newCommand(name string) *Command {
	c := &Command{Name: name}
	c.CommandID = uuid.NewString()
	return c
}

// newLifecycleJob gives a job a new ID and no key: its caller keys it.
func newLifecycleJob(kind string) LifecycleJob {
	return LifecycleJob{ID: uuid.NewString(), Kind: kind}
}

// enqueueRetried builds the job inside the retries: each attempt is
// enqueued under another ID.
func (r *jobRelay) enqueueRetried(ctx context.Context, kind string, payload []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		j := newJob(kind, payload) // want `made by newJob \(uuid.NewString at sentrecords.go:\d+\) inside the retry loop at minted.go:\d+ reaches the ID of a Job sent by Enqueue`
		if err = r.queue.Enqueue(ctx, j); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// enqueueBuiltOnce builds the job once, before the retries.
func (r *jobRelay) enqueueBuiltOnce(ctx context.Context, kind string, payload []byte) error {
	j := newJob(kind, payload)
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = r.queue.Enqueue(ctx, j); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// dispatchBuilt relays each row as a job a constructor names anew.
func (r *jobRelay) dispatchBuilt(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		if err := r.queue.Enqueue(ctx, newPaymentJob(row.Payload)); err != nil { // want `made by newPaymentJob \(newJob \(uuid.NewString at sentrecords.go:\d+\)\) inside the relay loop over row at minted.go:\d+ reaches the ID of a Job sent by Enqueue`
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// dispatchBuiltRenamed gives the built job the row's job ID.
func (r *jobRelay) dispatchBuiltRenamed(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		j := newJob(row.Kind, row.Payload)
		j.ID = row.JobID
		if err := r.queue.Enqueue(ctx, j); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// sendCommandBuilt sends a command its constructor names, on every attempt.
func (r *jobRelay) sendCommandBuilt(ctx context.Context, name string) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = r.bus.Send(ctx, newCommand(name)); err == nil { // want `made by newCommand \(uuid.NewString at minted.go:\d+\) inside the retry loop at minted.go:\d+ reaches the CommandID of a Command sent by Send`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// dispatchLifecycleKeyed keys each job by its row: the new ID is no key.
func (r *jobRelay) dispatchLifecycleKeyed(ctx context.Context, q lifecycleQueue, rows []jobRow) {
	for _, row := range rows {
		j := newLifecycleJob(row.Kind)
		j.IdempotencyKey = "reclaim:" + row.JobID
		if err := q.EnqueueLifecycleJob(ctx, j); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// notifyTasks relays each row as another package's work item, marshalled.
func (r *jobRelay) notifyTasks(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		body, err := json.Marshal(jobspec.New(row.Kind, row.Payload)) // want `made by New \(uuid.NewString at jobspec.go:\d+\) inside the relay loop over row at minted.go:\d+ reaches the ItemID of a WorkItem sent by Publish`
		if err != nil {
			continue
		}
		if err := r.notify.Publish(ctx, "tasks", body, nil); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// notifyTasksKeyed relays each row as a work item under the row's job ID.
func (r *jobRelay) notifyTasksKeyed(ctx context.Context, rows []jobRow) {
	for _, row := range rows {
		body, err := json.Marshal(jobspec.For(row.JobID, row.Kind, row.Payload))
		if err != nil {
			continue
		}
		if err := r.notify.Publish(ctx, "tasks", body, nil); err != nil {
			continue
		}
		_ = r.marks.MarkDispatched(ctx, row.ID)
	}
}

// enqueueEach builds one job for each payload: a loop over items.
func (r *jobRelay) enqueueEach(ctx context.Context, payloads [][]byte) {
	for _, p := range payloads {
		_ = r.queue.Enqueue(ctx, newJob("import", p))
	}
}
