package design

import (
	"fmt"
	"strings"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// transport is how an operation is reached, which decides the words its
// collision answers and its failures are given in: an HTTP caller gets a
// status, a queue consumer acks, nacks or dead-letters, a workflow activity
// returns a retryable or non-retryable error, a scheduled job skips and
// exits 0. The answers themselves are the catalogue's (each collision
// row's answers, by the sources they fit); the transport adds this
// design's numbers to them.
type transport struct {
	id  string // http, queue, activity, schedule
	src string // the key source
	// aliases maps the words of another transport to this one's, so that
	// a preset written for HTTP ("ack", "conflict" for a scheduled job)
	// still decides.
	aliases map[string]string
}

var transportIDs = map[string]string{
	spec.SourceClient: spec.TransportHTTP, spec.SourceWebhook: spec.TransportHTTP,
	spec.SourceQueue: spec.TransportQueue, spec.SourceWorkflow: spec.TransportActivity, spec.SourceCron: spec.TransportSchedule,
}

var transportAliases = map[string]map[string]string{
	spec.SourceQueue:    {"nack": "requeue", "conflict": "requeue", "wait": "requeue", "replay": "ack"},
	spec.SourceWorkflow: {"conflict": "retry", "ack": "replay"},
	spec.SourceCron:     {"ack": "skip", "conflict": "skip", "replay": "skip"},
}

// transportOf returns the transport of a key source.
func transportOf(src string) transport {
	id, ok := transportIDs[src]
	if !ok {
		id = spec.TransportHTTP
	}
	return transport{id: id, src: src, aliases: transportAliases[src]}
}

// answer resolves the answer to collision row among the catalogue's
// answers that fit the source; empty takes the first, the default.
// An answer in another transport's words (a queue's "conflict") is taken
// as this transport's (requeue), with a note saying so.
func (t transport) answer(cat *rules.Catalog, field, row, answer string) (*rules.CollisionAnswer, string, error) {
	fits := cat.CollisionAnswers(row, t.src)
	if len(fits) == 0 {
		return nil, "", fmt.Errorf("catalogue has no answer to the %s row for a %s key", row, t.src)
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	if answer == "" {
		return &fits[0], "", nil
	}
	note := ""
	if to, ok := t.aliases[answer]; ok {
		note = fmt.Sprintf("%s: %s is another transport's word; a %s key answers %s (%s)", field, answer, t.src, to, t.why())
		answer = to
	}
	ids := make([]string, len(fits))
	for i := range fits {
		if fits[i].ID == answer {
			return &fits[i], note, nil
		}
		ids[i] = fits[i].ID
	}
	return nil, "", inputErr(field, "%q is not an answer a %s key can give; one of %s (%s)", answer, t.src, strings.Join(ids, ", "), t.why())
}

func (t transport) why() string {
	switch t.id {
	case spec.TransportQueue:
		return "a queue consumer acks, nacks or dead-letters; it has no status code to answer with"
	case spec.TransportActivity:
		return "a workflow activity returns its result or an error the engine retries or not"
	case spec.TransportSchedule:
		return "a scheduled job skips a slot that is done or taken, and exits 0"
	}
	return "an HTTP caller gets a status"
}

// row answers one collision row: the catalogue's answer in the
// transport's terms, with this design's delay, heartbeat and dead-letter
// queue, and an HTTP status only where the transport is HTTP.
func (t transport) row(row string, a *rules.CollisionAnswer, s *spec.Spec, retryAfter rules.Duration) spec.Collision {
	c := spec.Collision{Case: row, Policy: a.ID, Action: a.ID, Response: strings.TrimSpace(a.Response)}
	if t.id == spec.TransportHTTP {
		c.Status = a.Status
	}
	// The catalogue's ack answers a webhook sender and a queue in one
	// sentence; each transport reads only its own half.
	switch t.id + "/" + a.ID {
	case "http/ack":
		c.Response = "2xx without a body: acknowledge the delivery so the sender stops redelivering it; nothing is done again"
	case "queue/ack":
		c.Response = "ack: delete the message (or commit its offset) so the broker stops redelivering it; nothing is done again"
	}
	var extra string
	switch t.id + "/" + a.ID {
	case "http/conflict", "http/wait":
		extra = "Retry-After: " + retryAfter.String()
	case "queue/requeue":
		extra = "here the message is visible again after " + retryAfter.String() + "; " + holderVisibility(s)
	case "queue/dead-letter":
		extra = "here to " + orWord(s.Failure.DeadLetter, "the queue's dead-letter queue") + ", logged with the key and both fingerprints"
	case "activity/retry":
		extra = fmt.Sprintf("the engine's backoff is about %s", retryAfter)
	case "schedule/wait":
		extra = fmt.Sprintf("after waiting up to %s for the other run", retryAfter)
	}
	if extra != "" {
		c.Response = strings.TrimSuffix(c.Response, ".") + "; " + extra
	}
	return c
}

// failure is what a failed attempt answers, in the transport's terms.
func (t transport) failure(s *spec.Spec, maxDeliveries int, deadLetter string) spec.Failure {
	f := spec.Failure{Transport: t.id}
	switch t.id {
	case spec.TransportHTTP:
		f.Answer = "a 5xx, a panic or a cancelled request releases the key and is not stored; the caller's retry runs the operation again"
		if s.Key.Source == spec.SourceWebhook {
			f.Answer = "a 5xx releases the key and is not stored; the sender redelivers on its own schedule, and the redelivery runs the operation again"
		}
	case spec.TransportQueue:
		f.MaxDeliveries, f.DeadLetter = maxDeliveries, deadLetter
		where := deadLetter
		if where == "" {
			where = "the dead-letter queue"
		}
		f.Answer = fmt.Sprintf("release the key and nack (or let the visibility timeout lapse) so the message is redelivered; after %d deliveries the broker moves it to %s (a redrive policy's maxReceiveCount), and the consumer logs the last error as the reason", maxDeliveries, where)
	case spec.TransportActivity:
		f.Answer = "release the key and return the error: retryable for a transient failure (a timeout, a 5xx downstream), non-retryable for a permanent one (a validation error, a 4xx downstream), so the engine retries only what can succeed"
	case spec.TransportSchedule:
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
