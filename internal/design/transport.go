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

// row answers one collision row: the catalogue's answer in the source's
// own terms, with this design's delay, heartbeat and dead-letter queue,
// the key provider's own acknowledgement or busy answer, a broker's own
// features (p is the key's provider, nil when the catalogue has none),
// and an HTTP status only where the transport is HTTP.
func (t transport) row(row string, a *rules.CollisionAnswer, s *spec.Spec, p *rules.Provider, retryAfter rules.Duration) spec.Collision {
	c := spec.Collision{Case: row, Policy: a.ID, Action: a.ID, Response: strings.TrimSpace(a.Response)}
	if r := strings.TrimSpace(a.BySource[t.src]); r != "" {
		c.Response = r
	}
	if t.id == spec.TransportHTTP {
		c.Status = a.Status
	}
	var consumer rules.Consumer
	if p != nil && t.id == spec.TransportQueue {
		consumer = p.Consumer
	}
	var extra string
	switch t.id + "/" + a.ID {
	case "http/ack":
		c.Response = "2xx without a body: acknowledge the delivery so the sender stops redelivering it; nothing is done again"
		if s.Key.Ack != "" {
			c.Response = "2xx with the body " + s.Key.Ack + ", the acknowledgement " + orWord(s.Key.ProviderName, "the sender") + " expects, so it stops redelivering the event; nothing is done again"
		}
	case "queue/ack":
		c.Response = "the consumer " + orWord(consumer.Ack, "acknowledges the message (an ack, a delete or an offset commit, as the broker has it)") + ", so the broker stops delivering it; nothing is done again"
	case "http/conflict":
		if t.src == spec.SourceClient {
			extra = "Retry-After: " + retryAfter.String()
		} else if p != nil && p.Busy.Status != 0 {
			c.Status = p.Busy.Status
			c.Response = fmt.Sprintf("%d, not 409: %s; the first attempt has finished or its lease has expired by the next delivery", p.Busy.Status, strings.TrimSpace(p.Busy.Says))
			if p.Busy.Status == 409 {
				c.Response = fmt.Sprintf("409 Conflict: %s", strings.TrimSpace(p.Busy.Says))
			}
		}
	case "http/wait":
		extra = "Retry-After: " + retryAfter.String()
	case "queue/requeue":
		c.Response = queueLater(consumer, s, retryAfter)
	case "queue/dead-letter":
		where := orWord(s.Failure.DeadLetter, "the dead-letter queue")
		if consumer.DeadLetter != "" {
			c.Response = "the consumer " + consumer.DeadLetter + " (reason: key reused with a different message body; dead-letter destination: " + where + "), logged loudly with the key and both fingerprints; it is never processed and never retried"
		} else {
			extra = "here to " + where + ", logged with the key and both fingerprints"
		}
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

// queueLater is the in-progress answer of a queue consumer: hand the
// message back, in the broker's own terms, to come again once the first
// attempt has finished or its lease has lapsed.
func queueLater(c rules.Consumer, s *spec.Spec, delay rules.Duration) string {
	lease := s.TTL.Lease
	if c.Later != "" && !c.Delay {
		// A push delivery: the broker's backoff decides when it comes again.
		return "do not acknowledge it: the consumer " + c.Later + "; if the first attempt is still running then, the answer is the same"
	}
	later := orWord(c.Later, "hands the message back to be delivered again after the delay")
	text := "do not acknowledge it: the consumer " + later + ", here " + delay.String()
	if delay >= lease {
		text += ", no shorter than the " + lease.String() + " lease, so by then the first attempt has finished or its lease has lapsed"
	} else {
		text += ", within the " + lease.String() + " lease: the message may find the first attempt still running and is handed back again, each time counting as a delivery; a delay longer than the lease avoids that"
	}
	if c.Extend != "" {
		if s.TTL.Heartbeat > 0 {
			return text + "; the holder " + c.Extend + fmt.Sprintf(", with every %s heartbeat", s.TTL.Heartbeat)
		}
		return text + "; a holder whose work outlasts that " + c.Extend
	}
	if c.Later == "" {
		return text + "; " + holderVisibility(s)
	}
	return text
}

// failure is what a failed attempt answers, in the transport's terms.
func (t transport) failure(s *spec.Spec, p *rules.Provider, maxDeliveries int, deadLetter string) spec.Failure {
	f := spec.Failure{Transport: t.id}
	switch t.id {
	case spec.TransportHTTP:
		f.Answer = "a 5xx, a panic or a cancelled request releases the key and is not stored; the caller's retry runs the operation again"
		if s.Key.Source == spec.SourceWebhook {
			f.Answer = "a 5xx releases the key and is not stored; " + senderAfterFailure(p)
		}
	case spec.TransportQueue:
		f.MaxDeliveries, f.DeadLetter = maxDeliveries, deadLetter
		where := deadLetter
		if where == "" {
			where = "the dead-letter queue"
		}
		retry := "nack or leave the message unacknowledged, so it is delivered again"
		if p != nil && p.Consumer.Retry != "" {
			retry = "the consumer " + p.Consumer.Retry
		}
		f.Answer = fmt.Sprintf("release the key; %s; after %d deliveries the message goes to %s, and the consumer logs the last error as the reason", retry, maxDeliveries, where)
	case spec.TransportActivity:
		f.Answer = "release the key and return the error: retryable for a transient failure (a timeout, a 5xx downstream), non-retryable for a permanent one (a validation error, a 4xx downstream), so the engine retries only what can succeed"
	case spec.TransportSchedule:
		f.Answer = "release the key and exit non-zero, so the scheduler's retry or the next catch-up run does the slot again"
	}
	return f
}

// senderAfterFailure says what follows a webhook's 5xx, from the
// sender's own facts: a redelivery within its retry window, only a manual
// one (GitHub), or none (Twilio retries connections, not answers).
func senderAfterFailure(p *rules.Provider) string {
	switch {
	case p == nil:
		return "a redelivery, if the sender makes one, runs the operation again"
	case strings.TrimSpace(p.Redelivers) != "":
		return p.Name + " " + strings.TrimSpace(p.Redelivers) + ", so log the failure and alert on it"
	case !p.Retries:
		return fmt.Sprintf("%s does not redeliver a failed delivery by itself: the operation runs again only when a person or a script redelivers it, within %s, so log the failure and alert on it", p.Name, p.RetryWindow)
	}
	return fmt.Sprintf("%s redelivers it for up to %s, and the redelivery runs the operation again", p.Name, p.RetryWindow)
}

// holderVisibility says how the holder keeps its own delivery from
// coming back while it works.
func holderVisibility(s *spec.Spec) string {
	if s.TTL.Heartbeat > 0 {
		return fmt.Sprintf("the holder keeps its own delivery invisible by extending its visibility timeout with every %s heartbeat", s.TTL.Heartbeat)
	}
	return "a holder whose work outlasts the visibility timeout extends it (a heartbeat), or its own delivery comes back while it works"
}

// delays reports an in-progress answer that waits a delay of this
// design's: a client's Retry-After, a queue's requeue delay where the
// consumer chooses it, an engine's backoff, a job's wait. A webhook
// sender and a push broker retry on their own schedules.
func (t transport) delays(action string, p *rules.Provider) bool {
	switch t.id {
	case spec.TransportHTTP:
		return t.src == spec.SourceClient
	case spec.TransportQueue:
		return p == nil || p.Consumer.Later == "" || p.Consumer.Delay
	case spec.TransportSchedule:
		return action == "wait"
	}
	return true
}
