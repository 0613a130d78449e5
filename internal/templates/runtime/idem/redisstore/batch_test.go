package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
)

// TestBatchedUnderLoad: many concurrent claims, completes and replays through one store go out
// in batches, and every caller gets its own command's answer: each key is claimed once, and its
// replay holds the body its own caller completed it with.
func TestBatchedUnderLoad(t *testing.T) {
	rdb := client(t)
	for name, edit := range completes {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t, rdb)
			s = edit(s)
			const keys, dups = 48, 4
			var (
				wg      sync.WaitGroup
				claimed atomic.Int64
				errs    = make(chan error, keys*dups)
			)
			ctx := t.Context()
			for k := range keys {
				for range dups {
					wg.Go(func() {
						key := "k" + strconv.Itoa(k)
						c, err := s.Claim(ctx, key, "fp"+key, time.Minute, time.Hour)
						if err != nil {
							errs <- err
							return
						}
						if c.Outcome != idem.Claimed {
							return
						}
						claimed.Add(1)
						body := []byte("body of " + key)
						if err := s.Complete(ctx, key, c.Token, idem.Response{Status: 201, Body: body}, time.Hour); err != nil {
							errs <- fmt.Errorf("complete %s: %w", key, err)
						}
					})
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if n := claimed.Load(); n != keys {
				t.Fatalf("%d of %d keys claimed, want each once", n, keys)
			}
			for k := range keys {
				wg.Go(func() {
					key := "k" + strconv.Itoa(k)
					c, err := s.Claim(ctx, key, "fp"+key, time.Minute, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if c.Outcome != idem.Replay || string(c.Record.Response.Body) != "body of "+key {
						t.Errorf("claim of %s = %v with body %q, want the replay of its own", key, c.Outcome, c.Record.Response.Body)
					}
				})
			}
			wg.Wait()
			want := name != "unbatched"
			if n := redisstore.Batches(s); want && n <= 0 || !want && n != -1 {
				t.Errorf("batches sent = %d; want some when batched, -1 when not", n)
			}
			if out, queued := redisstore.InFlightOf(s); out != 0 || queued != 0 {
				t.Errorf("after the load: %d round trips out and %d commands queued, want none", out, queued)
			}
		})
	}
}

// holdHook holds every command sent alone (not in a pipeline) until release is closed, once hold
// is set, and counts the SET commands that go out in pipelines.
type holdHook struct {
	hold      atomic.Bool
	held      chan struct{}
	release   chan struct{}
	once      sync.Once
	pipelined atomic.Int64
}

// free lets every held command go, and holds no more.
func (h *holdHook) free() {
	h.hold.Store(false)
	h.once.Do(func() { close(h.release) })
}

func (h *holdHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *holdHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.hold.Load() {
			select {
			case h.held <- struct{}{}:
			case <-h.release:
			}
			<-h.release
		}
		return next(ctx, cmd)
	}
}

func (h *holdHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "set" { // not the CLIENT SETINFO a new connection sends first
				h.pipelined.Add(1)
			}
		}
		return next(ctx, cmds)
	}
}

// TestBatchQueue: while MaxInFlight round trips are out, a claim waits; if its context ends while
// it waits, it fails with that error and is never sent (no claim is made behind its caller's
// back), and once the round trips return the claims queued meanwhile go out together.
func TestBatchQueue(t *testing.T) {
	h := &holdHook{held: make(chan struct{}), release: make(chan struct{})}
	rdb := client(t)
	rdb.AddHook(h)
	s, prefix := newStore(t, rdb)
	t.Cleanup(h.free) // before newStore's cleanup, which needs the client, even if the test fails
	ctx := t.Context()
	h.hold.Store(true)
	var wg sync.WaitGroup
	for i := range redisstore.MaxInFlight {
		wg.Go(func() {
			if c, err := s.Claim(ctx, "out"+strconv.Itoa(i), "fp", time.Minute, time.Hour); err != nil || c.Outcome != idem.Claimed {
				t.Errorf("claim of out%d = %v, %v; want claimed", i, c.Outcome, err)
			}
		})
		<-h.held
	}
	if out, queued := redisstore.InFlightOf(s); out != redisstore.MaxInFlight || queued != 0 {
		t.Fatalf("%d round trips out, %d queued; want %d and none", out, queued, redisstore.MaxInFlight)
	}

	gone, cancel := context.WithCancel(ctx)
	failed := make(chan error, 1)
	go func() {
		_, err := s.Claim(gone, "cancelled", "fp", time.Minute, time.Hour)
		failed <- err
	}()
	for i := range 3 {
		wg.Go(func() {
			if c, err := s.Claim(ctx, "queued"+strconv.Itoa(i), "fp", time.Minute, time.Hour); err != nil || c.Outcome != idem.Claimed {
				t.Errorf("claim of queued%d = %v, %v; want claimed", i, c.Outcome, err)
			}
		})
	}
	waitFor(t, func() bool { _, queued := redisstore.InFlightOf(s); return queued == 4 })
	cancel()
	select {
	case err := <-failed:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("claim whose context ended while queued = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a queued claim whose context ended still waits")
	}
	if _, queued := redisstore.InFlightOf(s); queued != 3 {
		t.Errorf("%d commands queued after the cancelled one left, want 3", queued)
	}

	h.free()
	wg.Wait()
	if n := h.pipelined.Load(); n != 3 {
		t.Errorf("%d claims went out in pipelines, want the 3 queued ones", n)
	}
	if n := redisstore.Batches(s); n != 1 {
		t.Errorf("%d batches sent, want the 3 queued claims in one", n)
	}
	if out, queued := redisstore.InFlightOf(s); out != 0 || queued != 0 {
		t.Errorf("afterwards %d round trips out and %d queued, want none", out, queued)
	}
	if n, err := rdb.Exists(ctx, prefix+"cancelled").Result(); err != nil || n != 0 {
		t.Errorf("the cancelled claim's key exists (%d, %v): it was sent", n, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
