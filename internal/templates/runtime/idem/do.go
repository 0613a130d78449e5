package idem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults used where a Keeper field is zero.
const (
	DefaultLease          = 30 * time.Second
	DefaultTTL            = 24 * time.Hour
	DefaultCleanupTimeout = 5 * time.Second
)

// Func is the work guarded by a key. Its context is cancelled when the caller's is, and when the
// lease cannot be renewed (the cause is then ErrLeaseLost): work that sees it cancelled must stop,
// because another holder may be running it.
type Func func(ctx context.Context) (Response, error)

// Keeper runs work at most once per key over a Store. The zero value of each field but Store is a
// sensible default; a Keeper is safe for concurrent use and holds no state of its own.
type Keeper struct {
	Store Store
	// Lease is how long a holder keeps the key without renewing it, and so how long a crashed
	// holder blocks retries. Default DefaultLease.
	Lease time.Duration
	// TTL is how long a completed response is replayed; it should cover the longest retry window
	// of whoever sends the requests. Default DefaultTTL.
	TTL time.Duration
	// Heartbeat is how often the lease is renewed while the work runs. Default Lease/3, so two
	// renewals can fail before the lease runs out.
	Heartbeat time.Duration
	// Cacheable decides whether a response is stored for replays. Default: any status under 500.
	// A response that is not cacheable releases the key, so the retry runs the work again.
	Cacheable func(Response) bool
	// CleanupTimeout bounds the Complete or Release that runs after the work, which uses a context
	// detached from the caller's so a cancelled request still releases its key. It counts from
	// the store's first look at the context's deadline, Done or Err. Default DefaultCleanupTimeout.
	CleanupTimeout time.Duration
	// Wait is how long Do waits on a key that another holder is running before answering
	// ErrInProgress: it asks the store again, from every 10ms up to every 250ms, and replays the
	// holder's response as soon as it is stored, or runs the work if the holder let go. Default 0:
	// answer at once.
	Wait time.Duration
	// RetryAfter caps the wait an *InProgressError advises, which is otherwise what remains of
	// the holder's lease. Default 0: no cap.
	RetryAfter time.Duration
	// Logger hears what an operator must: a takeover of a lapsed lease, at WARN with the key and
	// both holders' tokens, and a key that could not be released, at ERROR. Default
	// slog.Default(). For metrics, observe the Store (see Observe).
	Logger *slog.Logger
}

// Poll intervals of Keeper.Wait.
const (
	firstPoll = 10 * time.Millisecond
	maxPoll   = 250 * time.Millisecond
)

// Result is what Do produced.
type Result struct {
	Response Response
	// Replayed: Response is the stored answer of an earlier run; the work did not run now.
	Replayed bool
	// TakenOver: the work ran after an earlier holder's lease ran out; that holder may have done
	// part of it.
	TakenOver bool
	// Stored: Response was recorded and will be replayed to retries.
	Stored bool
}

// Do runs fn once for key with the default Keeper settings over s. See Keeper.Do.
func Do(ctx context.Context, s Store, key, fingerprint string, fn Func) (Result, error) {
	return (&Keeper{Store: s}).Do(ctx, key, fingerprint, fn)
}

