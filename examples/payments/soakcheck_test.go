package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idemkit/examples/payments/processor"
)

// This file is the fault soak's checker (soak_test.go runs the soak): a pure function from what a
// run saw — every request the clients sent and its answer, every call the shared processor
// received, when each instance was started, paused and killed, when the store was down — to the
// broken promises. It counts executions where they happen, at the processor, never from the
// answers, and holds them to the runtime semantics of DESIGN.md:
//
//   - A key runs once, unless its holder let go. A second execution a lease after the first
//     claim is a takeover, and needs a holder that lost its lease: killed before it answered,
//     paused for long enough (soakPauseLoses), or cut off from the store while it ran. Sooner, it
//     needs the first request to have been answered with a 5xx of the handler, which released the
//     key, while the store answered. Any other second execution is a duplicate the spec does not
//     allow.
//   - Every execution has a claim: the request that made it was not answered as one that never
//     reached the handler (409, 422, a replay, or 503 store-unavailable).
//   - Doubles are deduplicated downstream: every execution of a key uses one derived key, no other
//     key uses it, and the processor charged it at most once. A paused holder's double — a
//     takeover a lease after a claim whose holder was stopped past soakPauseLoses — is the one
//     the spec predicts for a holder that is still alive, and it is held to this as every other.
//   - No 2xx without its effect: every 201 names the charge the processor made for that key, for
//     the key's amount; a declined card is answered 402, never 201.
//   - The fail-closed answers carry Retry-After and problem+json: 409 and 503.
//   - No key is stuck: the final pass, after the faults, got a 201 or 402 for every key.

// soakHistory is what one soak run saw.
type soakHistory struct {
	// lease is the charge's lease: chargeLease in charges/charge_idem.go.
	lease    time.Duration
	keys     []soakKey
	attempts []soakAttempt
	calls    []processor.Call
	incs     []soakIncarnation
	// outages are the spans the store was down: from just before it was killed until it answered
	// again.
	outages []soakSpan
}

// soakKey is one logical operation: an account's Idempotency-Key, with its own amount so that a
// processor call names its key even when its derived key is wrong.
type soakKey struct {
	account, key string
	amount       int64
	declined     bool // sent with processor.DeclinedCard
}

// soakAttempt is one HTTP request a client sent.
type soakAttempt struct {
	id       string // its X-Request-Id
	key, inc int    // indexes into keys and incs
	sent     time.Time
	answered time.Time // or when the request failed
	// status is the answer's, 0 when the client got none (the instance died, or refused).
	status                         int
	replayed                       bool
	contentType, problem, retryAft string // problem: the type of a problem+json answer
	charge                         processor.Charge
	err                            string
	final                          bool // sent by the final pass, after the faults stopped
}

// soakIncarnation is one process of the example: a slot's instance between its start and its
// death.
type soakIncarnation struct {
	slot, pid int
	started   time.Time
	killed    time.Time // zero when it lived to the end
	pauses    []soakSpan
}

type soakSpan struct{ from, to time.Time }

func (s soakSpan) overlaps(from, to time.Time) bool { return !s.to.Before(from) && !to.Before(s.from) }

// soakSlack absorbs the distance between the clocks involved, all on one machine: a claim's lease
// is counted by the store from when it took the claim, after the client sent the request.
const soakSlack = 200 * time.Millisecond

// soakPauseLoses is how long a pause must be to cost its holder the lease: the runtime renews
// every third of a lease, so a pause shorter than half of one always leaves a renewal in time.
func soakPauseLoses(lease time.Duration) time.Duration { return lease / 2 }

// soakReport is the checker's verdict and what it counted.
type soakReport struct {
	violations []string
	executions int
	keysRun    int // keys with at least one execution
	doubles    int // keys with more than one
	// takeovers counts, by the cause of the lapsed lease (killed, paused, outage), the executions
	// that took a key over from an earlier holder; rerun counts those after a released key.
	takeovers map[string]int
	rerun     int
	charges   int
	statuses  map[string]int // "201", "201 replayed", "409", "503 store-unavailable", "no answer", ...
	cancelled int            // calls whose caller was gone by their end
	finalMax  time.Duration  // the longest a key took to settle in the final pass
}

