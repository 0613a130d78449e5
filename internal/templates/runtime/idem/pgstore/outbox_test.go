package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/pgstore"
)

func newOutbox(t *testing.T, pool *pgxpool.Pool) *pgstore.Outbox {
	t.Helper()
	schema := testenv.Name(t)
	t.Cleanup(func() { dropSchema(t, pool, schema) })
	o := pgstore.NewOutbox(pool, pgstore.OutboxOptions{Schema: schema})
	if err := o.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestOutboxCommitsWithTheTransaction: an event exists exactly when its transaction committed,
// and enqueueing the same ID again adds nothing.
func TestOutboxCommitsWithTheTransaction(t *testing.T) {
	pool := connect(t)
	o := newOutbox(t, pool)
	ctx := t.Context()
	enqueue := func(id string, commit bool) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if err := o.Enqueue(ctx, tx, pgstore.Event{ID: id, Topic: "orders", Payload: []byte(id)}); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	enqueue("rolled-back", false)
	enqueue("e1", true)
	enqueue("e1", true)
	var got []string
	n, err := o.Relay(ctx, pool, 10, func(_ context.Context, e pgstore.Event) error {
		got = append(got, e.ID+"/"+e.Topic+"/"+string(e.Payload))
		return nil
	})
	if err != nil || n != 1 || len(got) != 1 || got[0] != "e1/orders/e1" {
		t.Errorf("Relay = %d, %v, published %q; want only e1, once", n, err, got)
	}
	if n, err := o.Relay(ctx, pool, 10, func(context.Context, pgstore.Event) error { t.Error("republished"); return nil }); n != 0 || err != nil {
		t.Errorf("second Relay = %d, %v; want nothing left", n, err)
	}
}

// TestOutboxPublishFailure: an event whose publish fails stays for the next pass; the ones
// before it are marked sent.
func TestOutboxPublishFailure(t *testing.T) {
	pool := connect(t)
	o := newOutbox(t, pool)
	ctx := t.Context()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := o.Enqueue(ctx, tx, pgstore.Event{ID: id, Topic: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	down := errors.New("broker down")
	n, err := o.Relay(ctx, pool, 10, func(_ context.Context, e pgstore.Event) error {
		if e.ID == "b" {
			return down
		}
		return nil
	})
	if n != 1 || !errors.Is(err, down) {
		t.Fatalf("Relay = %d, %v; want a marked and the broker's error at b", n, err)
	}
	var again []string
	if _, err := o.Relay(ctx, pool, 10, func(_ context.Context, e pgstore.Event) error { again = append(again, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again) != "[b c]" {
		t.Errorf("next pass published %v, want [b c]", again)
	}
}

// TestOutboxTwoRelays: two relays draining the same outbox at once publish each event exactly
// once between them.
func TestOutboxTwoRelays(t *testing.T) {
	pool := connect(t)
	o := newOutbox(t, pool)
	ctx := t.Context()
	const events = 200
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := o.Enqueue(ctx, tx, pgstore.Event{ID: fmt.Sprint("e", i), Topic: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		published = map[string]int{}
		wg        sync.WaitGroup
	)
	publish := func(_ context.Context, e pgstore.Event) error {
		mu.Lock()
		published[e.ID]++
		mu.Unlock()
		return nil
	}
	for range 2 {
		wg.Go(func() {
			for {
				n, err := o.Relay(ctx, pool, 7, publish)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(published) != events {
		t.Errorf("%d distinct events published, want %d", len(published), events)
	}
	for id, n := range published {
		if n != 1 {
			t.Errorf("event %s published %d times", id, n)
		}
	}
}

// TestRunRelay: the background relay publishes committed events and stops with its context.
func TestRunRelay(t *testing.T) {
	pool := connect(t)
	o := newOutbox(t, pool)
	ctx, cancel := context.WithCancel(t.Context())
	published := make(chan string, 10)
	done := make(chan struct{})
	go func() {
		o.RunRelay(ctx, pool, 10*time.Millisecond, 2, func(_ context.Context, e pgstore.Event) error {
			published <- e.ID
			return nil
		}, func(err error) { t.Error(err) })
		close(done)
	}()
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"x", "y", "z"} {
		if err := o.Enqueue(t.Context(), tx, pgstore.Event{ID: id, Topic: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < 3 {
		select {
		case id := <-published:
			seen[id] = true
		case <-time.After(15 * time.Second):
			t.Fatalf("relay published only %v", seen)
		}
	}
	cancel()
	<-done
}
