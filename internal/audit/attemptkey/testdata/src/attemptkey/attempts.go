package attemptkey

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/riverqueue/river"
	"go.temporal.io/sdk/activity"
)

// The number of the attempt a queue or an engine hands its code counts
// up with each retry: a key built from it is new on each.
type chargeArgs struct {
	OrderID string
	Amount  int64
}

func (chargeArgs) Kind() string { return "charge" }

type chargeWorker struct {
	river.WorkerDefaults[chargeArgs]
	c *charges
}

func (w *chargeWorker) Work(ctx context.Context, job *river.Job[chargeArgs]) error { // want Work:"parameter 1 reaches charge"
	key := fmt.Sprintf("charge-%d-%d", job.ID, job.Attempt)
	return w.c.charge(ctx, key, job.Args.Amount) // want `made by job.Attempt, the number of the attempt at attempts.go:\d+ inside the consumer Work`
}

type chargeByJobWorker struct {
	river.WorkerDefaults[chargeArgs]
	c *charges
}

func (w *chargeByJobWorker) Work(ctx context.Context, job *river.Job[chargeArgs]) error { // want Work:"parameter 1 reaches charge"
	return w.c.charge(ctx, fmt.Sprintf("charge-%d", job.ID), job.Args.Amount)
}

type chargeActivities struct{ c *charges }

func (a *chargeActivities) Charge(ctx context.Context, orderID string, amount int64) error { // want Charge:"parameter 0 reaches charge"
	info := activity.GetInfo(ctx)
	return a.c.charge(ctx, fmt.Sprintf("%s-%s-%d", info.WorkflowExecution.ID, orderID, info.Attempt), amount) // want `made by info.Attempt, the number of the attempt`
}

func (a *chargeActivities) ChargeOnce(ctx context.Context, orderID string, amount int64) error { // want ChargeOnce:"parameter 0 reaches charge"
	info := activity.GetInfo(ctx)
	return a.c.charge(ctx, fmt.Sprintf("%s-%s-%s", info.WorkflowExecution.ID, info.ActivityID, orderID), amount)
}

func chargeTask(c *charges) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		n, _ := asynq.GetRetryCount(ctx)
		id, _ := asynq.GetTaskID(ctx)
		return c.charge(ctx, fmt.Sprintf("%s-%d", id, n), 100) // want `made by asynq.GetRetryCount\(ctx\), the number of the attempt`
	}
}

// A count of the package's own is whatever the package makes it.
type attemptRow struct {
	EventID  string
	Attempts int
}

func relayRow(ctx context.Context, c *charges, row attemptRow) error {
	return c.charge(ctx, fmt.Sprintf("%s-%d", row.EventID, row.Attempts), 100)
}