func (r *soakReport) fail(format string, args ...any) {
	r.violations = append(r.violations, fmt.Sprintf(format, args...))
}

func (r soakReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d executions over %d keys (%d with more than one), %d charges; takeovers %v, %d reruns after a release; %d calls with their caller gone; final pass settled every key within %v\n",
		r.executions, r.keysRun, r.doubles, r.charges, r.takeovers, r.rerun, r.cancelled, r.finalMax.Round(time.Millisecond))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.statuses {
			if !yield(k) {
				return
			}
		}
	})
	b.WriteString("answers:")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s x%d;", k, r.statuses[k])
	}
	return b.String()
}

// checkSoak checks h against the promises above.
func checkSoak(h soakHistory) soakReport {
	r := soakReport{takeovers: map[string]int{}, statuses: map[string]int{}}
	byID := map[string]int{}
	for i, a := range h.attempts {
		byID[a.id] = i
		r.statuses[a.kind()]++
		checkAnswer(&r, h, a)
	}

	// Executions, per key.
	perKey := make([][]int, len(h.keys)) // indexes into h.calls, in the order they arrived
	derived := map[string]int{}          // derived key -> the key it belongs to
	for i, c := range h.calls {
		r.executions++
		if c.Cancelled {
			r.cancelled++
		}
		ai, ok := byID[c.RequestID]
		if !ok {
			r.fail("the processor was called for request %q, which no client sent", c.RequestID)
			continue
		}
		a := h.attempts[ai]
		k := h.keys[a.key]
		if c.Amount != k.amount {
			r.fail("request %s for %s charged %d, want its key's %d", a.id, k, c.Amount, k.amount)
		}
		if !a.ranHandler() {
			r.fail("run without a claim: request %s for %s reached the processor, yet was answered %s", a.id, k, a.kind())
		}
		if other, ok := derived[c.Key]; ok && other != a.key {
			r.fail("%s and %s share the derived key %s", h.keys[other], k, c.Key)
		}
		derived[c.Key] = a.key
		perKey[a.key] = append(perKey[a.key], i)
	}
	for k, calls := range perKey {
		checkExecutions(&r, h, k, calls, byID)
	}
	checkCharges(&r, h, perKey, byID)
	checkFinal(&r, h)
	return r
}

func (k soakKey) String() string { return fmt.Sprintf("%s's key %q", k.account, k.key) }

// kind names an answer for the counts and the messages.
func (a soakAttempt) kind() string {
	switch {
	case a.status == 0:
		return "no answer"
	case a.problem != "":
		return fmt.Sprintf("%d %s", a.status, strings.TrimPrefix(a.problem, "urn:idemkit:problem:"))
	case a.replayed:
		return fmt.Sprintf("%d replayed", a.status)
	}
	return fmt.Sprint(a.status)
}

// ranHandler: the answer is not one the middleware gives without running the handler. A request
// without an answer may have run.
func (a soakAttempt) ranHandler() bool {
	switch {
	case a.status == 0:
		return true
	case a.replayed, a.status == 409, a.status == 422, a.status == 400:
		return false
	case a.problem == "urn:idemkit:problem:store-unavailable":
		return false
	}
	return true
}

// released: the handler ran and answered a 5xx, so its key was given back (or, if the store could
// not take it back, held until its lease ran out).
func (a soakAttempt) released() bool {
	return a.status >= 500 && a.problem != "urn:idemkit:problem:store-unavailable"
}

