package design

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// transport is how an operation is reached, which decides the words its
// collision answers and its failures are given in: an HTTP caller gets a
// status, a queue consumer acks, nacks or dead-letters, a workflow activity
// returns a retryable or non-retryable error, a scheduled job skips and
// exits 0.
type transport struct {
	id string // http, queue, activity, schedule
	// completed and inProgress list the policies the transport can follow,
	// the default first; aliases maps the words of another transport to
	// this one's (a preset written for HTTP, "ack" for a scheduled job).
	completed, inProgress []string
	aliases               map[string]string
}

var transports = map[string]transport{
	spec.SourceClient:  {id: "http", completed: []string{"replay"}, inProgress: []string{"conflict", "wait"}},
	spec.SourceWebhook: {id: "http", completed: []string{"ack", "replay"}, inProgress: []string{"conflict", "wait"}},
	spec.SourceQueue: {id: "queue", completed: []string{"ack"}, inProgress: []string{"requeue"},
		aliases: map[string]string{"nack": "requeue"}},
	spec.SourceWorkflow: {id: "activity", completed: []string{"replay"}, inProgress: []string{"retry", "wait"},
		aliases: map[string]string{"conflict": "retry"}},
	spec.SourceCron: {id: "schedule", completed: []string{"skip"}, inProgress: []string{"skip", "wait"},
		aliases: map[string]string{"ack": "skip", "conflict": "skip"}},
}

// transportOf returns the transport of a key source.
func transportOf(src string) transport {
	if t, ok := transports[src]; ok {
		return t
	}
	return transports[spec.SourceClient]
}

// policy resolves an answered policy among the allowed ones; empty takes
// the default.
func (t transport) policy(field, answer string, allowed []string, src string) (string, error) {
	answer = strings.ToLower(strings.TrimSpace(answer))
	if answer == "" {
		return allowed[0], nil
	}
	if to, ok := t.aliases[answer]; ok {
		answer = to
	}
	if !slices.Contains(allowed, answer) {
		return "", inputErr(field, "%q is not an answer a %s key can give; one of %s (%s)", answer, src, strings.Join(allowed, ", "), t.why())
	}
	return answer, nil
}

func (t transport) why() string {
	switch t.id {
	case "queue":
		return "a queue consumer acks, nacks or dead-letters; it has no status code to answer with"
	case "activity":
		return "a workflow activity returns its result or an error the engine retries or not"
	case "schedule":
		return "a scheduled job skips a slot that is done or taken, and exits 0"
	}
	return "an HTTP caller gets a status"
}

// rowAnswer is one collision row in transport terms.
type rowAnswer struct {
	action, response string
	status           int
}

