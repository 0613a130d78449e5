package brokers

import (
	"context"
	"fmt"
	"strconv"

	"github.com/riverqueue/river"
	"go.temporal.io/sdk/activity"
)

// CaptureArgs is the river job that captures an authorised payment.
type CaptureArgs struct {
	OrderID string `json:"order_id"`
	Amount  int64  `json:"amount"`
}

// Kind names the job for river.
func (CaptureArgs) Kind() string { return "capture_payment" }

// CaptureWorker captures payments; river runs it again, up to its
// max attempts, whenever it returns an error.
type CaptureWorker struct {
	river.WorkerDefaults[CaptureArgs]
	Payments *Payments
}

// Work puts the attempt's number into the key, so each retry of the job
// is a new capture to the payments API.
//
// corpus: bug attemptkey
// modelled on: riverqueue/river docs/README.md (a worker's Work method, given a *river.Job with its ID, Attempt and Args)
func (w *CaptureWorker) Work(ctx context.Context, job *river.Job[CaptureArgs]) error {
	key := "capture-" + job.Args.OrderID + "-" + strconv.Itoa(job.Attempt)
	return w.Payments.Charge(ctx, key, job.Args.OrderID, job.Args.Amount)
}

// CaptureByJobWorker keys each capture by its job, the same on every
// attempt river makes.
type CaptureByJobWorker struct {
	river.WorkerDefaults[CaptureArgs]
	Payments *Payments
}

// Work captures under the job's ID.
//
// corpus: ok attemptkey
// modelled on: riverqueue/river docs/README.md (a worker's Work method, given a *river.Job with its ID, Attempt and Args)
func (w *CaptureByJobWorker) Work(ctx context.Context, job *river.Job[CaptureArgs]) error {
	key := "capture-" + strconv.FormatInt(job.ID, 10)
	return w.Payments.Charge(ctx, key, job.Args.OrderID, job.Args.Amount)
}

// SettlementActivities are the activities of the settlement workflow.
type SettlementActivities struct {
	Payments *Payments
}

// PayOut pays a merchant's settlement. Temporal runs the activity again
// after a failure, and each attempt's key carries its number.
//
// corpus: bug attemptkey
// modelled on: temporalio/samples-go retryactivity/retry_activity_workflow.go (an activity reading activity.GetInfo(ctx), attempt included)
func (a *SettlementActivities) PayOut(ctx context.Context, merchantID string, amount int64) error {
	info := activity.GetInfo(ctx)
	key := fmt.Sprintf("payout-%s-%s-%d", info.WorkflowExecution.ID, merchantID, info.Attempt)
	return a.Payments.Charge(ctx, key, merchantID, -amount)
}

// PayOutOnce keys the payout by the workflow run and the activity, which
// stay the same across the activity's attempts.
//
// corpus: ok attemptkey
// modelled on: temporalio/samples-go retryactivity/retry_activity_workflow.go (an activity reading activity.GetInfo(ctx), attempt included)
func (a *SettlementActivities) PayOutOnce(ctx context.Context, merchantID string, amount int64) error {
	info := activity.GetInfo(ctx)
	key := fmt.Sprintf("payout-%s-%s-%s", info.WorkflowExecution.ID, info.ActivityID, merchantID)
	return a.Payments.Charge(ctx, key, merchantID, -amount)
}
