package processor

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

// TestClient: the processor over HTTP answers as the in-process one does, and records each call
// with the request that made it.
func TestClient(t *testing.T) {
	t.Parallel()
	p := New()
	ts := httptest.NewServer(p.Handler())
	t.Cleanup(ts.Close)
	c := NewClient(ts.URL+"/", nil)
	ctx := WithRequestID(context.Background(), "req-1")

	first, err := c.Charge(ctx, "charge-a", 4200, "eur", "4242424242424242")
	if err != nil || first.ID == "" || first.Amount != 4200 {
		t.Fatalf("first charge: %+v, %v", first, err)
	}
	if again, err := c.Charge(ctx, "charge-a", 4200, "eur", "4242424242424242"); err != nil || again != first {
		t.Errorf("the key again: %+v, %v; want the first charge %+v", again, err, first)
	}
	if _, err := c.Charge(ctx, "charge-a", 9900, "eur", "4242424242424242"); !errors.Is(err, ErrKeyReused) {
		t.Errorf("the key with another amount: %v, want ErrKeyReused", err)
	}
	if _, err := c.Charge(ctx, "charge-b", 100, "eur", DeclinedCard); !errors.Is(err, ErrDeclined) {
		t.Errorf("the declined card: %v, want ErrDeclined", err)
	}
	p.SetFault(func(context.Context, int) error { return ErrUnavailable })
	if _, err := c.Charge(ctx, "charge-c", 100, "eur", "4242424242424242"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("an outage: %v, want ErrUnavailable", err)
	}
	p.SetFault(nil)

	if st, err := c.Stats(ctx); err != nil || st != (Stats{Calls: 5, Charges: 1}) {
		t.Errorf("stats %+v, %v; want 5 calls and 1 charge", st, err)
	}
	calls, err := c.Calls(ctx)
	if err != nil || len(calls) != 5 {
		t.Fatalf("calls %+v, %v; want 5", calls, err)
	}
	if k := calls[0]; k.Key != "charge-a" || k.RequestID != "req-1" || !k.Charged || k.Charge != first.ID || k.End.Before(k.Start) {
		t.Errorf("the first call %+v: want charge-a of req-1, charged %s", k, first.ID)
	}
	if k := calls[1]; k.Charged || k.Charge != first.ID {
		t.Errorf("the repeated call %+v: want %s answered without a new charge", k, first.ID)
	}
	if k := calls[3]; k.Charge != "" || k.Err == "" {
		t.Errorf("the declined call %+v: want an error and no charge", k)
	}
}

// TestHandlerCallerGone: a caller that hangs up mid-call loses the answer, not the charge, and the
// call records that it was gone.
func TestHandlerCallerGone(t *testing.T) {
	t.Parallel()
	p := New()
	p.SetLatency(200 * time.Millisecond)
	ts := httptest.NewServer(p.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := NewClient(ts.URL, nil).Charge(ctx, "charge-a", 4200, "eur", "4242424242424242"); err == nil {
		t.Fatal("a caller that gave up got an answer")
	}
	calls := p.Calls()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); calls = p.Calls() {
		if len(calls) == 1 && !calls[0].End.IsZero() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(calls) != 1 || !calls[0].Charged || !calls[0].Cancelled {
		t.Errorf("calls %+v: want one, charged, with its caller gone", calls)
	}
}
