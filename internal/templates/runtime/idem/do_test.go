package idem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// faulty wraps a store and lets a test replace single operations.
type faulty struct {
	idem.Store
	claim    func(ctx context.Context, key, fp string, lease, ttl time.Duration) (idem.Claim, error)
	complete func(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error
	extend   func(ctx context.Context, key, token string, lease time.Duration) error
	release  func(ctx context.Context, key, token string) error
}

func (f *faulty) Claim(ctx context.Context, key, fp string, lease, ttl time.Duration) (idem.Claim, error) {
	if f.claim != nil {
		return f.claim(ctx, key, fp, lease, ttl)
	}
	return f.Store.Claim(ctx, key, fp, lease, ttl)
}

func (f *faulty) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	if f.complete != nil {
		return f.complete(ctx, key, token, resp, ttl)
	}
	return f.Store.Complete(ctx, key, token, resp, ttl)
}

func (f *faulty) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if f.extend != nil {
		return f.extend(ctx, key, token, lease)
	}
	return f.Store.Extend(ctx, key, token, lease)
}

func (f *faulty) Release(ctx context.Context, key, token string) error {
	if f.release != nil {
		return f.release(ctx, key, token)
	}
	return f.Store.Release(ctx, key, token)
}

// logs is a Keeper's log, kept as JSON records.
type logs struct{ buf bytes.Buffer }

func (l *logs) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(&l.buf, nil)) }

// records returns the records logged at level.
func (l *logs) records(t *testing.T, level string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range bytes.Lines(l.buf.Bytes()) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["level"] == level {
			out = append(out, r)
		}
	}
	return out
}

func respond(status int, body string) idem.Func {
	return func(context.Context) (idem.Response, error) {
		return idem.Response{Status: status, Body: []byte(body)}, nil
	}
}

func mustNotRun(t *testing.T) idem.Func {
	return func(context.Context) (idem.Response, error) {
		t.Error("the work ran")
		return idem.Response{}, nil
	}
}

// state reports the key's record state, or "absent".
func state(t *testing.T, s idem.Store, key string) string {
	t.Helper()
	r, err := s.Get(context.Background(), key)
	if errors.Is(err, idem.ErrNotFound) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	return r.State.String()
}

func TestDoOutcomes(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	for _, tc := range []struct {
		name       string
		fn         idem.Func
		cacheable  func(idem.Response) bool
		wantErr    error
		wantStored bool
		wantState  string
		wantStatus int
	}{
		{name: "2xx stored", fn: respond(201, "made"), wantStored: true, wantState: "completed", wantStatus: 201},
		{name: "4xx stored", fn: respond(409, "no"), wantStored: true, wantState: "completed", wantStatus: 409},
		{name: "5xx released", fn: respond(503, "later"), wantState: "absent", wantStatus: 503},
		{name: "error released", fn: func(context.Context) (idem.Response, error) { return idem.Response{}, errBoom }, wantErr: errBoom, wantState: "absent"},
		{name: "custom cacheable", fn: respond(404, "gone"), cacheable: func(r idem.Response) bool { return r.Status < 400 }, wantState: "absent", wantStatus: 404},
		{name: "non-HTTP work stored", fn: respond(0, "result"), wantStored: true, wantState: "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := idem.NewMemoryStore(idem.MemoryOptions{})
			k := &idem.Keeper{Store: s, Cacheable: tc.cacheable}
			res, err := k.Do(t.Context(), "k", "fp", tc.fn)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Do error = %v, want %v", err, tc.wantErr)
			}
			if res.Stored != tc.wantStored || res.Replayed || res.Response.Status != tc.wantStatus {
				t.Errorf("Do = %+v, want stored=%v status %d", res, tc.wantStored, tc.wantStatus)
			}
			if got := state(t, s, "k"); got != tc.wantState {
				t.Errorf("key afterwards %s, want %s", got, tc.wantState)
			}
		})
	}
}