// checkAnswer holds one answer to the statuses the soak allows.
func checkAnswer(r *soakReport, h soakHistory, a soakAttempt) {
	k := h.keys[a.key]
	switch {
	case a.status == 0:
	case a.status == 409 || a.status == 503 && a.problem != "":
		if a.contentType != "application/problem+json" || a.retryAft == "" {
			r.fail("request %s for %s: %d with Content-Type %q and Retry-After %q, want problem+json with a Retry-After",
				a.id, k, a.status, a.contentType, a.retryAft)
		}
	case a.status == 201:
		if k.declined {
			r.fail("request %s for %s: 201 for a declined card", a.id, k)
		}
	case a.status == 402:
		if !k.declined {
			r.fail("request %s for %s: 402 for a good card", a.id, k)
		}
	case a.status == 502 || a.status == 503:
		// The handler ran and failed: its key was released for the retry.
	default:
		r.fail("request %s for %s: %s, which no request of the soak should get", a.id, k, a.kind())
	}
}

// checkExecutions holds every pair of executions of key k to the rules at the top.
func checkExecutions(r *soakReport, h soakHistory, k int, calls []int, byID map[string]int) {
	if len(calls) == 0 {
		return
	}
	r.keysRun++
	if len(calls) > 1 {
		r.doubles++
	}
	at := func(i int) (processor.Call, soakAttempt) {
		c := h.calls[calls[i]]
		return c, h.attempts[byID[c.RequestID]]
	}
	for j := 1; j < len(calls); j++ {
		for i := range j {
			ci, ai := at(i)
			cj, aj := at(j)
			if ci.Key != cj.Key {
				r.fail("%s ran under two derived keys: %s; %s", h.keys[k], describeCall(h, ci, ai), describeCall(h, cj, aj))
			}
			why, ok := explainPair(h, ci, ai, cj, aj)
			if !ok {
				r.fail("%s ran twice: %s; %s", h.keys[k], describeCall(h, ci, ai), describeCall(h, cj, aj))
				continue
			}
			if i == j-1 {
				if why == "released" {
					r.rerun++
				} else {
					r.takeovers[why]++
				}
			}
		}
	}
}

// explainPair says why two executions of one key are allowed (a is the one that reached the
// processor first), or that they are not.
func explainPair(h soakHistory, a processor.Call, aa soakAttempt, b processor.Call, ab soakAttempt) (string, bool) {
	// A takeover: the later claim came a lease after the earlier, whose holder had lost it. The
	// earlier claim is usually the one whose call came first, but a holder paused between its
	// claim and its call calls after the one that took over.
	if !b.Start.Before(aa.sent.Add(h.lease - soakSlack)) {
		if why := lostLease(h, aa, b.Start); why != "" {
			return why, true
		}
	}
	if !a.Start.Before(ab.sent.Add(h.lease - soakSlack)) {
		if why := lostLease(h, ab, a.Start); why != "" {
			return why, true
		}
	}
	// A rerun: the first's handler failed after its call and gave the key back, which takes a
	// store that answers.
	if aa.released() && !b.Start.Before(a.End) && !h.down(a.End, aa.answered) {
		return "released", true
	}
	return "", false
}

// down: the store was down all the time from from to to.
func (h soakHistory) down(from, to time.Time) bool {
	for _, o := range h.outages {
		if !from.Before(o.from) && !o.to.Before(to) {
			return true
		}
	}
	return false
}

// lostLease says how the holder that sent a could have lost its lease before until: killed before
// it answered, paused long enough, or cut off from the store while its request ran.
func lostLease(h soakHistory, a soakAttempt, until time.Time) string {
	inc := h.incs[a.inc]
	if !inc.killed.IsZero() && !inc.killed.Before(a.sent) && a.status == 0 {
		return "killed"
	}
	for _, p := range inc.pauses {
		if p.to.Sub(p.from) >= soakPauseLoses(h.lease) && p.overlaps(a.sent, until) {
			return "paused"
		}
	}
	end := a.answered
	if end.IsZero() {
		end = until
	}
	for _, o := range h.outages {
		if o.overlaps(a.sent, end) {
			return "outage"
		}
	}
	return ""
}

