package attemptkey

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// A loop with no condition whose turn takes a new item is a loop over
// items, each a new operation that may get its own ID; a retry loop
// nested in one, or one that waits on a channel it ignores, still retries.

type jobSender interface {
	Send(ctx context.Context, j Job) error
}

// Record is what a stream reader hands over, one after another.
type Record struct {
	Offset int64
	Value  []byte
}

type recordReader interface {
	FetchRecord(ctx context.Context) (Record, error)
	Commit(ctx context.Context, r Record) error
}

type listCmd struct{}

func (listCmd) Result() ([]string, error) { return nil, nil }

type listClient interface {
	BRPop(ctx context.Context, timeout time.Duration, keys ...string) listCmd
}

// ParcelEvent is a delivered event with an ID of its own.
type ParcelEvent struct {
	EventID string
	Parcel  string
}

type parcelSub interface {
	NextEvent(ctx context.Context) (ParcelEvent, error)
}

// produceJobs enqueues a job for each payload it is handed.
func produceJobs(ctx context.Context, q jobSender, in <-chan []byte) {
	for {
		p, ok := <-in
		if !ok {
			return
		}
		_ = q.Send(ctx, Job{ID: uuid.New().String(), Kind: "import", Payload: p})
	}
}

// serveJobs takes payloads in a select until the context ends, and backs
// off after a failed send: the next turn takes the next payload.
func serveJobs(ctx context.Context, q jobSender, in <-chan []byte) {
	for {
		select {
		case <-ctx.Done():
			return
		case p, ok := <-in:
			if !ok {
				return
			}
			if err := q.Send(ctx, Job{ID: uuid.NewString(), Payload: p}); err != nil {
				time.Sleep(time.Second)
			}
		}
	}
}

// forwardRecords reads one record after another, pausing after a failed
// read.
func forwardRecords(ctx context.Context, r recordReader, q jobSender) {
	for {
		rec, err := r.FetchRecord(ctx)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if err := q.Send(ctx, Job{ID: uuid.NewString(), Payload: rec.Value}); err == nil {
			_ = r.Commit(ctx, rec)
		}
	}
}

// popJobs pops a Redis list until it is empty.
func popJobs(ctx context.Context, rdb listClient, q jobSender) {
	for {
		res, err := rdb.BRPop(ctx, 5*time.Second, "imports").Result()
		if err != nil {
			return
		}
		_ = q.Send(ctx, Job{ID: uuid.NewString(), Payload: []byte(res[1])})
	}
}

// scanJobs walks a cursor, throttled between rows.
func scanJobs(ctx context.Context, rows *sql.Rows, q jobSender) error {
	for rows.Next() {
		var kind string
		if err := rows.Scan(&kind); err != nil {
			return err
		}
		if err := q.Send(ctx, Job{ID: uuid.NewString(), Kind: kind}); err == nil {
			continue
		}
		time.Sleep(100 * time.Millisecond)
	}
	return rows.Err()
}

// drainJobs asks the cursor for each row inside the loop.
func drainJobs(ctx context.Context, rows *sql.Rows, q jobSender) error {
	for {
		if !rows.Next() {
			return rows.Err()
		}
		var kind string
		if err := rows.Scan(&kind); err != nil {
			return err
		}
		if err := q.Send(ctx, Job{ID: uuid.NewString(), Kind: kind}); err != nil {
			return err
		}
	}
}