func TestDoReplayMismatchInProgress(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	ctx := t.Context()
	if _, err := idem.Do(ctx, s, "done", "fp", respond(201, "first")); err != nil {
		t.Fatal(err)
	}
	res, err := idem.Do(ctx, s, "done", "fp", mustNotRun(t))
	if err != nil || !res.Replayed || string(res.Response.Body) != "first" || res.Response.Status != 201 {
		t.Errorf("replay = %+v, %v", res, err)
	}

	_, err = idem.Do(ctx, s, "done", "other", mustNotRun(t))
	var mm *idem.MismatchError
	if !errors.As(err, &mm) || !errors.Is(err, idem.ErrFingerprintMismatch) || mm.Stored != "fp" || mm.Got != "other" || mm.Key != "done" {
		t.Errorf("mismatch = %v (%+v), want a MismatchError naming both fingerprints", err, mm)
	}

	if _, err := s.Claim(ctx, "busy", "fp", time.Minute, time.Hour); err != nil {
		t.Fatal(err)
	}
	_, err = idem.Do(ctx, s, "busy", "fp", mustNotRun(t))
	var ip *idem.InProgressError
	if !errors.As(err, &ip) || !errors.Is(err, idem.ErrInProgress) || ip.RetryAfter <= 0 || ip.RetryAfter > time.Minute {
		t.Errorf("in progress = %v (%+v), want an InProgressError with the lease's remainder", err, ip)
	}
}

// TestDoTakenOver: a key whose holder's lease ran out is taken over, and the takeover is logged at
// WARN with the key and both holders' tokens, so an operator can follow the two holders.
func TestDoTakenOver(t *testing.T) {
	t.Parallel()
	now := time.Now()
	s := idem.NewMemoryStore(idem.MemoryOptions{Now: func() time.Time { return now }})
	old, err := s.Claim(t.Context(), "k", "fp", time.Second, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second) // the first holder crashed
	var (
		log   logs
		token string // the takeover's, which the record hides
	)
	spy := &faulty{Store: s, claim: func(ctx context.Context, key, fp string, lease, ttl time.Duration) (idem.Claim, error) {
		c, err := s.Claim(ctx, key, fp, lease, ttl)
		token = c.Token
		return c, err
	}}
	k := &idem.Keeper{Store: spy, Logger: log.logger()}
	res, err := k.Do(t.Context(), "k", "fp", respond(200, "second"))
	if err != nil || !res.TakenOver || !res.Stored {
		t.Errorf("Do after a crashed holder = %+v, %v; want taken over and stored", res, err)
	}
	warns := log.records(t, "WARN")
	if len(warns) != 1 {
		t.Fatalf("logged %d warnings, want one for the takeover:\n%s", len(warns), log.buf.String())
	}
	if w := warns[0]; w["key"] != "k" || w["old_token"] != old.Token || w["new_token"] != token || token == "" {
		t.Errorf("takeover logged as %v; want key k, old_token %q and new_token %q", w, old.Token, token)
	}
}

// TestDoReleaseFails: work failed and its key could not be released. The error says so
// (ErrNotReleased, beside the work's own), and so does the log, at ERROR: a retry will find the
// key in progress, not free.
func TestDoReleaseFails(t *testing.T) {
	t.Parallel()
	errAudit := errors.New("audit row: connection reset")
	down := fmt.Errorf("release: %w: connection refused", idem.ErrStoreUnavailable)
	mem := idem.NewMemoryStore(idem.MemoryOptions{})
	s := &faulty{Store: mem, release: func(context.Context, string, string) error { return down }}
	var log logs
	k := &idem.Keeper{Store: s, Logger: log.logger()}
	_, err := k.Do(t.Context(), "k", "fp", func(context.Context) (idem.Response, error) {
		return idem.Response{Status: 201}, errAudit
	})
	if !errors.Is(err, errAudit) || !errors.Is(err, idem.ErrNotReleased) || !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Do = %v; want the work's error, ErrNotReleased and the store's", err)
	}
	errs := log.records(t, "ERROR")
	if len(errs) != 1 || errs[0]["key"] != "k" || !strings.Contains(fmt.Sprint(errs[0]["msg"]), "not released") {
		t.Errorf("logged %v; want one ERROR saying key k was not released", errs)
	}
	if got := state(t, mem, "k"); got != "in_progress" {
		t.Errorf("key is %s, want still in progress", got)
	}

	// A release that works is not news.
	log.buf.Reset()
	k.Store = mem
	if _, err := k.Do(t.Context(), "k2", "fp", func(context.Context) (idem.Response, error) { return idem.Response{}, errAudit }); errors.Is(err, idem.ErrNotReleased) {
		t.Errorf("Do with a working release = %v, want no ErrNotReleased", err)
	}
	if log.buf.Len() != 0 {
		t.Errorf("a released key logged %s", log.buf.String())
	}
}

