package attemptkey

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// A worker pool: a function parameter started once per worker, or called
// once per item, is no retry; the function it is given makes a new job
// for each item it takes, and that job's fresh ID is correct.

type poolBatch struct {
	q jobQueue
}

// processInBatches starts n workers over the items of parent: modelled on
// blnkfinance/blnk transaction_batch_processing.go (ProcessTransactionInBatches).
func (p *poolBatch) processInBatches(ctx context.Context, parent string, n int, work func(context.Context, <-chan string, *sync.WaitGroup)) {
	items := make(chan string)
	var wg sync.WaitGroup
	for w := 1; w <= n; w++ {
		wg.Add(1)
		go work(ctx, items, &wg)
	}
	go func() {
		defer close(items)
		for i := range 3 {
			items <- parent + "-" + string(rune('a'+i))
		}
	}()
	wg.Wait()
}

// refundWorker takes items until the channel closes and enqueues a refund
// job for each: one job per item, each with an ID of its own.
func (p *poolBatch) refundWorker(ctx context.Context, items <-chan string, wg *sync.WaitGroup) {
	defer wg.Done()
	for item := range items {
		job := Job{ID: uuid.NewString(), Kind: "refund", Payload: []byte(item)}
		_ = p.q.Enqueue(ctx, job)
	}
}

func (p *poolBatch) RefundAll(ctx context.Context, parent string) {
	p.processInBatches(ctx, parent, 4, p.refundWorker)
}

// withRetries is a hand-written retry helper: its function parameter runs
// again, for the same work, until it works.
func withRetries(ctx context.Context, tries int, f func(context.Context) error) error {
	var err error
	for i := 0; i < tries; i++ {
		if err = f(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i) * time.Second)
	}
	return err
}

func (p *poolBatch) enqueueRetried(ctx context.Context) error {
	return p.q.Enqueue(ctx, Job{ID: uuid.NewString(), Kind: "retried"})
}

func (p *poolBatch) Retried(ctx context.Context) error {
	return withRetries(ctx, 3, p.enqueueRetried) // want `made by enqueueRetried .* inside the call of withRetries`
}
