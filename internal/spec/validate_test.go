package spec

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

func TestValidateValid(t *testing.T) {
	t.Parallel()
	webhook := validSpec()
	webhook.Key.Source, webhook.Key.Provider = SourceWebhook, "stripe"
	webhook.Downstream = nil
	cron := validSpec()
	cron.Key.Source, cron.Key.Schedule = SourceCron, rules.MustDuration("1h")
	cron.Hash.Include = nil
	cron.Preset = ""
	adyen := validSpec()
	adyenKey(adyen)
	for name, s := range map[string]*Spec{"client": validSpec(), "webhook": webhook, "cron": cron, "batch": adyen} {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: Validate = %v, want nil", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(s *Spec)
		want   []string // every problem, as "field: message" prefixes
	}{
		{"missing header", func(s *Spec) { s.Schema, s.Idemkit, s.Operation, s.Patterns = 0, "", " ", "" },
			[]string{"schema: missing; this idemkit writes schema 1", "idemkit: missing", "operation: missing", "patterns: missing"}},
		{"newer schema", func(s *Spec) { s.Schema = 2 }, []string{"schema: written by a newer idemkit (schema 2); upgrade idemkit"}},
		{"unsafe slug", func(s *Spec) { s.Slug = "../etc" }, []string{`slug: slug "../etc" has '.'`}},
		{"preset not an ID", func(s *Spec) { s.Preset = "Team Preset" }, []string{`preset: "Team Preset" is not a preset ID`}},
		{"queue without max deliveries", func(s *Spec) { s.Failure = Failure{Transport: TransportQueue, Answer: "nack"} }, []string{"failure.max_deliveries: missing"}},
		{"dead letter outside a queue", func(s *Spec) { s.Failure = Failure{Transport: TransportHTTP, Answer: "5xx", MaxDeliveries: 3} }, []string{"failure.max_deliveries: only a queue"}},
		{"mismatch acked", func(s *Spec) { s.Collisions[2].Status, s.Collisions[2].Action = 0, "ack" }, []string{"collisions[2].action: ack would accept a different payload"}},
		{"unknown action", func(s *Spec) { s.Collisions[0].Action = "shrug" }, []string{`collisions[0].action: unknown value "shrug"`}},
		{"long run without heartbeat", func(s *Spec) { s.TTL.LongestRun, s.TTL.LeaseLost = rules.MustDuration("40m"), "stop" }, []string{"ttl.heartbeat: missing; a 40m run outlives the 30s lease"}},
		{"late heartbeat", func(s *Spec) { s.TTL.Heartbeat = rules.MustDuration("20s") }, []string{"ttl.heartbeat: 20s renews the 30s lease too late"}},
		{"per-item key without the item", func(s *Spec) { s.Downstream[0].Item = "customer_id" }, []string{`downstream[0].key: "{key}:charge" does not carry the item {customer_id}`}},
		{"business key not in the key", func(s *Spec) { s.Downstream[0].BusinessKey = []string{"order_id"} }, []string{`downstream[0].key: "{key}:charge" does not carry the business key's {order_id}`}},
		{"repeat that is no answer", func(s *Spec) { s.Downstream[0].Repeat = "replay" }, []string{`downstream[0].repeat: unknown value "replay"; one of first-result, current-state, conflict, accepted`}},
		{"spec link escapes", func(s *Spec) { s.Downstream[0].Spec = "../x/idempotency-a.md" }, []string{"downstream[0].spec"}},
		{"client key location without missing", func(s *Spec) { s.Key.In, s.Key.Name = "header", "Idempotency-Key" }, []string{"key.missing: missing"}},
		{"unknown key location", func(s *Spec) { s.Key.In, s.Key.Name, s.Key.Missing = "cookie", "k", "400" }, []string{`key.in: unknown value "cookie"`}},
		{"batch key parts", func(s *Spec) {
			adyenKey(s)
			s.Key.Parts = append(s.Key.Parts, KeyPart{Part: "psp_reference", In: "cookie", Name: "x"}, KeyPart{Part: "Bad", In: "body", Name: "id"})
		}, []string{`key.parts[2].part: "psp_reference" is listed twice`, `key.parts[2].in: unknown value "cookie"`, `key.parts[3].part: "Bad": want a lowercase name`, "key.parts[3].name: invalid key location: JSON pointer \"id\" must start with '/'"}},
		{"part not in the format", func(s *Spec) { adyenKey(s); s.Key.Format = "{provider}:{psp_reference}" }, []string{`key.parts[1].part: key.format "{provider}:{psp_reference}" has no {event_code}`}},
		{"placeholder not a part", func(s *Spec) { adyenKey(s); s.Key.Format += ":{merchant}" }, []string{"key.format: {merchant} is not one of key.parts"}},
		{"in is not the first part", func(s *Spec) { adyenKey(s); s.Key.Name = "/pspReference" }, []string{"key.in: body /pspReference is not key.parts[0]"}},
		{"items without batch", func(s *Spec) { adyenKey(s); s.Key.Batch = false }, []string{"key.items: set without key.batch"}},
		{"items not a pointer", func(s *Spec) { adyenKey(s); s.Key.Items = "notificationItems" }, []string{`key.items: JSON pointer "notificationItems" must start with '/'`}},
		{"batch keyed by headers only", func(s *Spec) {
			adyenKey(s)
			s.Key.Parts = []KeyPart{{Part: "psp_reference", In: "header", Name: "X-Psp"}, {Part: "event_code", In: "header", Name: "X-Code"}}
			s.Key.In, s.Key.Name = "header", "X-Psp"
		}, []string{"key.batch: no part of the key is read from the event"}},
		{"batch of a client key", func(s *Spec) { s.Key.Batch = true }, []string{"key.batch: only a webhook or queue delivery", "key.batch: no part of the key"}},
		{"ack of a client key", func(s *Spec) { s.Key.Ack = "ok\n" }, []string{"key.ack: only a webhook answers", "key.ack: want one line"}},
		{"unknown source", func(s *Spec) { s.Key.Source = "email" }, []string{`key.source: unknown value "email"; one of client, webhook, queue, workflow, cron`}},
		{"server key", func(s *Spec) { s.Key.Source = "server" }, []string{"key.source: a key the server makes per attempt changes on every retry"}},
		{"webhook without provider", func(s *Spec) { s.Key.Source = SourceWebhook }, []string{"key.provider: missing; a webhook key comes from its provider"}},
		{"queue without provider", func(s *Spec) { s.Key.Source = SourceQueue }, []string{"key.provider: missing; a queue key"}},
		{"cron without schedule", func(s *Spec) { s.Key.Source = SourceCron }, []string{"key.schedule: missing; a cron key floors the scheduled time"}},
		{"empty key fields", func(s *Spec) { s.Key = Key{Source: SourceClient} },
			[]string{"key.field: missing", "key.format: missing", "key.example: missing", "key.scope: missing; name what the key is scoped by", "key.rationale: missing"}},
		{"unknown hash", func(s *Spec) { s.Hash.Algorithm = "md5" }, []string{`hash.algorithm: unknown value "md5"; one of sha256-jcs`}},
		{"hash fields", func(s *Spec) {
			s.Hash.Include = []string{"amount", "", "amount"}
			s.Hash.Exclude = []Field{{Name: "amount", Reason: "x"}, {Name: "ip"}, {Name: "ip", Reason: "y"}, {Reason: "z"}}
		}, []string{
			"hash.include[1]: empty field name", `hash.include[2]: "amount" is listed twice`,
			`hash.exclude[0].name: "amount" is both included in and excluded from the hash`,
			`hash.exclude[1].reason: missing; say why "ip" is not part of the operation`,
			`hash.exclude[2].name: "ip" is listed twice`, "hash.exclude[3].name: missing",
		}},
		{"memcached", func(s *Spec) { s.Store.Kind = "memcached" }, []string{"store.kind: memcached evicts keys"}},
		{"empty store", func(s *Spec) { s.Store = Store{} },
			[]string{"store.kind: missing; one of redis, postgres, dynamodb, workflow", "store.name: missing", "store.primitive: missing", "store.rationale: missing"}},
		{"ttl shorter than window", func(s *Spec) {
			s.TTL.Duration, s.TTL.RetryWindow, s.TTL.WindowSource = rules.MustDuration("24h"), rules.MustDuration("72h"), "Stripe webhooks"
		},
			[]string{"ttl.duration: 1d is shorter than the 3d retry window of Stripe webhooks; a late retry would run the operation again"}},
		{"empty ttl", func(s *Spec) { s.TTL = TTL{} }, []string{
			"ttl.duration: missing; keys must expire", "ttl.retry_window: missing", "ttl.window_source: missing",
			"ttl.justification: missing", "ttl.lease: missing; without a lease a crashed holder",
		}},
		{"lease outlives ttl", func(s *Spec) { s.TTL.Lease = rules.MustDuration("2d") }, []string{"ttl.lease: 2d outlives the 1d TTL"}},
		{"missing collision", func(s *Spec) { s.Collisions = s.Collisions[:3] },
			[]string{"collisions: no row for expired; all four cases (completed, in_progress, mismatch, expired) must be answered"}},
		{"no collisions", func(s *Spec) { s.Collisions = nil }, []string{
			"collisions: no row for completed", "collisions: no row for in_progress", "collisions: no row for mismatch", "collisions: no row for expired",
		}},
		{"duplicate collision", func(s *Spec) { s.Collisions[3].Case = CaseCompleted }, []string{
			"collisions[3].case: completed is answered twice (first at collisions[0])", "collisions: no row for expired",
		}},
		{"bad collision rows", func(s *Spec) {
			s.Collisions[0] = Collision{Case: "retry", Status: 999}
			s.Collisions[1].RetryAfter = 0
			s.Collisions[2].Status = 200
		}, []string{
			`collisions[0].case: unknown value "retry"`, "collisions[0].when: missing", "collisions[0].response: missing",
			"collisions[0].status: 999 is not an HTTP status",
			"collisions[1].retry_after: missing; a 409 tells the client when to retry",
			"collisions[2].status: 200 would accept a different payload under the same key; answer 422",
			"collisions: no row for completed",
		}},
		{"bad steps", func(s *Spec) {
			s.Downstream[0] = Step{Name: "charge"}
			s.Downstream[1].Name, s.Downstream[1].Mechanism = "email", "hope"
			s.Downstream[2].Key = "{key}:order"
		}, []string{
			"downstream[0].mechanism: missing; one of provider-key, on-conflict, audit-log, message-id", "downstream[0].key: missing",
			`downstream[1].mechanism: unknown value "hope"`,
			`downstream[2].name: "email" is also downstream[1]; each step needs its own name`,
			`downstream[2].key: "{key}:order" is also the key of downstream[1]; two side effects sharing a key deduplicate each other`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := validSpec()
			tt.mutate(s)
			problems := s.Problems()
			got := make([]string, len(problems))
			for i, p := range problems {
				got[i] = p.Error()
				if !strings.HasPrefix(got[i], p.Field+": ") {
					t.Errorf("problem %q does not start with its field %q", got[i], p.Field)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, want := range tt.want {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("problem %d = %q, want it to start with %q", i, got[i], want)
				}
			}
			err := s.Validate()
			if err == nil || err.Error() != strings.Join(got, "\n") {
				t.Errorf("Validate = %v, want the problems joined", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != problems[0].Field {
				t.Errorf("Validate error does not expose the first *FieldError")
			}
		})
	}
}

func TestValidateNewerSchemaIs(t *testing.T) {
	t.Parallel()
	s := validSpec()
	s.Schema = SchemaVersion + 1
	if err := s.Validate(); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("Validate = %v, want ErrNewerSchema", err)
	}
}

func TestCollisionCases(t *testing.T) {
	t.Parallel()
	got := CollisionCases()
	if want := []string{"completed", "in_progress", "mismatch", "expired"}; !slices.Equal(got, want) {
		t.Fatalf("CollisionCases = %v, want %v", got, want)
	}
	got[0] = "changed"
	if CollisionCases()[0] != CaseCompleted {
		t.Error("CollisionCases shares its backing array with callers")
	}
}

// adyenKey makes s's key Adyen's: two parts read from each event of a batch.
func adyenKey(s *Spec) {
	s.Key.Source, s.Key.Provider = SourceWebhook, "adyen"
	s.Key.Format = "{provider}:{psp_reference}:{event_code}"
	s.Key.Parts = []KeyPart{
		{Part: "psp_reference", In: "body", Name: "/NotificationRequestItem/pspReference"},
		{Part: "event_code", In: "body", Name: "/NotificationRequestItem/eventCode"},
	}
	s.Key.In, s.Key.Name = "body", "/NotificationRequestItem/pspReference"
	s.Key.Batch, s.Key.Items, s.Key.Ack = true, "/notificationItems", "[accepted]"
}
