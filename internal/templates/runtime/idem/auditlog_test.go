package idem_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

func TestMemoryAuditLog(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	l := idem.NewMemoryAuditLog(func() time.Time { return at })
	ctx := context.Background()

	var recorded atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			ok, err := l.Record(ctx, idem.AuditEntry{Operation: "charge", Key: "k1", Status: 201})
			if err != nil {
				t.Error(err)
			}
			if ok {
				recorded.Add(1)
			}
		})
	}
	wg.Wait()
	if n := recorded.Load(); n != 1 {
		t.Errorf("16 concurrent records of one operation and key wrote %d entries, want 1", n)
	}
	// Another operation with the same key is another entry; an explicit time is kept.
	explicit := at.Add(-time.Hour)
	if ok, err := l.Record(ctx, idem.AuditEntry{Operation: "refund", Key: "k1", Status: 200, At: explicit}); !ok || err != nil {
		t.Errorf("Record(refund, k1) = %v, %v; want recorded", ok, err)
	}
	want := []idem.AuditEntry{
		{Operation: "charge", Key: "k1", Status: 201, At: at},
		{Operation: "refund", Key: "k1", Status: 200, At: explicit},
	}
	got := l.Entries()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Entries() = %+v, want %+v", got, want)
	}

	for _, bad := range []idem.AuditEntry{{Key: "k"}, {Operation: "charge"}, {Operation: "charge", Key: "k\x00"}, {Operation: "\xff", Key: "k"}} {
		if ok, err := l.Record(ctx, bad); ok || !errors.Is(err, idem.ErrAuditInvalid) {
			t.Errorf("Record(%+v) = %v, %v; want ErrAuditInvalid", bad, ok, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := l.Record(cancelled, idem.AuditEntry{Operation: "charge", Key: "k2"}); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("Record on a cancelled context = %v, %v; want context.Canceled", ok, err)
	}
	if n := len(l.Entries()); n != 2 {
		t.Errorf("%d entries after refused records, want 2", n)
	}
}