// Do claims key and runs fn, or answers without running it:
//   - a completed key with the same fingerprint: the stored response, Replayed;
//   - another holder's live lease: an *InProgressError (ErrInProgress) with the lease's remainder;
//   - a different fingerprint: a *MismatchError (ErrFingerprintMismatch);
//   - a store that cannot answer: its error (ErrStoreUnavailable), and fn does not run.
//
// While fn runs its lease is renewed every Heartbeat. Afterwards the key is completed with fn's
// response if fn succeeded, its context was not cancelled and the response is cacheable;
// otherwise it is released so a retry can run at once — including when fn panics, in which case
// the panic continues after the release. The response of a run is returned even when it was not
// stored, along with any error of the Complete or Release.
func (k *Keeper) Do(ctx context.Context, key, fingerprint string, fn Func) (Result, error) {
	lease := orDefault(k.Lease, DefaultLease)
	start := monoNow()
	c, err := k.Store.Claim(ctx, key, fingerprint, lease, orDefault(k.TTL, DefaultTTL))
	if err == nil && c.Outcome == InProgress && k.Wait > 0 {
		start, c, err = k.wait(ctx, key, fingerprint, lease, c)
	}
	if err != nil {
		return Result{}, err
	}
	if c.Outcome == InProgress && k.RetryAfter > 0 {
		c.RetryAfter = min(c.RetryAfter, k.RetryAfter)
	}
	switch c.Outcome {
	case TakenOver:
		k.logger().WarnContext(ctx, "idem: took over a key whose holder's lease ran out; that holder may have done part of the work",
			"key", key, "old_token", c.Previous, "new_token", c.Token)
		return k.run(ctx, key, c.Token, true, start, fn)
	case Claimed:
		return k.run(ctx, key, c.Token, false, start, fn)
	case Replay:
		return Result{Response: c.Record.Response, Replayed: true}, nil
	case InProgress:
		return Result{}, &InProgressError{Key: key, RetryAfter: c.RetryAfter}
	case Mismatch:
		return Result{}, &MismatchError{Key: key, Stored: c.Record.Fingerprint, Got: fingerprint}
	}
	return Result{}, fmt.Errorf("idem: claim %q: unknown outcome %v", key, c.Outcome)
}

// wait asks the store again while the key stays in progress, until Wait has passed or ctx is
// done, and returns the last answer with the time its claim was sent (see monoNow).
func (k *Keeper) wait(ctx context.Context, key, fingerprint string, lease time.Duration, c Claim) (int64, Claim, error) {
	deadline := time.Now().Add(k.Wait)
	pause := firstPoll
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return monoNow(), c, nil
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return monoNow(), c, nil // answer in progress; the caller's context tells the rest
		case <-t.C:
		}
		pause = min(2*pause, maxPoll)
		start := monoNow()
		next, err := k.Store.Claim(ctx, key, fingerprint, lease, orDefault(k.TTL, DefaultTTL))
		if err != nil || next.Outcome != InProgress {
			return start, next, err
		}
		c = next
	}
}

// run does the work of a held claim, sent at start (see monoNow): the lease is reckoned from
// then, a local and conservative estimate of when it runs out. It takes the claim's token, and
// whether it took the key over, rather than the claim, which is many words to copy.
func (k *Keeper) run(ctx context.Context, key, token string, takenOver bool, start int64, fn Func) (res Result, err error) {
	res.TakenOver = takenOver
	rs := &runContexts{
		work:    workCtx{parent: ctx},
		cleanup: cleanupCtx{parent: ctx, timeout: orDefault(k.CleanupTimeout, DefaultCleanupTimeout)},
	}
	work, cctx := &rs.work, &rs.cleanup
	defer work.cancel(nil)
	hb := k.heartbeat(work, key, token, start)

	// The deferred release covers the paths that never reach the code after fn: a panic (which
	// goes on unwinding afterwards) and runtime.Goexit.
	finished := false
	defer func() {
		if !finished {
			hb.stop()
			_ = k.release(ctx, cctx, key, token, nil)
		}
	}()
	resp, ferr := fn(work)
	finished = true
	hb.stop()

	res.Response = resp
	cause := work.cause()
	if ferr != nil {
		if cause != nil && !errors.Is(ferr, cause) {
			ferr = errors.Join(ferr, cause) // say why the work's context ended, e.g. a lost lease
		}
		return res, k.release(ctx, cctx, key, token, ferr)
	}
	if cause != nil {
		return res, k.release(ctx, cctx, key, token, fmt.Errorf("idem: work for key %q cut off: %w", key, cause))
	}
	if !k.Caches(resp) {
		return res, k.release(ctx, cctx, key, token, nil)
	}
	defer cctx.cancel()
	// A failed Complete leaves the key claimed rather than released: the work has run, and a
	// retry that ran it again at once would be the duplicate this package exists to prevent.
	if err := k.Store.Complete(cctx, key, token, resp, orDefault(k.TTL, DefaultTTL)); err != nil {
		return res, fmt.Errorf("idem: complete %q: %w", key, err)
	}
	res.Stored = true
	return res, nil
}