func describeCall(h soakHistory, c processor.Call, a soakAttempt) string {
	inc := h.incs[a.inc]
	s := fmt.Sprintf("call at %s (derived key %s, charge %q, caller gone %v) by request %s sent at %s to instance %d (slot %d, pid %d), answered %s at %s",
		c.Start.Format("15:04:05.000"), c.Key, c.Charge, c.Cancelled, a.id, a.sent.Format("15:04:05.000"),
		a.inc, inc.slot, inc.pid, a.kind(), a.answered.Format("15:04:05.000"))
	if !inc.killed.IsZero() {
		s += ", instance killed at " + inc.killed.Format("15:04:05.000")
	}
	for _, p := range inc.pauses {
		s += fmt.Sprintf(", paused %s-%s", p.from.Format("15:04:05.000"), p.to.Format("15:04:05.000"))
	}
	return s
}

// checkCharges: one charge per key at most, and every 201 names it.
func checkCharges(r *soakReport, h soakHistory, perKey [][]int, byID map[string]int) {
	charged := make([]string, len(h.keys)) // the key's charge
	for k, calls := range perKey {
		for _, i := range calls {
			c := h.calls[i]
			if !c.Charged {
				continue
			}
			r.charges++
			if charged[k] != "" {
				r.fail("%s was charged twice: %s and %s", h.keys[k], charged[k], c.Charge)
			}
			charged[k] = c.Charge
		}
	}
	for _, a := range h.attempts {
		if a.status != 201 {
			continue
		}
		k := h.keys[a.key]
		switch {
		case charged[a.key] == "":
			r.fail("request %s for %s: 201 with charge %q, but the processor made no charge for the key", a.id, k, a.charge.ID)
		case a.charge.ID != charged[a.key]:
			r.fail("request %s for %s: 201 with charge %q, but the key's charge is %s", a.id, k, a.charge.ID, charged[a.key])
		case a.charge.Amount != k.amount:
			r.fail("request %s for %s: 201 for %d, want %d", a.id, k, a.charge.Amount, k.amount)
		}
	}
}

// checkFinal: the final pass settled every key with a 201 or a 402.
func checkFinal(r *soakReport, h soakHistory) {
	first := make([]time.Time, len(h.keys))
	last := make([]*soakAttempt, len(h.keys))
	for i := range h.attempts {
		a := &h.attempts[i]
		if !a.final {
			continue
		}
		if first[a.key].IsZero() {
			first[a.key] = a.sent
		}
		if last[a.key] == nil || a.sent.After(last[a.key].sent) {
			last[a.key] = a
		}
	}
	stuck := 0
	for k, a := range last {
		switch {
		case a == nil:
			r.fail("%s had no final retry", h.keys[k])
		case a.status != 201 && a.status != 402:
			stuck++
			if stuck <= 10 {
				r.fail("stuck: %s still answered %s to its final retry %s after %v", h.keys[k], a.kind(), a.id, a.answered.Sub(first[k]).Round(time.Millisecond))
			}
		default:
			r.finalMax = max(r.finalMax, a.answered.Sub(first[k]))
		}
	}
	if stuck > 10 {
		r.fail("%d keys stuck in all", stuck)
	}
}

