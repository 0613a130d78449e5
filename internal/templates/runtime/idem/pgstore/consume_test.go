package pgstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

func TestConsumeOnce(t *testing.T) {
	pool := connect(t)
	s, schema := newStore(t, pool)
	ctx := t.Context()
	ledger := pgx.Identifier{schema, "ledger"}.Sanitize()
	if _, err := pool.Exec(ctx, "CREATE TABLE "+ledger+" (message text, amount int)"); err != nil {
		t.Fatal(err)
	}
	credit := func(msg string) func(context.Context, pgx.Tx) error {
		return func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO "+ledger+" VALUES ($1, 5)", msg)
			return err
		}
	}
	rows := func(msg string) int {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+ledger+" WHERE message = $1", msg).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// A failed first delivery records nothing; the redelivery runs; later ones are skipped.
	boom := errors.New("downstream failed")
	ran, err := s.ConsumeOnce(ctx, pool, "m1", "fp", time.Hour, func(ctx context.Context, tx pgx.Tx) error {
		if err := credit("m1")(ctx, tx); err != nil {
			return err
		}
		return boom
	})
	if ran || !errors.Is(err, boom) || rows("m1") != 0 {
		t.Fatalf("failed delivery: ran=%v err=%v rows=%d; want the work rolled back and not recorded", ran, err, rows("m1"))
	}
	for i, want := range []bool{true, false, false} {
		ran, err := s.ConsumeOnce(ctx, pool, "m1", "fp", time.Hour, credit("m1"))
		if err != nil || ran != want {
			t.Errorf("delivery %d: ran=%v err=%v, want ran=%v", i+2, ran, err, want)
		}
	}
	if rows("m1") != 1 {
		t.Errorf("%d ledger rows for m1, want 1", rows("m1"))
	}
	if _, err := s.ConsumeOnce(ctx, pool, "m1", "other payload", time.Hour, credit("m1")); !errors.Is(err, idem.ErrFingerprintMismatch) {
		t.Errorf("same ID, other payload = %v, want ErrFingerprintMismatch", err)
	}

	// Concurrent duplicate deliveries: one runs, the others wait for it and skip.
	var ranCount atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ran, err := s.ConsumeOnce(ctx, pool, "m2", "fp", time.Hour, credit("m2"))
			if err != nil {
				t.Error(err)
			}
			if ran {
				ranCount.Add(1)
			}
		})
	}
	wg.Wait()
	if ranCount.Load() != 1 || rows("m2") != 1 {
		t.Errorf("8 concurrent deliveries ran %d times, %d ledger rows; want 1 and 1", ranCount.Load(), rows("m2"))
	}
}
