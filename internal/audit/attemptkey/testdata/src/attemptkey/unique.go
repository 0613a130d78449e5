package attemptkey

import (
	"context"
	"encoding/json"
	"time"

	"example.com/asynqtasks"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// A queue that drops a job whose arguments it already holds drops none
// when the arguments carry a value made fresh for each insert.
type welcomeArgs struct {
	UserID      int64
	RequestedAt time.Time
}

func (welcomeArgs) Kind() string { return "welcome" }

func enqueueWelcome(ctx context.Context, rc *river.Client[pgx.Tx], userID int64) error {
	_, err := rc.Insert(ctx, welcomeArgs{UserID: userID, RequestedAt: time.Now()}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}) // want `RequestedAt of the welcomeArgs made by time.Now at unique.go:\d+ reaches the arguments of a job inserted with UniqueOpts ByArgs at unique.go:\d+: no two have the same arguments, so`
	return err
}

func enqueueWelcomeOnce(ctx context.Context, rc *river.Client[pgx.Tx], userID int64) error {
	_, err := rc.Insert(ctx, welcomeArgs{UserID: userID}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}})
	return err
}

// Without uniqueness, each insert is a job of its own by design.
func enqueueWelcomeEach(ctx context.Context, rc *river.Client[pgx.Tx], userID int64) error {
	_, err := rc.Insert(ctx, welcomeArgs{UserID: userID, RequestedAt: time.Now()}, nil)
	return err
}

// Args that ask for uniqueness themselves.
type receiptMailArgs struct {
	OrderID string
	Nonce   string
}

func (receiptMailArgs) Kind() string { return "receipt_mail" }

func (receiptMailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

func enqueueReceiptMail(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, orderID string) error {
	args := receiptMailArgs{OrderID: orderID, Nonce: uuid.NewString()} // want `Nonce of the receiptMailArgs made by uuid.NewString at unique.go:\d+ reaches the arguments of a job inserted with UniqueOpts ByArgs`
	_, err := rc.InsertTx(ctx, tx, args, nil)
	return err
}

// Only the fields tagged river:"unique" make the arguments' identity.
type invoiceMailArgs struct {
	InvoiceID string    `json:"invoice_id" river:"unique"`
	QueuedAt  time.Time `json:"queued_at"`
}

func (invoiceMailArgs) Kind() string { return "invoice_mail" }

func enqueueInvoiceMail(ctx context.Context, rc *river.Client[pgx.Tx], invoiceID string) error {
	_, err := rc.Insert(ctx, invoiceMailArgs{InvoiceID: invoiceID, QueuedAt: time.Now()}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}})
	return err
}

// asynq.Unique drops a task of the same type and payload.
type emailPayload struct {
	UserID int64  `json:"user_id"`
	Nonce  string `json:"nonce"`
}

func enqueueEmail(ctx context.Context, c *asynq.Client, userID int64) error {
	payload, err := json.Marshal(emailPayload{UserID: userID, Nonce: uuid.NewString()}) // want `Nonce of the emailPayload made by uuid.NewString at unique.go:\d+ reaches the payload of a task enqueued with asynq.Unique at unique.go:\d+: no two have the same payload, so asynq.Unique never finds a duplicate`
	if err != nil {
		return err
	}
	_, err = c.EnqueueContext(ctx, asynq.NewTask("email:welcome", payload), asynq.Unique(time.Hour))
	return err
}

func enqueueEmailMap(ctx context.Context, c *asynq.Client, userID int64) error {
	payload, _ := json.Marshal(map[string]any{"user_id": userID, "sent_at": time.Now().UnixNano()}) // want `"sent_at" entry of a map made by time.Now`
	task := asynq.NewTask("email:welcome", payload)
	_, err := c.Enqueue(task, asynq.Unique(time.Hour))
	return err
}

func enqueueEmailOnce(ctx context.Context, c *asynq.Client, userID int64) error {
	payload, err := json.Marshal(emailPayload{UserID: userID})
	if err != nil {
		return err
	}
	_, err = c.EnqueueContext(ctx, asynq.NewTask("email:welcome", payload), asynq.Unique(time.Hour))
	return err
}

// A day's slot names the day: the same for each enqueue in it.
func enqueueDigest(ctx context.Context, c *asynq.Client, userID int64) error {
	payload, _ := json.Marshal(map[string]any{"user_id": userID, "day": time.Now().Format("2006-01-02")})
	_, err := c.EnqueueContext(ctx, asynq.NewTask("email:digest", payload), asynq.Unique(24*time.Hour))
	return err
}

// A task built by a constructor, in the package or another, carries what
// its constructor put in the payload.
func newEmailTask(userID int64) (*asynq.Task, error) {
	payload, err := json.Marshal(emailPayload{UserID: userID, Nonce: uuid.NewString()})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask("email:welcome", payload), nil
}

func enqueueBuiltEmail(ctx context.Context, c *asynq.Client, userID int64) error {
	task, err := newEmailTask(userID)
	if err != nil {
		return err
	}
	_, err = c.EnqueueContext(ctx, task, asynq.Unique(time.Hour)) // want `the task newEmailTask returns carries the Nonce of the emailPayload made by uuid.NewString at unique.go:\d+, and reaches a task enqueued with asynq.Unique`
	return err
}

// Without uniqueness, a fresh payload is a new task by design.
func enqueueBuiltEmailEach(ctx context.Context, c *asynq.Client, userID int64) error {
	task, err := newEmailTask(userID)
	if err != nil {
		return err
	}
	_, err = c.EnqueueContext(ctx, task)
	return err
}

func enqueueReport(c *asynq.Client, accountID string) error {
	task, err := asynqtasks.NewReportTask(accountID)
	if err != nil {
		return err
	}
	_, err = c.Enqueue(task, asynq.Unique(time.Hour)) // want `the task NewReportTask returns carries the RequestedAt of the reportPayload made by time.Now at tasks.go:\d+`
	return err
}

func enqueueReportByAccount(c *asynq.Client, accountID string) error {
	task, err := asynqtasks.NewReportTaskByAccount(accountID)
	if err != nil {
		return err
	}
	_, err = c.Enqueue(task, asynq.Unique(time.Hour))
	return err
}

// A batch insert names each job's uniqueness beside its args.
func enqueueWelcomes(ctx context.Context, rc *river.Client[pgx.Tx], userIDs []int64) error {
	params := make([]river.InsertManyParams, 0, len(userIDs))
	for _, id := range userIDs {
		params = append(params, river.InsertManyParams{
			Args:       welcomeArgs{UserID: id, RequestedAt: time.Now()}, // want `RequestedAt of the welcomeArgs made by time.Now at unique.go:\d+ reaches the arguments of a job inserted with UniqueOpts ByArgs`
			InsertOpts: &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}},
		})
	}
	_, err := rc.InsertMany(ctx, params)
	return err
}

func enqueueWelcomesOnce(ctx context.Context, rc *river.Client[pgx.Tx], userIDs []int64) error {
	params := make([]river.InsertManyParams, 0, len(userIDs))
	for _, id := range userIDs {
		params = append(params, river.InsertManyParams{
			Args:       welcomeArgs{UserID: id},
			InsertOpts: &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}},
		})
	}
	_, err := rc.InsertMany(ctx, params)
	return err
}