// TestCheckSoak holds the checker to its rules on made-up histories: one key of a good card
// (acct_1's k1, 1000) unless a case adds more, two instances, a 30 s lease.
func TestCheckSoak(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ch := processor.Charge{ID: "ch_000001", Amount: 1000, Currency: "eur", Status: "succeeded"}
	// attempt: request id sent at s to instance inc, answered after 10ms with status.
	attempt := func(id string, s float64, inc, status int) soakAttempt {
		a := soakAttempt{id: id, inc: inc, sent: at(s), answered: at(s + 0.01), status: status}
		switch status {
		case 201:
			a.charge = ch
		case 409, 503:
			a.contentType, a.retryAft = "application/problem+json", "1"
			a.problem = map[int]string{409: "urn:idemkit:problem:in-progress", 503: "urn:idemkit:problem:store-unavailable"}[status]
		}
		return a
	}
	final := func(id string, s float64) soakAttempt {
		a := attempt(id, s, 0, 201)
		a.replayed, a.final = true, true
		return a
	}
	// call: request id reached the processor at s; the first call charges.
	call := func(id string, s float64, charged bool) processor.Call {
		return processor.Call{Key: "charge-k1", RequestID: id, Amount: 1000, Start: at(s), End: at(s + 0.005), Charge: ch.ID, Charged: charged}
	}
	base := func() soakHistory {
		return soakHistory{
			lease: 30 * time.Second,
			keys:  []soakKey{{account: "acct_1", key: "k1", amount: 1000}},
			incs:  []soakIncarnation{{slot: 0, pid: 100, started: t0}, {slot: 1, pid: 101, started: t0}},
		}
	}
	noAnswer := func(a soakAttempt) soakAttempt {
		a.status, a.charge, a.err = 0, processor.Charge{}, "connection reset"
		return a
	}

	cases := []struct {
		name string
		h    func() soakHistory
		want string // a violation's text, "" for none
		why  string // the reason for the second execution, when there is one
	}{
		{"one execution, its retries replayed", func() soakHistory {
			h := base()
			r2 := attempt("r2", 1.001, 1, 409)
			r3 := attempt("r3", 2, 1, 201)
			r3.replayed = true
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), r2, r3, final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true)}
			return h
		}, "", ""},
		{"two executions within a lease, the first completed", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), attempt("r2", 1.5, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 1.502, false)}
			return h
		}, "ran twice", ""},
		{"a takeover a lease after a killed holder", func() soakHistory {
			h := base()
			h.incs[0].killed = at(1.003)
			h.attempts = []soakAttempt{noAnswer(attempt("r1", 1, 0, 0)), attempt("r2", 31.5, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 31.502, false)}
			return h
		}, "", "killed"},
		{"a takeover of a killed holder before its lease ran out", func() soakHistory {
			h := base()
			h.incs[0].killed = at(1.003)
			h.attempts = []soakAttempt{noAnswer(attempt("r1", 1, 0, 0)), attempt("r2", 20, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 20.002, false)}
			return h
		}, "ran twice", ""},
		{"a takeover of a holder that answered, alive and unpaused", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), attempt("r2", 40, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 40.002, false)}
			return h
		}, "ran twice", ""},
		{"a holder paused past its lease calls after the takeover", func() soakHistory {
			h := base()
			h.incs[0].pauses = []soakSpan{{at(1.001), at(41)}}
			r1 := attempt("r1", 1, 0, 201)
			r1.answered = at(41.1)
			h.attempts = []soakAttempt{r1, attempt("r2", 35, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r2", 35.002, true), call("r1", 41.01, false)}
			return h
		}, "", "paused"},
		{"a paused holder's double under another derived key", func() soakHistory {
			h := base()
			h.incs[0].pauses = []soakSpan{{at(1.001), at(41)}}
			r1 := attempt("r1", 1, 0, 201)
			r1.answered = at(41.1)
			h.attempts = []soakAttempt{r1, attempt("r2", 35, 1, 201), final("f1", 50)}
			other := call("r1", 41.01, false)
			other.Key = "charge-other"
			h.calls = []processor.Call{call("r2", 35.002, true), other}
			return h
		}, "ran under two derived keys", "paused"},
		{"a paused holder taken over before its lease ran out", func() soakHistory {
			h := base()
			h.incs[0].pauses = []soakSpan{{at(1.001), at(41)}}
			r1 := attempt("r1", 1, 0, 201)
			r1.answered = at(41.1)
			h.attempts = []soakAttempt{r1, attempt("r2", 20, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r2", 20.002, true), call("r1", 41.01, false)}
			return h
		}, "ran twice", ""},
		{"a short pause excuses no double", func() soakHistory {
			h := base()
			h.incs[0].pauses = []soakSpan{{at(1.001), at(6)}}
			r1 := attempt("r1", 1, 0, 201)
			r1.answered = at(6.1)
			h.attempts = []soakAttempt{r1, attempt("r2", 35, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 6.01, true), call("r2", 35.002, false)}
			return h
		}, "ran twice", ""},
		{"the store went down while the holder ran: taken over a lease later", func() soakHistory {
			h := base()
			h.outages = []soakSpan{{at(1.004), at(3)}}
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), attempt("r2", 31.5, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 31.502, false)}
			return h
		}, "", "outage"},
		{"a rerun after the handler's 5xx released the key", func() soakHistory {
			h := base()
			r1 := attempt("r1", 1, 0, 502)
			h.attempts = []soakAttempt{r1, attempt("r2", 1.5, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 1.502, false)}
			return h
		}, "", "released"},
		{"no rerun within a lease while the store could not take the key back", func() soakHistory {
			h := base()
			h.outages = []soakSpan{{at(0.5), at(4)}}
			r1 := attempt("r1", 1, 0, 503)
			r1.problem = "urn:idemkit:problem:outcome-unrecorded"
			h.attempts = []soakAttempt{r1, attempt("r2", 5, 1, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r2", 5.002, false)}
			return h
		}, "ran twice", ""},
		{"a run without a claim", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 503), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true)}
			return h
		}, "run without a claim", ""},
		{"a call from a request nobody sent", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true), call("r9", 1.003, false)}
			return h
		}, "which no client sent", ""},
		{"a takeover under another derived key charges twice", func() soakHistory {
			h := base()
			h.incs[0].killed = at(1.003)
			h.attempts = []soakAttempt{noAnswer(attempt("r1", 1, 0, 0)), attempt("r2", 31.5, 1, 201), final("f1", 50)}
			second := call("r2", 31.502, true)
			second.Key, second.Charge = "charge-other", "ch_000002"
			h.calls = []processor.Call{call("r1", 1.002, true), second}
			return h
		}, "charged twice", "killed"},
		{"two keys share a derived key", func() soakHistory {
			h := base()
			h.keys = append(h.keys, soakKey{account: "acct_2", key: "k1", amount: 1001})
			r2 := attempt("r2", 1, 1, 201)
			r2.key, r2.charge = 1, processor.Charge{ID: "ch_000001", Amount: 1001}
			f2 := final("f2", 50)
			f2.key, f2.charge = 1, r2.charge
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), r2, final("f1", 50), f2}
			other := call("r2", 1.003, false)
			other.Amount = 1001
			h.calls = []processor.Call{call("r1", 1.002, true), other}
			return h
		}, "share the derived key", ""},
		{"a 201 naming another charge", func() soakHistory {
			h := base()
			r1 := attempt("r1", 1, 0, 201)
			r1.charge.ID = "ch_000002"
			h.attempts = []soakAttempt{r1, final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true)}
			return h
		}, "but the key's charge is ch_000001", ""},
		{"a 201 without a charge", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), final("f1", 50)}
			return h
		}, "the processor made no charge", ""},
		{"a 402 for a good card", func() soakHistory {
			h := base()
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 402), final("f1", 50)}
			h.calls = []processor.Call{call("r1", 1.002, true)}
			return h
		}, "402 for a good card", ""},
		{"a 503 without Retry-After", func() soakHistory {
			h := base()
			r1 := attempt("r1", 1, 0, 503)
			r1.retryAft = ""
			h.attempts = []soakAttempt{r1, attempt("r2", 2, 0, 201), final("f1", 50)}
			h.calls = []processor.Call{call("r2", 2.002, true)}
			return h
		}, "want problem+json with a Retry-After", ""},
		{"a key stuck after the faults", func() soakHistory {
			h := base()
			f1 := attempt("f1", 50, 0, 409)
			f1.final = true
			h.attempts = []soakAttempt{attempt("r1", 1, 0, 201), f1}
			h.calls = []processor.Call{call("r1", 1.002, true)}
			return h
		}, "stuck", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := checkSoak(tc.h())
			got := strings.Join(r.violations, "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("violations:\n%s\nwant none", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("violations:\n%s\nwant one saying %q", got, tc.want)
			}
			if tc.why != "" && r.takeovers[tc.why]+map[bool]int{true: r.rerun}[tc.why == "released"] != 1 {
				t.Errorf("takeovers %v, reruns %d: want the second execution counted as %s", r.takeovers, r.rerun, tc.why)
			}
		})
	}
}