func TestDoPanicReleasesAndRepanics(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	func() {
		defer func() {
			if p := recover(); p != "handler bug" {
				t.Errorf("recovered %v, want the original panic value", p)
			}
		}()
		idem.Do(t.Context(), s, "k", "fp", func(context.Context) (idem.Response, error) { panic("handler bug") })
		t.Error("Do returned after a panic")
	}()
	if got := state(t, s, "k"); got != "absent" {
		t.Errorf("key after a panic is %s, want released", got)
	}
}

func TestDoCancelledReleasesWithDetachedContext(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	res, err := idem.Do(ctx, s, "k", "fp", func(ctx context.Context) (idem.Response, error) {
		cancel() // the client went away while the work ran; the work finished anyway
		return idem.Response{Status: 200}, nil
	})
	if !errors.Is(err, context.Canceled) || res.Stored {
		t.Errorf("Do after cancellation = %+v, %v; want context.Canceled and nothing stored", res, err)
	}
	if got := state(t, s, "k"); got != "absent" {
		t.Errorf("key after cancellation is %s, want released", got)
	}
}

// TestDoCleanupTimeout: a Complete that waits on its context is cut off CleanupTimeout after it
// first looks, with the deadline it was shown.
func TestDoCleanupTimeout(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	const timeout = 20 * time.Millisecond
	f := &faulty{Store: s, complete: func(ctx context.Context, _, _ string, _ idem.Response, _ time.Duration) error {
		before := time.Now()
		d, ok := ctx.Deadline()
		after := time.Now()
		if !ok || d.Before(before.Add(timeout)) || d.After(after.Add(timeout)) {
			t.Errorf("deadline %v, %v; want %v after it was asked for, at %v", d, ok, timeout, before)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("the cleanup context never ended")
		}
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) || time.Now().Before(d) {
			t.Errorf("ended at %v with %v; want DeadlineExceeded at %v", time.Now(), ctx.Err(), d)
		}
		return ctx.Err()
	}}
	k := &idem.Keeper{Store: f, CleanupTimeout: timeout}
	if _, err := k.Do(t.Context(), "k", "fp", respond(200, "ok")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do = %v, want the Complete cut off by DeadlineExceeded", err)
	}
}

// TestDoCleanupContext: the Complete and the Release after the work see the caller's values and
// a deadline, and never the caller's cancellation or its cause.
func TestDoCleanupContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	check := func(op string, ctx context.Context) {
		if v := ctx.Value(key{}); v != "v" {
			t.Errorf("%s: value %v, want the caller's", op, v)
		}
		if d, ok := ctx.Deadline(); !ok || time.Until(d) <= 0 || time.Until(d) > idem.DefaultCleanupTimeout {
			t.Errorf("%s: deadline %v, %v; want one within the cleanup timeout", op, d, ok)
		}
		if ctx.Err() != nil || context.Cause(ctx) != nil {
			t.Errorf("%s: Err %v, Cause %v; want neither", op, ctx.Err(), context.Cause(ctx))
		}
		child, cancel := context.WithCancel(ctx)
		cancel()
		if ctx.Err() != nil || child.Err() == nil {
			t.Errorf("%s: cancelling a child: Err %v, child's %v; want nil, Canceled", op, ctx.Err(), child.Err())
		}
		select {
		case <-ctx.Done():
			t.Errorf("%s: Done closed", op)
		default:
		}
	}
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	f := &faulty{Store: s,
		complete: func(ctx context.Context, k, token string, resp idem.Response, ttl time.Duration) error {
			check("complete", ctx)
			return s.Complete(ctx, k, token, resp, ttl)
		},
		release: func(ctx context.Context, k, token string) error {
			check("release", ctx)
			return s.Release(ctx, k, token)
		},
	}
	ctx := context.WithValue(t.Context(), key{}, "v")
	if _, err := idem.Do(ctx, f, "done", "fp", respond(200, "ok")); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	cause := errors.New("client gone")
	_, err := idem.Do(cctx, f, "cut", "fp", func(context.Context) (idem.Response, error) {
		cancel(cause)
		return idem.Response{Status: 200}, nil
	})
	if !errors.Is(err, cause) {
		t.Errorf("Do cut off = %v, want the caller's cause", err)
	}
}

