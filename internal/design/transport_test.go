package design

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
)

// TestCollisionsInTransportTerms checks that every source answers its
// collision rows and its failures in its own transport's terms: no HTTP
// status for a queue, an activity or a scheduled job, and a mismatch that
// is never processed.
func TestCollisionsInTransportTerms(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cases := []struct {
		name      string
		key       KeyAnswers
		collision CollisionAnswers
		actions   string // completed, in_progress, mismatch, expired
		statuses  string
		failure   []string
	}{
		{"client", KeyAnswers{Source: "client"}, CollisionAnswers{}, "replay,conflict,reject,process", "200,409,422,0", []string{"5xx", "releases the key"}},
		{"webhook", KeyAnswers{Source: "webhook", Provider: "stripe"}, CollisionAnswers{}, "ack,conflict,reject,process", "200,409,422,0", []string{"Stripe webhooks redelivers"}},
		{"queue", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{MaxDeliveries: 7, DeadLetter: "orders-dlq"},
			"ack,requeue,dead-letter,process", "0,0,0,0", []string{"after 7 deliveries", "orders-dlq", "reason"}},
		{"workflow", KeyAnswers{Source: "workflow", Workflow: "fulfil", Step: "charge", Param: "order_id", Window: "7d"}, CollisionAnswers{},
			"replay,retry,non-retryable,process", "0,0,0,0", []string{"retryable", "non-retryable"}},
		{"cron", KeyAnswers{Source: "cron", Job: "rollup", Schedule: "1h"}, CollisionAnswers{Completed: "ack", InProgress: "conflict"},
			"skip,skip,fail,process", "0,0,0,0", []string{"exit non-zero"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(Answers{Operation: "op " + tc.name, Key: tc.key, Store: StoreAnswers{Kind: "postgres"}, TTL: "30d", Collision: tc.collision}, cat)
			if err != nil {
				t.Fatal(err)
			}
			var actions, statuses []string
			for _, c := range d.Spec.Collisions {
				actions = append(actions, c.Action)
				statuses = append(statuses, strconv.Itoa(c.Status))
			}
			if got := strings.Join(actions, ","); got != tc.actions {
				t.Errorf("actions = %s, want %s", got, tc.actions)
			}
			if got := strings.Join(statuses, ","); got != tc.statuses {
				t.Errorf("statuses = %s, want %s", got, tc.statuses)
			}
			if tc.name == "queue" && strings.Contains(d.Spec.Collisions[2].Response, "422") {
				t.Errorf("a queue's mismatch answers with an HTTP status: %s", d.Spec.Collisions[2].Response)
			}
			for _, w := range tc.failure {
				if !strings.Contains(d.Spec.Failure.Answer, w) {
					t.Errorf("failure %q does not say %q", d.Spec.Failure.Answer, w)
				}
			}
		})
	}
}

// TestCollisionPolicyRefusals checks that a source refuses the answers of
// another transport, with the reason in its own terms.
func TestCollisionPolicyRefusals(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cases := []struct {
		name  string
		key   KeyAnswers
		c     CollisionAnswers
		field string
		want  string
	}{
		{"queue retry", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{InProgress: "retry"}, "collision.in_progress", "acks, nacks or dead-letters"},
		{"queue skip", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{Completed: "skip"}, "collision.completed", "one of ack"},
		{"cron requeue", KeyAnswers{Source: "cron", Job: "j", Schedule: "1h"}, CollisionAnswers{InProgress: "requeue"}, "collision.in_progress", "exits 0"},
		{"client max deliveries", KeyAnswers{Source: "client"}, CollisionAnswers{MaxDeliveries: 3}, "collision.max_deliveries", "only a queue"},
		{"webhook dead letter", KeyAnswers{Source: "webhook", Provider: "stripe"}, CollisionAnswers{DeadLetter: "dlq"}, "collision.dead_letter", "only a queue"},
		{"queue max deliveries out of range", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{MaxDeliveries: 5000}, "collision.max_deliveries", "out of range"},
		{"dead letter with a colon", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{DeadLetter: "a:b"}, "collision.dead_letter", "has a ':'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decide(Answers{Operation: "op", Key: tc.key, TTL: "30d", Store: StoreAnswers{Kind: "postgres"}, Collision: tc.c}, cat)
			ie, ok := err.(*InputError)
			if !ok {
				t.Fatalf("Decide = %v, want an InputError on %s", err, tc.field)
			}
			if ie.Field != tc.field || !strings.Contains(ie.Error(), tc.want) {
				t.Errorf("error = %v, want %s saying %q", err, tc.field, tc.want)
			}
		})
	}
}