// retryEachJob names each payload's job once, before its retries.
func retryEachJob(ctx context.Context, q jobSender, in <-chan []byte) {
	for {
		p, ok := <-in
		if !ok {
			return
		}
		job := Job{ID: uuid.NewString(), Payload: p}
		for attempt := 0; attempt < 3; attempt++ {
			if err := q.Send(ctx, job); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
	}
}

// retryEachJobRenamed names the job again in each retry.
func retryEachJobRenamed(ctx context.Context, q jobSender, in <-chan []byte) {
	for {
		p, ok := <-in
		if !ok {
			return
		}
		for attempt := 0; attempt < 3; attempt++ {
			if err := q.Send(ctx, Job{ID: uuid.NewString(), Payload: p}); err == nil { // want `inside the retry loop at workers.go:\d+ reaches the ID of a Job sent by Send`
				break
			}
			time.Sleep(time.Second)
		}
	}
}

// chargeUntilAccepted waits on time.After between attempts: a receive
// whose value is dropped is a wait, not an item.
func chargeUntilAccepted(ctx context.Context, hc *http.Client, req *http.Request) error {
	for {
		req.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the retry loop at workers.go:\d+ reaches the Idempotency-Key header`
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			break
		}
		<-time.After(time.Second)
	}
	return nil
}

// sendUntilAcked resends a job until its acknowledgement comes: the value
// received answers the send, it is no new item.
func sendUntilAcked(ctx context.Context, q jobSender, acks <-chan string, payload []byte) {
	for {
		_ = q.Send(ctx, Job{ID: uuid.NewString(), Payload: payload}) // want `inside the retry loop at workers.go:\d+ reaches the ID of a Job sent by Send`
		wait, cancel := context.WithTimeout(ctx, 5*time.Second)
		select {
		case id := <-acks:
			if id != "" {
				cancel()
				return
			}
		case <-wait.Done():
		}
		cancel()
	}
}

// chargeParcels charges for each parcel event received under a key made
// for the delivery: a redelivered event is charged again.
func chargeParcels(ctx context.Context, sub parcelSub, sc *stripe.Client) {
	for {
		ev, err := sub.NextEvent(ctx)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		params := &stripe.PaymentIntentCreateParams{Customer: stripe.String(ev.Parcel)}
		params.SetIdempotencyKey(uuid.NewString()) // want `inside the loop over received messages at workers.go:\d+ reaches SetIdempotencyKey: a redelivered message gets a new key`
		_, _ = sc.V1PaymentIntents.Create(ctx, params)
	}
}

// chargeParcelsKeyed keys each charge by the event's own ID.
func chargeParcelsKeyed(ctx context.Context, sub parcelSub, sc *stripe.Client) {
	for {
		ev, err := sub.NextEvent(ctx)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		params := &stripe.PaymentIntentCreateParams{Customer: stripe.String(ev.Parcel)}
		params.SetIdempotencyKey("parcel:" + ev.EventID)
		_, _ = sc.V1PaymentIntents.Create(ctx, params)
	}
}

// consumeEach hands each payload it receives to handle.
func consumeEach(in <-chan []byte, handle func([]byte) error) {
	for {
		p, ok := <-in
		if !ok {
			return
		}
		_ = handle(p)
	}
}

// consumeJobs gives consumeEach a function that sends one job per
// payload: consumeEach calls it once for each, retrying none.
func consumeJobs(ctx context.Context, q jobSender, in <-chan []byte) {
	consumeEach(in, func(p []byte) error {
		return q.Send(ctx, Job{ID: uuid.NewString(), Payload: p})
	})
}

type leaseClient interface {
	Next(ctx context.Context, req *LeaseRequest) (*Lease, error)
}

// LeaseRequest asks for the next lease under a key the server drops a
// repeat by.
type LeaseRequest struct {
	IdempotencyKey string
	Worker         string
}

// Lease is what the server hands out.
type Lease struct{ ID string }

// nextLease asks for the next lease until the server answers: the loop
// leaves once the call succeeds, so it retries that one call, whatever
// the call is named.
func nextLease(ctx context.Context, c leaseClient, worker string) (*Lease, error) {
	var res *Lease
	var err error
	for {
		req := &LeaseRequest{IdempotencyKey: uuid.NewString(), Worker: worker} // want `inside the retry loop at workers.go:\d+ reaches IdempotencyKey`
		res, err = c.Next(ctx, req)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		<-time.After(time.Second)
	}
	return res, nil
}

type taskSource interface {
	Dequeue(ctx context.Context) (string, error)
	XReadGroup(ctx context.Context, group, stream string) ([]string, error)
	ReceiveMessages(ctx context.Context, max int) ([]string, error)
}

type redigoConn interface {
	Do(cmd string, args ...any) (any, error)
}

// dequeueJobs takes one task after another while the worker runs.
func dequeueJobs(ctx context.Context, src taskSource, q jobSender, running *bool) {
	for *running {
		task, err := src.Dequeue(ctx)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		_ = q.Send(ctx, Job{ID: uuid.NewString(), Kind: task})
	}
}

// readStream reads a stream's entries for a consumer group.
func readStream(ctx context.Context, src taskSource, q jobSender) {
	for {
		entries, err := src.XReadGroup(ctx, "importers", "uploads")
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for _, e := range entries {
			_ = q.Send(ctx, Job{ID: uuid.NewString(), Kind: e})
		}
	}
}

// pollQueue long-polls a queue, a batch at a time.
func pollQueue(ctx context.Context, src taskSource, q jobSender) {
	for {
		batch, err := src.ReceiveMessages(ctx, 10)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if len(batch) > 0 {
			_ = q.Send(ctx, Job{ID: uuid.NewString(), Kind: batch[0]})
		}
	}
}

// popRedigo pops a list by its command's name.
func popRedigo(ctx context.Context, conn redigoConn, q jobSender) {
	for {
		reply, err := conn.Do("BRPOP", "uploads", 5)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if v, ok := reply.([]byte); ok {
			_ = q.Send(ctx, Job{ID: uuid.NewString(), Payload: v})
		}
	}
}

// pingUntilUp retries one call whose answer it drops: no item is taken.
func pingUntilUp(ctx context.Context, conn redigoConn, q jobSender) {
	for {
		_ = q.Send(ctx, Job{ID: uuid.NewString(), Kind: "ping"}) // want `inside the retry loop at workers.go:\d+ reaches the ID of a Job sent by Send`
		if _, err := conn.Do("PING"); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}