// TestDoWorkContext: the work's context is the caller's, values and deadline included, and ends
// with the run: cancelled (its cause context.Canceled) once Do returns, whatever becomes of the
// caller's context afterwards, and along with any context the work derived from it. It behaves
// so whether or not the work asked for Done while it ran, which is when the cancelable context
// it stands for is made.
func TestDoWorkContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	for _, tc := range []struct{ askDone, callerEndsFirst bool }{
		{false, false}, {false, true}, {true, false}, {true, true},
	} {
		t.Run(fmt.Sprintf("%+v", tc), func(t *testing.T) {
			t.Parallel()
			deadline := time.Now().Add(time.Hour)
			withValue, cancelParent := context.WithCancelCause(context.WithValue(t.Context(), key{}, "v"))
			defer cancelParent(nil)
			parent, cancel := context.WithDeadline(withValue, deadline)
			defer cancel()
			var work, child context.Context
			cancelChild := context.CancelFunc(func() {})
			defer func() { cancelChild() }()
			_, err := idem.Do(parent, idem.NewMemoryStore(idem.MemoryOptions{}), "k", "fp", func(ctx context.Context) (idem.Response, error) {
				work = ctx
				if tc.askDone {
					select {
					case <-ctx.Done():
						t.Error("Done closed while the work runs")
					default:
					}
					child, cancelChild = context.WithCancel(ctx)
				}
				if v := ctx.Value(key{}); v != "v" {
					t.Errorf("value %v, want the caller's", v)
				}
				if d, ok := ctx.Deadline(); !ok || !d.Equal(deadline) {
					t.Errorf("deadline %v, %v; want the caller's %v", d, ok, deadline)
				}
				if ctx.Err() != nil || context.Cause(ctx) != nil {
					t.Errorf("while the work runs: Err %v, Cause %v; want neither", ctx.Err(), context.Cause(ctx))
				}
				return idem.Response{Status: 200}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// The caller's context ends afterwards, as a server's does: before or after the
			// work's context is first looked at again.
			if tc.callerEndsFirst {
				cancelParent(errors.New("server done"))
			}
			if !errors.Is(work.Err(), context.Canceled) {
				t.Errorf("after the run: Err %v, want Canceled", work.Err())
			}
			cancelParent(errors.New("server done"))
			if !errors.Is(work.Err(), context.Canceled) || context.Cause(work) != context.Canceled {
				t.Errorf("after the run and the caller: Err %v, Cause %v; want Canceled by the run", work.Err(), context.Cause(work))
			}
			select {
			case <-work.Done():
			default:
				t.Error("after the run: Done not closed")
			}
			if v := work.Value(key{}); v != "v" {
				t.Errorf("after the run: value %v, want the caller's", v)
			}
			if child != nil && !errors.Is(child.Err(), context.Canceled) {
				t.Errorf("a context derived from the work's: Err %v, want Canceled", child.Err())
			}
		})
	}
}

// TestDoWorkContextCallerCancelled: the caller's cancellation reaches the work's context, with
// its cause, whether the work waits on Done or only looks at Err.
func TestDoWorkContextCallerCancelled(t *testing.T) {
	t.Parallel()
	for _, askDone := range []bool{false, true} {
		t.Run(fmt.Sprintf("askDone=%v", askDone), func(t *testing.T) {
			t.Parallel()
			cause := errors.New("client gone")
			parent, cancel := context.WithCancelCause(t.Context())
			_, err := idem.Do(parent, idem.NewMemoryStore(idem.MemoryOptions{}), "k", "fp", func(ctx context.Context) (idem.Response, error) {
				if askDone {
					_ = ctx.Done()
				}
				cancel(cause)
				if askDone {
					<-ctx.Done()
				}
				if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != cause {
					t.Errorf("Err %v, Cause %v; want Canceled and the caller's cause", ctx.Err(), context.Cause(ctx))
				}
				return idem.Response{Status: 200}, nil
			})
			if !errors.Is(err, cause) {
				t.Errorf("Do = %v, want the caller's cause", err)
			}
		})
	}
}

func TestDoStoreUnavailable(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("claim: %w: connection refused", idem.ErrStoreUnavailable)
	s := &faulty{Store: idem.NewMemoryStore(idem.MemoryOptions{}), claim: func(context.Context, string, string, time.Duration, time.Duration) (idem.Claim, error) {
		return idem.Claim{}, down
	}}
	if _, err := idem.Do(t.Context(), s, "k", "fp", mustNotRun(t)); !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Do = %v, want ErrStoreUnavailable", err)
	}
}