// heartbeat renews the lease of a claim sent at start every Heartbeat, until stop is called. When
// the store refuses the token, or cannot be reached until the lease has run out, it cancels the
// work with a cause that matches ErrLeaseLost: from then on another holder may be running.
//
// Most work ends long before its first renewal is due, so nothing runs for it until then: the
// heartbeat waits in renewals, which starts it when its first renewal is due, and stop before
// that only takes it out again. Heartbeats are pooled, so that such work costs no allocation
// for them, nor a timer.
func (k *Keeper) heartbeat(work *workCtx, key, token string, start int64) *heartbeat {
	h := heartbeats.Get().(*heartbeat)
	h.k, h.work, h.key, h.token = k, work, key, token
	h.lease = orDefault(k.Lease, DefaultLease)
	h.every = orDefault(k.Heartbeat, h.lease/3)
	h.leaseEnd = start + int64(h.lease)
	renewals.add(h, start+int64(h.every))
	return h
}

// monoEpoch is the process's first reading of the clock. The renewals keep their times as
// nanoseconds since it on the monotonic clock (monoNow): they compare as the monotonic readings
// of time.Time do, and reading one costs one look at the clock, where time.Now takes two (wall
// and monotonic) and each time.Time sum checks for both.
var monoEpoch = time.Now()

// monoNow is the monotonic time since monoEpoch, in nanoseconds: always positive after it.
func monoNow() int64 { return int64(time.Since(monoEpoch)) }

// heartbeat is the state of one run's lease renewals.
type heartbeat struct {
	k            *Keeper
	work         *workCtx // cancelled with the cause when the lease is lost
	key, token   string
	leaseEnd     int64 // see monoNow
	lease, every time.Duration
	// due is when the first renewal is (see monoNow), and slot the heartbeat's place in
	// renewals.waiting until then; -1 once renewals has started it. Both belong to renewals.mu.
	due  int64
	slot int

	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc // ends the renewals once they run
	done    chan struct{}      // closed when they have ended
}

var heartbeats = sync.Pool{New: func() any { return new(heartbeat) }}

// renewals starts the heartbeats of the process when their first renewal is due, with one timer
// for all of them, set for the soonest, rather than one for each: almost every run ends before
// its first renewal, and taking it out of a list costs less than stopping a timer.
var renewals renewalQueue

// renewalQueue holds the heartbeats whose first renewal is not yet due, in no order. Its timer
// fires at next, or at some time before, when a heartbeat that waited for it has gone since;
// then it starts those that are due and is set again for the soonest of the rest.
type renewalQueue struct {
	mu      sync.Mutex
	waiting []*heartbeat
	timer   *time.Timer
	next    int64 // see monoNow; zero while the timer is stopped
}

// add makes h wait for due (see monoNow).
//
// It and remove, which every run calls, unlock without a defer, which would add a quarter to
// them: nothing between the lock and the unlock can panic.
func (q *renewalQueue) add(h *heartbeat, due int64) {
	q.mu.Lock()
	h.due, h.slot = due, len(q.waiting)
	q.waiting = append(q.waiting, h)
	if q.next == 0 || due < q.next {
		q.next = due
		if q.timer == nil {
			q.timer = time.AfterFunc(time.Duration(due-monoNow()), q.fire)
		} else {
			q.timer.Reset(time.Duration(due - monoNow()))
		}
	}
	q.mu.Unlock()
}

// remove takes h out, and reports whether it was still waiting, rather than started.
func (q *renewalQueue) remove(h *heartbeat) bool {
	q.mu.Lock()
	waiting := h.slot >= 0
	if waiting {
		q.take(h.slot)
	}
	q.mu.Unlock()
	return waiting
}

// take takes out the heartbeat waiting in slot i, and returns it; q.mu is held.
func (q *renewalQueue) take(i int) *heartbeat {
	h, last := q.waiting[i], len(q.waiting)-1
	q.waiting[i] = q.waiting[last]
	q.waiting[i].slot = i
	q.waiting[last] = nil
	q.waiting = q.waiting[:last]
	h.slot = -1
	return h
}