// collisionRow answers case id under policy for this transport. d is
// what the row needs to know: the Retry-After or requeue delay, the lease,
// the heartbeat, the dead-letter queue.
func (t transport) row(id, policy string, s *spec.Spec, retryAfter rules.Duration) rowAnswer {
	deadLetter := s.Failure.DeadLetter
	if deadLetter == "" {
		deadLetter = "the dead-letter queue"
	}
	switch t.id + "/" + id + "/" + policy {
	case "http/completed/replay":
		return rowAnswer{"replay", "200 + cached response (stored status, headers and body; Idempotent-Replayed: true)", 200}
	case "http/completed/ack":
		return rowAnswer{"ack", "200 without processing: acknowledge the delivered event so the sender stops redelivering it", 200}
	case "http/in_progress/conflict":
		return rowAnswer{"conflict", "409 + Retry-After: " + retryAfter.String() + "; the caller retries later and the first attempt's result is replayed then", 409}
	case "http/in_progress/wait":
		return rowAnswer{"conflict", "wait briefly on the claim, then 409 + Retry-After: " + retryAfter.String(), 409}
	case "http/mismatch/":
		return rowAnswer{"reject", "422 problem+json, logged loudly with the key and both fingerprints; the second payload is never processed", 422}

	case "queue/completed/ack":
		return rowAnswer{"ack", "ack: delete the message (or commit its offset) without processing it again", 0}
	case "queue/in_progress/requeue":
		return rowAnswer{"nack", fmt.Sprintf("nack: leave the message unacked and make it visible again in %s (change its visibility timeout, or requeue with that delay); %s", retryAfter, holderVisibility(s)), 0}
	case "queue/mismatch/":
		return rowAnswer{"dead-letter", "dead-letter the message at once to " + deadLetter + " with the reason \"idempotency key reused with a different payload\", logged loudly with the key and both fingerprints; never processed, never retried", 0}

	case "activity/completed/replay":
		return rowAnswer{"replay", "return the stored result: the activity completes without repeating its side effects", 0}
	case "activity/in_progress/retry":
		return rowAnswer{"retryable-error", fmt.Sprintf("fail this attempt with a retryable error (\"in progress\"); the engine retries it after its backoff (about %s) while the first attempt heartbeats", retryAfter), 0}
	case "activity/in_progress/wait":
		return rowAnswer{"retryable-error", fmt.Sprintf("wait up to %s on the claim, then fail with a retryable error; the engine retries after its backoff", retryAfter), 0}
	case "activity/mismatch/":
		return rowAnswer{"non-retryable-error", "fail with a non-retryable error naming the key and both fingerprints, logged loudly; the workflow sees the failure, and the engine does not retry it", 0}

	case "schedule/completed/skip":
		return rowAnswer{"skip", "skip: log that the slot is already done and exit 0", 0}
	case "schedule/in_progress/skip":
		return rowAnswer{"skip", "skip: another run holds the slot's live lease; log it and exit 0", 0}
	case "schedule/in_progress/wait":
		return rowAnswer{"skip", fmt.Sprintf("wait up to %s for the other run, then skip and exit 0", retryAfter), 0}
	case "schedule/mismatch/":
		return rowAnswer{"refuse", "refuse: log loudly that the slot's key was claimed with different parameters and exit non-zero, without running the job", 0}
	}
	if id == spec.CaseExpired {
		what := map[string]string{"http": "request", "queue": "message", "activity": "activity attempt", "schedule": "run of the slot"}[t.id]
		return rowAnswer{"process", "processed as a new " + what + ": the TTL was chosen to outlast every retry window, so only a replay from outside it lands here", 0}
	}
	return rowAnswer{}
}

// failure is what a failed attempt answers, in the transport's terms.
func (t transport) failure(s *spec.Spec, maxDeliveries int, deadLetter string) spec.Failure {
	f := spec.Failure{Transport: t.id}
	switch t.id {
	case "http":
		f.Answer = "a 5xx, a panic or a cancelled request releases the key and is not stored; the caller's retry runs the operation again"
		if s.Key.Source == spec.SourceWebhook {
			f.Answer = "a 5xx releases the key and is not stored; the sender redelivers on its own schedule, and the redelivery runs the operation again"
		}
	case "queue":
		f.MaxDeliveries, f.DeadLetter = maxDeliveries, deadLetter
		where := deadLetter
		if where == "" {
			where = "the dead-letter queue"
		}
		f.Answer = fmt.Sprintf("release the key and nack (or let the visibility timeout lapse) so the message is redelivered; after %d deliveries the broker moves it to %s (a redrive policy's maxReceiveCount), and the consumer logs the last error as the reason", maxDeliveries, where)
	case "activity":
		f.Answer = "release the key and return the error: retryable for a transient failure (a timeout, a 5xx downstream), non-retryable for a permanent one (a validation error, a 4xx downstream), so the engine retries only what can succeed"
	case "schedule":
		f.Answer = "release the key and exit non-zero, so the scheduler's retry or the next catch-up run does the slot again"
	}
	return f
}

// holderVisibility says how the holder keeps its own delivery from
// coming back while it works.
func holderVisibility(s *spec.Spec) string {
	if s.TTL.Heartbeat > 0 {
		return fmt.Sprintf("the holder keeps its own delivery invisible by extending its visibility timeout with every %s heartbeat", s.TTL.Heartbeat)
	}
	return "a holder whose work outlasts the visibility timeout extends it (a heartbeat), or its own delivery comes back while it works"
}