// TestDoCompleteLost: the work ran, but the lease was taken over before Complete; the caller gets
// the response it produced and an ErrLeaseLost, and the newer holder's record stands.
func TestDoCompleteLost(t *testing.T) {
	t.Parallel()
	mem := idem.NewMemoryStore(idem.MemoryOptions{})
	s := &faulty{Store: mem, complete: func(ctx context.Context, key, _ string, resp idem.Response, ttl time.Duration) error {
		return mem.Complete(ctx, key, "stale", resp, ttl)
	}}
	res, err := idem.Do(t.Context(), s, "k", "fp", respond(200, "ran"))
	if !errors.Is(err, idem.ErrLeaseLost) || res.Stored || string(res.Response.Body) != "ran" {
		t.Errorf("Do = %+v, %v; want the response, not stored, and ErrLeaseLost", res, err)
	}
	if got := state(t, mem, "k"); got != "in_progress" {
		t.Errorf("key is %s, want left to its lease", got)
	}
}

// TestDoHeartbeatLost: when renewal says the lease is gone, the work's context is cancelled with
// ErrLeaseLost as its cause, and nothing is stored.
func TestDoHeartbeatLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		extend error
		poll   bool // the work looks at Err instead of waiting on Done
	}{
		{"refused", fmt.Errorf("extend: %w", idem.ErrLeaseLost), false},
		{"refused, work polling Err", fmt.Errorf("extend: %w", idem.ErrLeaseLost), true},
		{"unreachable until the lease ran out", fmt.Errorf("extend: %w: timeout", idem.ErrStoreUnavailable), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := idem.NewMemoryStore(idem.MemoryOptions{})
			s := &faulty{Store: mem, extend: func(context.Context, string, string, time.Duration) error { return tc.extend }}
			k := &idem.Keeper{Store: s, Lease: 60 * time.Millisecond, Heartbeat: 5 * time.Millisecond}
			var cause error
			res, err := k.Do(t.Context(), "k", "fp", func(ctx context.Context) (idem.Response, error) {
				if tc.poll {
					// Work that never asks for Done sees the loss through Err.
					for deadline := time.Now().Add(30 * time.Second); ctx.Err() == nil; time.Sleep(time.Millisecond) {
						if time.Now().After(deadline) {
							return idem.Response{}, errors.New("the work was never cancelled")
						}
					}
					cause = context.Cause(ctx)
					return idem.Response{Status: 200}, nil
				}
				select {
				case <-ctx.Done():
					cause = context.Cause(ctx)
					return idem.Response{Status: 200}, nil
				case <-time.After(30 * time.Second):
					return idem.Response{}, errors.New("the work was never cancelled")
				}
			})
			if !errors.Is(cause, idem.ErrLeaseLost) {
				t.Errorf("work cancelled with cause %v, want ErrLeaseLost", cause)
			}
			if !errors.Is(err, idem.ErrLeaseLost) || res.Stored {
				t.Errorf("Do = %+v, %v; want ErrLeaseLost and nothing stored", res, err)
			}
		})
	}
}