// fire starts the renewals of every heartbeat that is due, and sets the timer for the next.
func (q *renewalQueue) fire() {
	q.mu.Lock()
	now := monoNow()
	var due []*heartbeat
	q.next = 0
	for i := 0; i < len(q.waiting); {
		h := q.waiting[i]
		if now >= h.due {
			due = append(due, q.take(i))
			continue
		}
		if q.next == 0 || h.due < q.next {
			q.next = h.due
		}
		i++
	}
	if q.next != 0 {
		q.timer.Reset(time.Duration(q.next - now))
	}
	q.mu.Unlock()
	for _, h := range due {
		go h.renew()
	}
}

// renew renews the lease now and then every h.every, until stop or the lease is lost.
func (h *heartbeat) renew() {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	hctx, cancel := context.WithCancel(h.work)
	done := make(chan struct{})
	h.cancel, h.done = cancel, done
	h.mu.Unlock()
	defer close(done)
	if !h.beat(hctx) {
		return
	}
	tk := time.NewTicker(h.every)
	defer tk.Stop()
	for {
		select {
		case <-hctx.Done():
			return
		case <-tk.C:
		}
		if !h.beat(hctx) {
			return
		}
	}
}

// beat renews the lease once, and reports whether to go on.
func (h *heartbeat) beat(hctx context.Context) bool {
	sent := monoNow()
	err := h.k.Store.Extend(hctx, h.key, h.token, h.lease)
	switch {
	case err == nil:
		h.leaseEnd = sent + int64(h.lease)
	case hctx.Err() != nil:
		return false
	case errors.Is(err, ErrLeaseLost):
		h.work.cancel(fmt.Errorf("idem: renew lease of %q: %w", h.key, err))
		return false
	case monoNow() >= h.leaseEnd:
		h.work.cancel(fmt.Errorf("idem: renew lease of %q failed until it ran out: %w: %w", h.key, ErrLeaseLost, err))
		return false
	}
	return true
}

// stop ends the renewals and waits for a renewal under way. A heartbeat that was still waiting
// for its first renewal goes back to the pool; one that renewals started is left to the
// collector, as renew may still be about to look at it.
func (h *heartbeat) stop() {
	if renewals.remove(h) {
		h.k, h.work = nil, nil
		heartbeats.Put(h)
		return
	}
	h.mu.Lock()
	h.stopped = true
	cancel, wait := h.cancel, h.done
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-wait
	}
}

// release gives the key back, under rctx, and returns cause joined with any error of the release
// itself, which matches ErrNotReleased and is logged: whoever reports cause must not say the key
// is free for a retry. A lease already lost is not worth reporting twice.
func (k *Keeper) release(ctx context.Context, rctx *cleanupCtx, key, token string, cause error) error {
	defer rctx.cancel()
	err := k.Store.Release(rctx, key, token)
	if err == nil || (errors.Is(err, ErrLeaseLost) && errors.Is(cause, ErrLeaseLost)) {
		return cause
	}
	k.logger().ErrorContext(ctx, "idem: key not released after its work failed; a retry may find it in progress until its lease runs out",
		"key", key, "err", err, "cause", cause)
	return errors.Join(cause, fmt.Errorf("idem: release %q: %w: %w", key, ErrNotReleased, err))
}

func (k *Keeper) logger() *slog.Logger {
	if k.Logger != nil {
		return k.Logger
	}
	return slog.Default()
}

// runContexts are the contexts of one run, in one allocation: the work's, and the cleanup
// context of the Complete or Release after it — the caller's values without its cancellation,
// and a deadline CleanupTimeout away.
type runContexts struct {
	work    workCtx
	cleanup cleanupCtx
}

// workCtx is the work's context: what context.WithCancelCause(parent) would give, with nothing
// made for it until something needs it. Most work never asks for Done and is never cut off, and
// creating and cancelling a context it never looked at cost more than the rest of the run's
// bookkeeping. Until then parent answers for it (Err, Value, Deadline), and the cancel at the end
// of the run only marks it. Done, a cancel with a cause (a lost lease), or any question asked
// after that end, make the context it stands for: a child of parent, or, once the run has ended
// it while parent was live, one cancelled then, whatever becomes of parent afterwards.
type workCtx struct {
	parent context.Context
	made   atomic.Pointer[cancelCause]
	ended  atomic.Bool // cancelled at the end of the run before anything made the context
	mu     sync.Mutex  // for making
}

