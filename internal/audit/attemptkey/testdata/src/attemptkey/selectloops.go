package attemptkey

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// batchPoster posts each input it takes, and a flush on every tick.
type batchPoster struct {
	hc    *http.Client
	url   string
	queue jobQueue
}

func (b *batchPoster) post(ctx context.Context, body []byte, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// run takes inputs and ticks in one select: each input is an operation of
// its own with its own key, while each tick is a flush a ticker starts.
func (b *batchPoster) run(ctx context.Context, in <-chan []byte) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case body := <-in:
			_ = b.post(ctx, body, uuid.NewString())
		case <-t.C:
			_ = b.post(ctx, nil, uuid.NewString()) // want `inside the ticker case at selectloops.go:\d+ reaches post`
		}
	}
}

// resendUntilQueued enqueues the job again after each failure, under a new
// ID every time: the loop leaves once a turn gets through.
func (b *batchPoster) resendUntilQueued(ctx context.Context, payload []byte) {
	for {
		err := b.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload}) // want `inside the retry loop at selectloops.go:\d+ reaches the ID of a Job sent by Enqueue`
		if err != nil {
			<-time.After(time.Second)
			continue
		}
		return
	}
}

// resendForever enqueues the same payload after every wait, each time
// under a new ID, whether the last got through or not: it never leaves,
// so each turn is a new job, sent on a schedule, not a retry of the last.
func (b *batchPoster) resendForever(ctx context.Context, payload []byte) {
	for {
		_ = b.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "sync", Payload: payload})
		<-time.After(time.Minute)
	}
}

// sweepEvery enqueues a new job for each payload found due, then waits:
// each turn sends something new.
func (b *batchPoster) sweepEvery(ctx context.Context, due func() [][]byte) {
	for ctx.Err() == nil {
		for _, p := range due() {
			_ = b.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "reminder", Payload: p})
		}
		time.Sleep(time.Minute)
	}
}

// heartbeat enqueues a beat stamped with the time after every wait.
func (b *batchPoster) heartbeat(ctx context.Context, node string) {
	for {
		_ = b.queue.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "beat:" + node, Payload: []byte(time.Now().String())})
		select {
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
		}
	}
}