// TestDoHeartbeatSurvivesOneFailure: a single failed renewal inside the lease does not cut the
// work off; the next renewal keeps it.
func TestDoHeartbeatSurvivesOneFailure(t *testing.T) {
	t.Parallel()
	mem := idem.NewMemoryStore(idem.MemoryOptions{})
	var calls atomic.Int32
	s := &faulty{Store: mem, extend: func(ctx context.Context, key, token string, lease time.Duration) error {
		if calls.Add(1) == 1 {
			return fmt.Errorf("extend: %w: blip", idem.ErrStoreUnavailable)
		}
		return mem.Extend(ctx, key, token, lease)
	}}
	k := &idem.Keeper{Store: s, Lease: 10 * time.Second, Heartbeat: 5 * time.Millisecond}
	res, err := k.Do(t.Context(), "k", "fp", func(ctx context.Context) (idem.Response, error) {
		for calls.Load() < 5 {
			select {
			case <-ctx.Done():
				return idem.Response{}, context.Cause(ctx)
			case <-time.After(time.Millisecond):
			}
		}
		return idem.Response{Status: 200}, nil
	})
	if err != nil || !res.Stored {
		t.Errorf("Do = %+v, %v; want stored", res, err)
	}
}

// TestDoHeartbeatSoonerThanAnother: a run whose first renewal is due before that of every run
// already under way (here one that renews hourly) is renewed on time all the same.
func TestDoHeartbeatSoonerThanAnother(t *testing.T) {
	t.Parallel()
	mem := idem.NewMemoryStore(idem.MemoryOptions{})
	slow := &idem.Keeper{Store: mem, Lease: 3 * time.Hour, Heartbeat: time.Hour}
	release := make(chan struct{})
	slowDone := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		_, err := slow.Do(t.Context(), "slow", "fp", func(context.Context) (idem.Response, error) {
			close(started)
			<-release
			return idem.Response{Status: 200}, nil
		})
		slowDone <- err
	}()
	<-started
	var calls atomic.Int32
	s := &faulty{Store: mem, extend: func(ctx context.Context, key, token string, lease time.Duration) error {
		calls.Add(1)
		return mem.Extend(ctx, key, token, lease)
	}}
	fast := &idem.Keeper{Store: s, Lease: 10 * time.Second, Heartbeat: 5 * time.Millisecond}
	res, err := fast.Do(t.Context(), "fast", "fp", func(ctx context.Context) (idem.Response, error) {
		deadline := time.After(5 * time.Second)
		for calls.Load() < 2 {
			select {
			case <-deadline:
				return idem.Response{}, errors.New("the lease was not renewed every 5ms")
			case <-time.After(time.Millisecond):
			}
		}
		return idem.Response{Status: 200}, nil
	})
	if err != nil || !res.Stored {
		t.Errorf("Do = %+v, %v; want renewed and stored", res, err)
	}
	close(release)
	if err := <-slowDone; err != nil {
		t.Errorf("the hourly run: %v", err)
	}
}

// TestDoRoundTrips holds Do to its budget: a new request costs two store operations (claim,
// complete), a replay one, a refused request one, a failed one two (claim, release).
func TestDoRoundTrips(t *testing.T) {
	t.Parallel()
	s := &storetest.Counting{Store: idem.NewMemoryStore(idem.MemoryOptions{})}
	for _, tc := range []struct {
		name string
		key  string
		fp   string
		fn   idem.Func
		want int32
	}{
		{"new", "k", "fp", respond(200, "x"), 2},
		{"replay", "k", "fp", respond(200, "x"), 1},
		{"mismatch", "k", "other", respond(200, "x"), 1},
		{"5xx", "k2", "fp", respond(500, "x"), 2},
	} {
		s.Ops.Store(0)
		idem.Do(t.Context(), s, tc.key, tc.fp, tc.fn)
		if got := s.Ops.Load(); got != tc.want {
			t.Errorf("%s: %d store operations, want %d", tc.name, got, tc.want)
		}
	}
}