// TestLease checks that the lease follows the longest run, with a heartbeat
// when the run outlives it, and refuses leases that cannot work.
func TestLease(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	base := func(l LeaseAnswers) Answers {
		return Answers{Operation: "nightly batch", Key: KeyAnswers{Source: "cron", Job: "batch", Schedule: "1d"}, Store: StoreAnswers{Kind: "postgres"}, TTL: "7d", Lease: l}
	}
	ok := []struct {
		name                  string
		l                     LeaseAnswers
		lease, run, heartbeat string
	}{
		{"defaults", LeaseAnswers{}, "30s", "0s", ""},
		{"40 minute batch", LeaseAnswers{LongestRun: "40m"}, "30s", "40m", "10s"},
		{"consumer with a 2m visibility timeout", LeaseAnswers{Duration: "2m", LongestRun: "10m", Heartbeat: "30s"}, "2m", "10m", "30s"},
		{"short run in a long lease", LeaseAnswers{Duration: "5m", LongestRun: "1m"}, "5m", "1m", ""},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(base(tc.l), cat)
			if err != nil {
				t.Fatal(err)
			}
			ttl := d.Spec.TTL
			if ttl.Lease.String() != tc.lease || ttl.LongestRun.String() != tc.run || tc.heartbeat != "" && ttl.Heartbeat.String() != tc.heartbeat || tc.heartbeat == "" && ttl.Heartbeat != 0 {
				t.Errorf("lease %s, run %s, heartbeat %s; want %s, %s, %q", ttl.Lease, ttl.LongestRun, ttl.Heartbeat, tc.lease, tc.run, tc.heartbeat)
			}
			if !strings.Contains(ttl.LeaseLost, "exit non-zero") || !strings.Contains(ttl.LeaseLost, "fencing token") {
				t.Errorf("lease_lost = %q, want what the old holder does, in a scheduled job's terms", ttl.LeaseLost)
			}
		})
	}
	bad := []struct {
		name, field, want string
		l                 LeaseAnswers
	}{
		{"late heartbeat", "lease.heartbeat", "too late", LeaseAnswers{LongestRun: "40m", Heartbeat: "20s"}},
		{"lease beyond the ttl", "lease.duration", "outlives the 7d TTL", LeaseAnswers{Duration: "8d"}},
		{"run beyond the ttl", "lease.longest_run", "outlasts the 7d TTL", LeaseAnswers{LongestRun: "10d"}},
		{"bad duration", "lease.longest_run", "", LeaseAnswers{LongestRun: "soon"}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decide(base(tc.l), cat)
			ie, ok := err.(*InputError)
			if !ok || ie.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decide = %v, want an InputError on %s saying %q", err, tc.field, tc.want)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want, err string }{
		{"/amount", "amount", ""},
		{"/data/object/id", "data.object.id", ""},
		{"customer.id", "customer.id", ""},
		{"/a~1b", "a/b", ""},
		{"/a.b", "", "holding a dot"},
		{"a..b", "", "empty segment"},
		{"/", "", "whole body"},
		{"", "", "empty"},
		{"/x~2", "", "~0"},
	}
	for _, tc := range cases {
		got, err := FieldPath(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("FieldPath(%q) = %q, %v; want an error saying %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("FieldPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCollisionSynonyms checks that an answer in another transport's words
// is taken as the source's own, with a note, rather than refused.
func TestCollisionSynonyms(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cases := []struct {
		key                 KeyAnswers
		c                   CollisionAnswers
		completed, progress string
	}{
		{KeyAnswers{Source: "queue", Provider: "sqs-standard"}, CollisionAnswers{Completed: "replay", InProgress: "conflict"}, "ack", "requeue"},
		{KeyAnswers{Source: "workflow", Workflow: "w", Step: "s", Window: "7d"}, CollisionAnswers{Completed: "ack", InProgress: "conflict"}, "replay", "retry"},
		{KeyAnswers{Source: "cron", Job: "j", Schedule: "1h"}, CollisionAnswers{Completed: "replay", InProgress: "conflict"}, "skip", "skip"},
	}
	for _, tc := range cases {
		d, err := Decide(Answers{Operation: "op", Key: tc.key, TTL: "30d", Store: StoreAnswers{Kind: "postgres"}, Collision: tc.c}, cat)
		if err != nil {
			t.Fatalf("%s: %v", tc.key.Source, err)
		}
		if got := d.Spec.Collisions; got[0].Policy != tc.completed || got[1].Policy != tc.progress {
			t.Errorf("%s: policies %s, %s; want %s, %s", tc.key.Source, got[0].Policy, got[1].Policy, tc.completed, tc.progress)
		}
		if !strings.Contains(strings.Join(d.Notes, "\n"), "another transport's word") {
			t.Errorf("%s: no note on the synonym: %q", tc.key.Source, d.Notes)
		}
	}
}

// TestCollisionVocabulary keeps each source's collision rows and failure
// answer in its own transport's words, for several providers of each
// kind: a queue says no 409, an HTTP client no ack or nack, Kafka no
// visibility timeout or requeue, a scheduled run no request or payload.
func TestCollisionVocabulary(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	httpWords := []string{"nack", "ack", "requeue", "visibility", "dead-letter", "workflow", "activity", "exit 0"}
	queueWords := []string{"409", "422", "Retry-After", "HTTP client", "workflow step", "the request"}
	cases := []struct {
		name   string
		key    KeyAnswers
		banned []string
	}{
		{"client ui", KeyAnswers{Source: "client"}, append(httpWords, "webhook", "sender")},
		{"client internal", KeyAnswers{Source: "client", Provider: "internal-http"}, append(httpWords, "webhook", "sender")},
		{"stripe", KeyAnswers{Source: "webhook", Provider: "stripe"}, append(httpWords, "the client retries", "Retry-After")},
		{"adyen", KeyAnswers{Source: "webhook", Provider: "adyen"}, append(httpWords, "the client retries")},
		{"hubspot", KeyAnswers{Source: "webhook", Provider: "hubspot"}, append(httpWords, "the client retries")},
		{"bitbucket", KeyAnswers{Source: "webhook", Provider: "bitbucket"}, append(httpWords, "the client retries", "409 Conflict")},
		{"sqs", KeyAnswers{Source: "queue", Provider: "sqs-standard"}, queueWords},
		{"pubsub", KeyAnswers{Source: "queue", Provider: "google-pubsub"}, append(queueWords, "visibility")},
		{"kafka", KeyAnswers{Source: "queue", Provider: "kafka"}, append(queueWords, "visibility", "requeue", "nack", "redrive", "maxReceiveCount")},
		{"rabbitmq", KeyAnswers{Source: "queue", Provider: "rabbitmq"}, append(queueWords, "visibility", "redrive")},
		{"nats", KeyAnswers{Source: "queue", Provider: "nats-jetstream"}, append(queueWords, "visibility", "redrive")},
		{"service bus", KeyAnswers{Source: "queue", Provider: "azure-service-bus"}, append(queueWords, "visibility", "redrive")},
		{"event grid", KeyAnswers{Source: "queue", Provider: "azure-event-grid"}, append(queueWords, "visibility", "nack", "requeue")},
		{"workflow", KeyAnswers{Source: "workflow", Workflow: "fulfil", Step: "charge", Param: "order_id", Window: "7d"}, []string{"409", "422", "nack", "visibility", "HTTP client", "Idempotent-Replayed", "request"}},
		{"cron", KeyAnswers{Source: "cron", Job: "rollup", Schedule: "1h"}, []string{"409", "422", "nack", "visibility", "request", "payload"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(Answers{Operation: "op", Key: tc.key, Store: StoreAnswers{Kind: "postgres"}, TTL: "60d"}, cat)
			if err != nil {
				t.Fatal(err)
			}
			texts := []string{d.Spec.Failure.Answer}
			for _, c := range d.Spec.Collisions {
				texts = append(texts, c.When, c.Response)
			}
			if tc.key.Source == spec.SourceQueue {
				// The body's diagram and tests too: a broker's own words
				// from the table down.
				doc, err := templates.RenderSpec(d.Spec)
				if err != nil {
					t.Fatal(err)
				}
				_, body, _ := strings.Cut(strings.TrimPrefix(string(doc), "---\n"), "\n---\n")
				texts = append(texts, body)
			}
			for _, text := range texts {
				for _, w := range tc.banned {
					if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(text) {
						t.Errorf("%q speaks another transport's words (%q)", text, w)
					}
				}
			}
		})
	}
}
