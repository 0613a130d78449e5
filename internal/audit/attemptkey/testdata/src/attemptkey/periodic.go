package attemptkey

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/google/uuid"
)

// Heartbeat says a node is alive; each beat is a record of its own.
type Heartbeat struct {
	ID   string
	Node string
	At   time.Time
}

type beatPublisher interface {
	Publish(ctx context.Context, v any) error
}

// heartbeatEvery announces the node every 30 seconds with a timestamp.
func heartbeatEvery(ctx context.Context, pub beatPublisher, node string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
		}
		_ = pub.Publish(ctx, Heartbeat{ID: uuid.NewString(), Node: node, At: time.Now()})
	}
}

// heartbeatBare announces the node every 30 seconds from the node's name
// alone: it sends on success too and leaves only when stopped, so each
// beat is a new record, not a retry of the last.
func heartbeatBare(ctx context.Context, pub beatPublisher, node string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
		}
		_ = pub.Publish(ctx, Heartbeat{ID: uuid.NewString(), Node: node})
	}
}

// announceEvery sleeps between announcements and logs a failed one.
func announceEvery(ctx context.Context, pub beatPublisher, node string, interval time.Duration) {
	for ctx.Err() == nil {
		if err := pub.Publish(ctx, Heartbeat{ID: uuid.NewString(), Node: node}); err != nil {
			log.Printf("announce: %v", err)
		}
		time.Sleep(interval)
	}
}

// heartbeatUntilFailure stops beating at the first failed send: it leaves
// on failure, never on success.
func heartbeatUntilFailure(ctx context.Context, pub beatPublisher, node string) error {
	for {
		if err := pub.Publish(ctx, Heartbeat{ID: uuid.NewString(), Node: node}); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(10 * time.Second):
		}
	}
}

// heartbeatBackingOff beats every 30 seconds, sooner after a failed beat:
// the next beat is sent on success too.
func heartbeatBackingOff(ctx context.Context, pub beatPublisher, node string) {
	for ctx.Err() == nil {
		if err := pub.Publish(ctx, Heartbeat{ID: uuid.NewString(), Node: node}); err != nil {
			time.Sleep(time.Second)
			continue
		}
		time.Sleep(30 * time.Second)
	}
}

// enqueueUntilAccepted enqueues the same job again after each failure,
// under a new ID every time: it leaves once one is accepted.
func enqueueUntilAccepted(ctx context.Context, q jobQueue, payload []byte) {
	for {
		if err := q.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload}); err == nil { // want `inside the retry loop at periodic.go:\d+ reaches the ID of a Job sent by Enqueue`
			break
		}
		time.Sleep(time.Second)
	}
}

// enqueueUntilSent retries until a flag the loop tests says it got
// through.
func enqueueUntilSent(ctx context.Context, q jobQueue, payload []byte) {
	sent := false
	for !sent {
		if err := q.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload}); err == nil { // want `inside the retry loop at periodic.go:\d+ reaches the ID of a Job sent by Enqueue`
			sent = true
		}
		time.Sleep(time.Second)
	}
}

var errPermanent = errors.New("permanent")

// enqueueUntilSettled goes round until the error is not worth retrying,
// success included.
func enqueueUntilSettled(ctx context.Context, q jobQueue, payload []byte) error {
	for {
		err := q.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload}) // want `inside the retry loop at periodic.go:\d+ reaches the ID of a Job sent by Enqueue`
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		<-time.After(time.Second)
	}
}

// enqueueWhileFailing goes round while the last send failed.
func enqueueWhileFailing(ctx context.Context, q jobQueue, payload []byte) error {
	err := errPermanent
	for err != nil {
		err = q.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload}) // want `inside the retry loop at periodic.go:\d+ reaches the ID of a Job sent by Enqueue`
		time.Sleep(time.Second)
	}
	return err
}