// TestDoWait: a Keeper with Wait waits on a key in progress and answers with what the holder
// did — its stored response, or the work itself when the holder let go — and, when the holder is
// still at it after Wait, ErrInProgress with RetryAfter capped.
func TestDoWait(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	k := &idem.Keeper{Store: s, Lease: time.Minute, Wait: 5 * time.Second, RetryAfter: 3 * time.Second}

	// The holder completes while the retry waits: the retry replays its response.
	holder, err := s.Claim(ctx, "completes", "fp", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		if err := s.Complete(ctx, "completes", holder.Token, idem.Response{Status: 201, Body: []byte("holder")}, time.Hour); err != nil {
			t.Error(err)
		}
	}()
	res, err := k.Do(ctx, "completes", "fp", mustNotRun(t))
	if err != nil || !res.Replayed || string(res.Response.Body) != "holder" {
		t.Errorf("retry waiting on a holder that completes = %+v, %v; want the holder's response replayed", res, err)
	}

	// The holder releases (its work failed): the retry runs the work itself.
	holder, err = s.Claim(ctx, "releases", "fp", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		if err := s.Release(ctx, "releases", holder.Token); err != nil {
			t.Error(err)
		}
	}()
	res, err = k.Do(ctx, "releases", "fp", respond(200, "retry"))
	if err != nil || res.Replayed || string(res.Response.Body) != "retry" || !res.Stored {
		t.Errorf("retry waiting on a holder that lets go = %+v, %v; want the work run and stored", res, err)
	}

	// The holder outlasts Wait: in progress, told to come back after RetryAfter, not the lease.
	if _, err := s.Claim(ctx, "busy", "fp", time.Minute, time.Hour); err != nil {
		t.Fatal(err)
	}
	short := &idem.Keeper{Store: s, Lease: time.Minute, Wait: 60 * time.Millisecond, RetryAfter: 3 * time.Second}
	begin := time.Now()
	_, err = short.Do(ctx, "busy", "fp", mustNotRun(t))
	waited := time.Since(begin)
	var ip *idem.InProgressError
	if !errors.As(err, &ip) || ip.RetryAfter != 3*time.Second {
		t.Errorf("retry outlasted by the holder = %v (%+v), want ErrInProgress with RetryAfter 3s", err, ip)
	}
	if waited < 60*time.Millisecond {
		t.Errorf("answered after %v, before Wait (60ms) had passed", waited)
	}

	// A caller that gives up stops the wait: in progress at once.
	gone, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	_, err = k.Do(gone, "busy", "fp", mustNotRun(t))
	if !errors.Is(err, idem.ErrInProgress) {
		t.Errorf("retry whose context ends while waiting = %v, want ErrInProgress", err)
	}
}

// TestDoRetryAfterCap: without Wait, RetryAfter caps the advice only when it is shorter than
// what remains of the lease.
func TestDoRetryAfterCap(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	if _, err := s.Claim(ctx, "busy", "fp", 10*time.Second, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cap    time.Duration
		lo, hi time.Duration
	}{
		{0, 9 * time.Second, 10 * time.Second},              // no cap: the lease's remainder
		{2 * time.Second, 2 * time.Second, 2 * time.Second}, // capped
		{time.Hour, 9 * time.Second, 10 * time.Second},      // a cap above the lease changes nothing
	} {
		_, err := (&idem.Keeper{Store: s, RetryAfter: tc.cap}).Do(ctx, "busy", "fp", mustNotRun(t))
		var ip *idem.InProgressError
		if !errors.As(err, &ip) || ip.RetryAfter < tc.lo || ip.RetryAfter > tc.hi {
			t.Errorf("RetryAfter cap %v: %v (%+v), want RetryAfter in [%v, %v]", tc.cap, err, ip, tc.lo, tc.hi)
		}
	}
}
