package redisstore

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// maxInFlight is how many round trips a Store's batcher has out at once before the commands that
// come next wait, to go together when one returns. Up to it a command leaves at once, alone, as it
// would without a batcher, so that a handful of concurrent requests wait for nothing; past it the
// server is busy anyway, and a batch costs it one read and one write for all its commands.
const maxInFlight = 4

// batcher sends a Store's commands over a *redis.Client so that, under load, Redis reads and
// answers many of them at once: every command costs Redis a read from its socket and a write to
// it, which are most of what a SET costs it, and a pipeline of n commands costs one of each.
//
// Up to maxInFlight round trips go out at once, each a caller's own command as go-redis sends
// it. A command that comes while all of them are out is queued. When a round trip returns, the
// commands queued meanwhile leave together, in one pipeline, sent by the first of their callers
// (the batch's leader), who then hands the round trip on to the next queue; nobody sends more
// than their own batch. A caller whose context ends while it is still queued leaves the queue,
// and its command is never sent. A batch goes out under its leader's context without its
// cancellation, so that a caller who gives up cannot fail the commands of the others; go-redis's
// own timeouts bound it.
type batcher struct {
	mu       sync.Mutex
	inFlight int
	queue    []*waiter
	batches  atomic.Int64 // pipelines sent, for the tests
}

// waiter is a queued command, with the command sent before it in the same round trip (pre, or
// nil). done receives when its batch has been sent, or when the caller is to lead lead.
type waiter struct {
	pre, cmd redis.Cmder
	lead     []*waiter
	done     chan struct{}
}

var waiters = sync.Pool{New: func() any { return &waiter{done: make(chan struct{}, 1)} }}

// do sends pre (when not nil) and cmd, a command on a key in pre's hash slot, in one round trip;
// their results are theirs.
func (b *batcher) do(ctx context.Context, s *Store, pre, cmd redis.Cmder) {
	b.mu.Lock()
	if b.inFlight < maxInFlight {
		b.inFlight++
		b.mu.Unlock()
		s.send(ctx, pre, cmd)
		b.next()
		return
	}
	w := waiters.Get().(*waiter)
	w.pre, w.cmd = pre, cmd
	b.queue = append(b.queue, w)
	b.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		b.mu.Lock()
		if i := slices.Index(b.queue, w); i >= 0 {
			b.queue = slices.Delete(b.queue, i, i+1)
			b.mu.Unlock()
			if pre != nil {
				pre.SetErr(ctx.Err())
			}
			cmd.SetErr(ctx.Err())
			w.pre, w.cmd = nil, nil
			waiters.Put(w)
			return
		}
		b.mu.Unlock()
		<-w.done // it is in a batch already, which goes out whatever this caller does
	}
	if lead := w.lead; lead != nil {
		s.sendBatch(context.WithoutCancel(ctx), lead)
		b.batches.Add(1)
		for _, o := range lead {
			if o != w {
				o.done <- struct{}{}
			}
		}
		b.next()
	}
	w.pre, w.cmd, w.lead = nil, nil, nil
	waiters.Put(w)
}

// next is called as a round trip returns: it hands the round trip on to the first of the queued
// callers, to send them all, or gives it up when none wait.
func (b *batcher) next() {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.inFlight--
		b.mu.Unlock()
		return
	}
	q := b.queue
	b.queue = nil
	q[0].lead = q
	b.mu.Unlock()
	q[0].done <- struct{}{}
}

// sendBatch sends the commands of batch, in order, in one pipeline.
func (s *Store) sendBatch(ctx context.Context, batch []*waiter) {
	pipe := s.pipelines.Get().(redis.Pipeliner)
	for _, w := range batch {
		if w.pre != nil {
			_ = pipe.Process(ctx, w.pre)
		}
		_ = pipe.Process(ctx, w.cmd)
	}
	_, _ = pipe.Exec(ctx)
	s.pipelines.Put(pipe)
}