// cancelCause is a context made by context.WithCancelCause and its cancel.
type cancelCause struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// current returns the context w stands for, making it first if w has ended; nil while parent
// answers for w.
func (w *workCtx) current() context.Context {
	if m := w.made.Load(); m != nil {
		return m.ctx
	}
	if w.ended.Load() {
		return w.make().ctx
	}
	return nil
}

// make returns the context w stands for, made on the first call.
func (w *workCtx) make() *cancelCause {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.made.Load(); m != nil {
		return m
	}
	parent := w.parent
	if w.ended.Load() {
		parent = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithCancelCause(parent)
	if w.ended.Load() {
		cancel(nil)
	}
	m := &cancelCause{ctx, cancel}
	w.made.Store(m)
	return m
}

// cancel is the context's CancelCauseFunc. Ending a context nothing has made, while parent is
// live, only marks it.
func (w *workCtx) cancel(cause error) {
	w.mu.Lock()
	if cause == nil && w.made.Load() == nil && w.parent.Err() == nil {
		w.ended.Store(true)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	w.make().cancel(cause)
}

// cause is context.Cause of w, nil while w is live.
func (w *workCtx) cause() error {
	if w.Err() == nil {
		return nil
	}
	return context.Cause(w.make().ctx)
}

func (w *workCtx) Deadline() (time.Time, bool) { return w.parent.Deadline() }

func (w *workCtx) Done() <-chan struct{} { return w.make().ctx.Done() }

func (w *workCtx) Err() error {
	if c := w.current(); c != nil {
		return c.Err()
	}
	return w.parent.Err()
}

func (w *workCtx) Value(key any) any {
	if c := w.current(); c != nil {
		return c.Value(key)
	}
	return w.parent.Value(key)
}

func (w *workCtx) String() string { return fmt.Sprintf("%v.WithCancel", w.parent) }

// cleanupCtx is what context.WithTimeout(context.WithoutCancel(parent), timeout) would give, with
// nothing done for it that the store does not ask for: the clock is read for its deadline when
// the store first asks for the deadline, Done or Err (which a store that waits on anything does
// before it waits; a memory store never asks, so its Complete reads no clock for it), its timer
// starts only when Done is first asked for, and parent's values are read through
// context.WithoutCancel only when a store asks for one.
type cleanupCtx struct {
	parent  context.Context
	timeout time.Duration

	mu       sync.Mutex
	deadline time.Time // zero until asked for
	done     chan struct{}
	timer    *time.Timer
	err      error
}

// Value is parent's value, as context.WithoutCancel hands it on: without what would tie c to
// parent's cancellation (context.Cause of c is c's own).
func (c *cleanupCtx) Value(key any) any { return context.WithoutCancel(c.parent).Value(key) }

func (c *cleanupCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deadline.IsZero() {
		c.start(time.Now())
	}
	return c.deadline, true
}

func (c *cleanupCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		now := time.Now()
		switch left := c.start(now).Sub(now); {
		case c.err != nil:
			close(c.done)
		case left <= 0:
			c.endLocked(context.DeadlineExceeded)
		default:
			c.timer = time.AfterFunc(left, func() { c.end(context.DeadlineExceeded) })
		}
	}
	return c.done
}

func (c *cleanupCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if now := time.Now(); !now.Before(c.start(now)) {
		c.endLocked(context.DeadlineExceeded)
	}
	return c.err
}

// start returns the deadline, set timeout from now when first asked for; c.mu is held. The
// caller reads the clock, once for both the deadline and its own use of the time.
func (c *cleanupCtx) start(now time.Time) time.Time {
	if c.deadline.IsZero() {
		c.deadline = now.Add(c.timeout)
	}
	return c.deadline
}

// cancel ends c, as the CancelFunc of context.WithTimeout does.
func (c *cleanupCtx) cancel() { c.end(context.Canceled) }

// end ends c with err, unless it has ended already.
func (c *cleanupCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

// endLocked is end with c.mu held.
func (c *cleanupCtx) endLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
}

// Caches reports whether Do stores r for replays (see Cacheable).
func (k *Keeper) Caches(r Response) bool {
	if k.Cacheable != nil {
		return k.Cacheable(r)
	}
	return r.Status < 500
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
