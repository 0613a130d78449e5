package design_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/huh"
	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/rules"
)

// testCatalog is a small catalogue with every kind of entry the form reads,
// so that the walks below do not move when the embedded data grows.
func testCatalog() *rules.Catalog {
	return &rules.Catalog{
		KeySources: []rules.KeySource{
			{ID: "client", Title: "External client (our SDK / direct caller)", Format: "{uuid}", Example: "9f1c0e8a-…", Description: "The client makes one key per logical action."},
			{ID: "webhook", Title: "Webhook receiver", Format: "{event_id}", Example: "evt_1", Description: "The provider's event ID is the same on every redelivery."},
			{ID: "queue", Title: "Message queue consumer", Format: "{message_id}", Example: "m-1", Description: "The message or dedupe ID survives redelivery."},
			{ID: "workflow", Title: "Workflow step", Format: "{workflow_id}:{step}:{param}", Example: "wf-1:charge:o-1", Description: "Deterministic parts only."},
			{ID: "cron", Title: "Internal cron job", Format: "{job}:{slot}", Example: "invoices:2026-01-01T00", Description: "The slot, not the wall clock."},
			{ID: "server", Title: "A key the server makes per attempt", Rejected: true, AntiPattern: "per-attempt-key"},
		},
		Providers: []rules.Provider{
			{ID: "stripe", Name: "Stripe webhooks", Kind: "webhook", Source: "webhook", Retries: true, RetryWindow: rules.MustDuration("3d"), SuggestedTTL: rules.MustDuration("7d"), Bound: "Stripe resends with backoff for three days."},
			{ID: "github", Name: "GitHub webhooks", Kind: "webhook", Source: "webhook", Retries: false, RetryWindow: rules.MustDuration("3d"), SuggestedTTL: rules.MustDuration("7d"), Bound: "Redelivered by hand, within three days."},
			{ID: "sqs", Name: "Amazon SQS standard", Kind: "queue", Source: "queue", Retries: true, RetryWindow: rules.MustDuration("12h"), SuggestedTTL: rules.MustDuration("24h"), Bound: "The visibility timeout."},
			{ID: "rabbitmq", Name: "RabbitMQ", Kind: "queue", Source: "queue", Retries: true, Unbounded: true, SuggestedTTL: rules.MustDuration("7d"), Bound: "Redelivered until acked."},
			{ID: "internal-http", Name: "Internal HTTP retry policy", Kind: "internal", Source: "client", Retries: true, RetryWindow: rules.MustDuration("5m"), SuggestedTTL: rules.MustDuration("1h"), Bound: "The retry budget."},
			{ID: "ui", Name: "User-driven UI retry", Kind: "ui", Source: "client", Retries: true, RetryWindow: rules.MustDuration("30m"), SuggestedTTL: rules.MustDuration("24h"), Bound: "A page reload."},
		},
		VolatileFields: []rules.VolatileField{
			{Name: "timestamp", Reason: "set per attempt"},
			{Name: "request_id", Reason: "new per attempt"},
			{Name: "client_ip", Reason: "changes with the route"},
		},
		Stores: []rules.Store{
			{ID: "redis", Name: "Redis", TTLRange: "hours to days"},
			{ID: "postgres", Name: "Postgres", TTLRange: "days to months"},
			{ID: "dynamodb", Name: "DynamoDB", TTLRange: "24 to 48 hours"},
			{ID: "workflow", Name: "Workflow engine state", TTLRange: "the workflow's lifetime"},
			{ID: "memcached", Name: "Memcached", TTLRange: "minutes", Rejected: true, AntiPattern: "lossy-store"},
		},
		Collisions: []rules.Collision{
			{ID: "completed", Case: "Same key, same payload, completed", Response: "the stored response", Answers: []rules.CollisionAnswer{
				{ID: "replay", Title: "Replay the stored result", Sources: []string{"client", "workflow"}, Response: "the stored response"},
				{ID: "ack", Title: "Acknowledge", Sources: []string{"webhook", "queue"}, Response: "2xx or ack"},
				{ID: "skip", Title: "Skip and exit 0", Sources: []string{"cron"}, Response: "exit 0"},
			}},
			{ID: "in_progress", Case: "Same key, same payload, in progress", Response: "409", Answers: []rules.CollisionAnswer{
				{ID: "conflict", Title: "409 with Retry-After", Sources: []string{"client", "webhook"}, Response: "409"},
				{ID: "wait", Title: "Wait, then 409", Sources: []string{"client"}, Response: "wait"},
				{ID: "requeue", Title: "Nack with a delay", Sources: []string{"queue"}, Response: "nack"},
				{ID: "retry", Title: "Retryable error", Sources: []string{"workflow"}, Response: "retryable"},
				{ID: "skip", Title: "Another run holds it; exit 0", Sources: []string{"cron"}, Response: "exit 0"},
			}},
			{ID: "mismatch", Case: "Same key, different payload", Response: "422, logged, not processed", Answers: []rules.CollisionAnswer{
				{ID: "reject", Title: "422", Sources: []string{"client", "webhook"}, Response: "422, logged, not processed"},
				{ID: "dead-letter", Title: "Dead-letter", Sources: []string{"queue"}, Response: "dead-lettered with the reason"},
				{ID: "non-retryable", Title: "Non-retryable error", Sources: []string{"workflow"}, Response: "non-retryable"},
				{ID: "fail", Title: "Exit non-zero", Sources: []string{"cron"}, Response: "exit 1"},
			}},
			{ID: "expired", Case: "Same key after the TTL", Response: "a new request", Answers: []rules.CollisionAnswer{
				{ID: "process", Title: "Processed as new", Sources: []string{"client", "webhook", "queue", "workflow", "cron"}, Response: "a new request"},
			}},
		},
		Mechanisms: []rules.Mechanism{
			{ID: "provider-key", Title: "Pass a derived key to the provider"},
			{ID: "on-conflict", Title: "INSERT ... ON CONFLICT DO NOTHING"},
			{ID: "audit-log", Title: "Guard with an audit-log row"},
			{ID: "message-id", Title: "A derived message ID the provider dedupes"},
		},
		AntiPatterns: []rules.AntiPattern{
			{ID: "per-attempt-key", Title: "Fresh key per attempt", Why: "a key made per attempt is new on every retry, so nothing is ever deduplicated.", Fix: "Take the key from whoever retries."},
			{ID: "lossy-store", Title: "Lossy store", Why: "memcached evicts keys under memory pressure, well inside any retry window.", Fix: "Use Redis or Postgres."},
			{ID: "no-mismatch-detection", Title: "No mismatch detection", Why: "a different payload under a known key is silently replayed or applied.", Fix: "Fingerprint the request."},
		},
		Presets: []rules.Preset{
			{ID: "payment", Title: "Payment endpoint", Answers: map[string]any{
				"kind":      "payment",
				"key":       map[string]any{"source": "client", "header": "Idempotency-Key", "scope": "tenant_id"},
				"hash":      map[string]any{"include": []any{"customer_id", "amount", "currency"}, "exclude": []any{"timestamp"}},
				"store":     map[string]any{"kind": "redis", "audit_row": true},
				"ttl":       "24h",
				"collision": map[string]any{"completed": "replay", "in_progress": "conflict", "retry_after": "5s"},
				"downstream": []any{
					map[string]any{"name": "charge", "target": "stripe", "mechanism": "provider-key"},
				},
			}},
			{ID: "queue", Title: "Queue consumer", Answers: map[string]any{
				"key":   map[string]any{"source": "queue", "provider": "sqs", "scope": "unscoped"},
				"store": map[string]any{"kind": "redis"},
			}},
		},
		Defaults: rules.Defaults{
			Store:       "redis",
			TTL:         rules.MustDuration("24h"),
			RetryAfter:  rules.MustDuration("5s"),
			LeaseTTL:    rules.MustDuration("30s"),
			AuditRowFor: []string{"payment", "billing"},
		},
	}
}

// script is the accessible-mode input: one answer per line, "" for Enter.
func script(lines ...string) *strings.Reader {
	return strings.NewReader(strings.Join(lines, "\n") + "\n")
}

// runAccessible runs form in accessible mode over in, and fails the test if
// answers are left over: every script must match its prompts exactly.
func runAccessible(t *testing.T, in *strings.Reader, run func(func(*huh.Form) error) error) string {
	t.Helper()
	var out strings.Builder
	if err := run(design.RunWith(context.Background(), in, &out, true)); err != nil {
		t.Fatalf("form: %v\noutput:\n%s", err, out.String())
	}
	if in.Len() > 0 {
		rest := make([]byte, in.Len())
		_, _ = in.Read(rest)
		t.Fatalf("answers left over: %q\noutput:\n%s", rest, out.String())
	}
	return out.String()
}

func equalAnswers(t *testing.T, got, want design.Answers, output string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := yaml.Marshal(got)
		w, _ := yaml.Marshal(want)
		t.Errorf("answers:\n%s\nwant:\n%s\noutput:\n%s", g, w, output)
	}
}

func TestFormInterviewWalks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		start  design.Answers
		lines  []string
		want   design.Answers
		output []string // text each walk must show, defaults among it
	}{
		{
			name:  "payment preset, a retry source, a new excluded field and a second step",
			start: design.Answers{Operation: "create-payment"},
			lines: []string{
				"",               // operation [create-payment]
				"Charges a card", // what it does
				"2",              // preset: payment
				"",               // kind [payment]
				"",               // source [client]
				"",               // header [Idempotency-Key]
				"",               // scope [tenant_id]
				"1", "0",         // retried by: internal-http, confirm
				"", "", "", // key format [{uuid}], retry window, where from
				"",       // included [customer_id, amount, currency]
				"2", "0", // volatile: + request_id, confirm
				"trace_id: set per hop by the proxy", // other excluded
				"",                                   // mismatch [reject]
				"",                                   // store [redis]
				"",                                   // audit row [Y]
				"",                                   // TTL [24h]
				"", "", "",                           // longest run, lease, heartbeat
				"", "", "", // completed, in progress, Retry-After
				"", "", "", "", "", "", // step 1 from the preset: name, target, mechanism, item, business key, operation
				"y",                                   // add another
				"ledger", "postgres", "2", "", "", "", // step 2
				"", // add another [N]
			},
			want: design.Answers{
				Operation:   "create-payment",
				Description: "Charges a card",
				Preset:      "payment",
				Kind:        "payment",
				Key:         design.KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id", RetriedBy: []string{"internal-http"}},
				Hash: design.HashAnswers{
					Include:        []string{"customer_id", "amount", "currency"},
					Exclude:        []string{"timestamp", "request_id", "trace_id"},
					Reasons:        map[string]string{"trace_id": "set per hop by the proxy"},
					DetectMismatch: new(true),
				},
				Store:     design.StoreAnswers{Kind: "redis", AuditRow: new(true)},
				TTL:       "24h",
				Collision: design.CollisionAnswers{Completed: "replay", InProgress: "conflict", RetryAfter: "5s"},
				Downstream: []design.StepAnswers{
					{Name: "charge", Target: "stripe", Mechanism: "provider-key"},
					{Name: "ledger", Target: "postgres", Mechanism: "on-conflict"},
				},
			},
			output: []string{
				"Operation [create-payment]",
				"Header that carries the key [Idempotency-Key]",
				"Scope stored keys by (a tenant field, or unscoped) [tenant_id]",
				"Included fields, comma separated [customer_id, amount, currency]",
				"1. ✓ timestamp: set per attempt",
				"TTL [24h]",
				"Step name [charge]",
				"Add another downstream step? (1 so far)",
			},
		},
		{
			name:  "webhook from scratch: provider, TTL re-asked until it covers the window",
			start: design.Answers{},
			lines: []string{
				"stripe-events", "", "", // operation, no description, no preset
				"",         // kind [other]
				"2",        // source: webhook
				"",         // provider [stripe]
				"unscoped", // no "who else retries" for a webhook: the sender does
				"", "",     // key location [header], name: as the catalogue says
				"", "", "", // key format, retry window [3d], where from
				"id, type", // included
				"0",        // volatile: none
				"",         // other excluded: none
				"",         // mismatch [reject]
				"2",        // store: postgres
				"",         // audit row [N]
				"",         // acknowledge before processing [N]
				"1d",       // below Stripe's 3d window
				"forever",  // keys must expire
				"",         // TTL [7d]
				"", "", "", // longest run, lease, heartbeat
				"", "", "", // completed [ack], in progress [conflict], Retry-After [5s]
				"", // no downstream step
			},
			want: design.Answers{
				Operation: "stripe-events",
				Kind:      "other",
				Key:       design.KeyAnswers{Source: "webhook", Provider: "stripe", Scope: "unscoped"},
				Hash:      design.HashAnswers{Include: []string{"id", "type"}, DetectMismatch: new(true)},
				Store:     design.StoreAnswers{Kind: "postgres", AuditRow: new(false)},
				TTL:       "7d",
				Collision: design.CollisionAnswers{Completed: "ack", InProgress: "conflict"},
			},
			output: []string{
				"Which provider? [stripe]",
				"Stripe webhooks: repeats for up to 3d, suggested TTL 7d",
				"Stripe webhooks can repeat a request for up to 3d; suggested TTL 7d. Stripe resends with backoff for three days.",
				"a TTL of 1d is shorter than the 3d retry window of Stripe webhooks",
				rules.ErrForever.Error(),
				"TTL [7d]",
				"Same key and payload, completed [ack]",
				"Does the operation call anything downstream? Add a step?",
			},
		},
		{
			name:  "billing cron job with an email step",
			start: design.Answers{},
			lines: []string{
				"nightly-invoices", "Bills every account once a night", "",
				"2", // kind: billing
				"5", // source: cron
				"invoice-run", "1d", "Europe/Berlin", "y", "account_id",
				"", "", "", // key format, retry window, where from
				"", "0", "", "", // hash: nothing included, nothing excluded, mismatch [reject]
				"2", "", // postgres, audit row [Y] for billing
				"",            // TTL [2d]: two slots
				"40m", "", "", // a 40m run, lease [30s], heartbeat [a third]
				"", "", // completed, in progress: skip; no wait is asked
				"y", "email", "sendgrid", "3", "account_id", "", "", // one step per account, audit-log
				"",
			},
			want: design.Answers{
				Operation:   "nightly-invoices",
				Description: "Bills every account once a night",
				Kind:        "billing",
				Key:         design.KeyAnswers{Source: "cron", Job: "invoice-run", Schedule: "1d", TimeZone: "Europe/Berlin", BusinessDate: true, Scope: "account_id"},
				Hash:        design.HashAnswers{DetectMismatch: new(true)},
				Store:       design.StoreAnswers{Kind: "postgres", AuditRow: new(true)},
				TTL:         "2d",
				Lease:       design.LeaseAnswers{LongestRun: "40m"},
				Collision:   design.CollisionAnswers{Completed: "skip", InProgress: "skip"},
				Downstream:  []design.StepAnswers{{Name: "email", Target: "sendgrid", Mechanism: "audit-log", Item: "account_id"}},
			},
			output: []string{
				"billing (gets a Postgres audit row by default)",
				"Job name",
				"Also write a Postgres audit row? [Y/n]",
				"Key format [invoice-run:{scheduled_time as business date in Europe/Berlin}]",
				"Same key and payload, completed [skip]",
				"Two daemons or a catch-up run can fire the same 1d slot any time within it, so keys are kept for two slots at least; suggested TTL 2d.",
			},
		},
		{
			name:  "queue preset defaults to requeue and ack",
			start: design.Answers{Operation: "ship-order"},
			lines: []string{
				"", "", "3", // queue preset
				"", "", // kind [other], source [queue]
				"", "", // provider [sqs], scope [unscoped]
				"2", "event-id", // the key is the record's event-id attribute
				"", "", "", // key format [{queue}:{event_id}], retry window, where from
				"order_id", "0", "", "",
				"", "", // store [redis], audit row [N]
				"",             // TTL [1d] from SQS
				"2m", "1m", "", // longest run 2m, lease 1m, heartbeat [a third]
				"", "", "", "7", "orders-dlq",
				"",
			},
			want: design.Answers{
				Operation: "ship-order",
				Preset:    "queue",
				Kind:      "other",
				Key:       design.KeyAnswers{Source: "queue", Provider: "sqs", Scope: "unscoped", In: "attribute", Name: "event-id"},
				Hash:      design.HashAnswers{Include: []string{"order_id"}, DetectMismatch: new(true)},
				Store:     design.StoreAnswers{Kind: "redis", AuditRow: new(false)},
				TTL:       "1d",
				Lease:     design.LeaseAnswers{Duration: "1m", LongestRun: "2m"},
				Collision: design.CollisionAnswers{Completed: "ack", InProgress: "requeue", MaxDeliveries: 7, DeadLetter: "orders-dlq"},
			},
			output: []string{"Same key and payload, still in progress [requeue]", "TTL [1d]", "Dead-letter after how many deliveries? [5]"},
		},
		{
			name:  "workflow step",
			start: design.Answers{},
			lines: []string{
				"charge-activity", "", "",
				"", "4", // workflow
				"checkout", "charge", "order_id", "7d", "tenant_id",
				"", // key format [{workflow_id}:charge:{order_id}]
				"", "0", "", "",
				"4", "", // workflow engine state
				"", "", "", "", // TTL, longest run, lease, heartbeat
				"", "", "",
				"",
			},
			want: design.Answers{
				Operation: "charge-activity",
				Kind:      "payment", // from its name
				Key:       design.KeyAnswers{Source: "workflow", Workflow: "checkout", Step: "charge", Param: "order_id", Window: "7d", Scope: "tenant_id"},
				Hash:      design.HashAnswers{DetectMismatch: new(true)},
				Store:     design.StoreAnswers{Kind: "workflow", AuditRow: new(true)},
				TTL:       "7d",
				Collision: design.CollisionAnswers{Completed: "replay", InProgress: "retry"},
			},
			output: []string{
				"Key format {workflow_id}:{step}:{param}, for example wf-1:charge:o-1.",
				"Same key and payload, still in progress [retry]",
				"Retries can reach this workflow key for up to 7d, the window given for it; suggested TTL 7d.",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat := testCatalog()
			a := tc.start
			out := runAccessible(t, script(tc.lines...), func(run func(*huh.Form) error) error {
				return design.Interview(&a, cat, run)
			})
			equalAnswers(t, a, tc.want, out)
			for _, s := range tc.output {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

// clientAnswers are the answers NewForm sees after Q1 for a client key.
func clientAnswers() design.Answers {
	return design.Answers{Operation: "op", Kind: "other", Key: design.KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id"}}
}

func TestFormRejectsInline(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	newForm := func(a *design.Answers) *huh.Form { return design.NewForm(a, cat) }
	for _, tc := range []struct {
		name  string
		start design.Answers
		form  func(*design.Answers) *huh.Form
		lines []string
		shown []string // the error, as the person reads it
		check func(design.Answers) bool
	}{
		{
			name:  "server-generated key",
			start: design.Answers{},
			form:  func(a *design.Answers) *huh.Form { return design.NewSourceForm(a, cat) },
			lines: []string{"", "6", "3"},
			shown: []string{"a server key is rejected (Fresh key per attempt): a key made per attempt is new on every retry", "6. server    rejected: Fresh key per attempt"},
			check: func(a design.Answers) bool { return a.Key.Source == "queue" },
		},
		{
			name:  "memcached",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "5", "1", "", "", "", "", "", "", "", ""},
			shown: []string{"memcached is rejected (Lossy store): memcached evicts keys under memory pressure", "5. memcached rejected: Lossy store"},
			check: func(a design.Answers) bool { return a.Store.Kind == "redis" },
		},
		{
			name:  "forever TTL",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "forever", "never", "48h", "", "", "", "", "", ""},
			shown: []string{rules.ErrForever.Error()},
			check: func(a design.Answers) bool { return a.TTL == "48h" },
		},
		{
			name:  "TTL without a unit",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "24", "", "", "", "", "", "", ""},
			shown: []string{"24 has no unit"},
			check: func(a design.Answers) bool { return a.TTL == "1d" },
		},
		{
			name: "TTL below the window of a provider",
			start: func() design.Answers {
				a := clientAnswers()
				a.Key = design.KeyAnswers{Source: "queue", Provider: "sqs", Scope: "unscoped"}
				return a
			}(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "6h", "12h", "", "", "", "", "", "", "", ""},
			shown: []string{"a TTL of 6h is shorter than the 12h retry window of Amazon SQS standard"},
			check: func(a design.Answers) bool { return a.TTL == "12h" },
		},
		{
			name: "TTL below the window of a further retry source",
			start: func() design.Answers {
				a := clientAnswers()
				a.Key.RetriedBy = []string{"internal-http", "ui"}
				a.TTL = "10m"
				return a
			}(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "", "1h", "", "", "", "", "", ""},
			shown: []string{"TTL [10m]", "a TTL of 10m is shorter than the 30m retry window of User-driven UI retry"},
			check: func(a design.Answers) bool { return a.TTL == "1h" },
		},
		{
			name:  "TTL below a cron slot",
			start: design.Answers{Kind: "other", Key: design.KeyAnswers{Source: "cron", Job: "rollup", Schedule: "1d", Scope: "unscoped"}},
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "20h", "", "", "", "", "", ""},
			shown: []string{"TTL [2d]", "a TTL of 20h is shorter than the 1d retry window of the schedule"},
			check: func(a design.Answers) bool { return a.TTL == "2d" },
		},
		{
			name:  "no mismatch detection",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "2", "1", "", "", "", "", "", "", "", "", ""},
			shown: []string{"processing a different payload under a known key is rejected (No mismatch detection): a different payload under a known key is silently replayed or applied."},
			check: func(a design.Answers) bool { return *a.Hash.DetectMismatch },
		},
		{
			name:  "a field both included and excluded",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"amount, timestamp", "1", "0", "1", "2", "0", "amount: noise", "trace_id: per hop", "", "", "", "", "", "", "", "", "", ""},
			shown: []string{"timestamp is both included and excluded", "amount is both included and excluded"},
			check: func(a design.Answers) bool {
				return reflect.DeepEqual(a.Hash.Include, []string{"amount", "timestamp"}) && reflect.DeepEqual(a.Hash.Exclude, []string{"request_id", "trace_id"})
			},
		},
		{
			name:  "an unknown excluded field without a reason",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "trace_id, client_ip", "trace_id: set per hop, client_ip", "", "", "", "", "", "", "", "", "", ""},
			shown: []string{"say why trace_id is noise for this operation, as trace_id: reason; the catalogue does not know it"},
			check: func(a design.Answers) bool {
				return reflect.DeepEqual(a.Hash.Exclude, []string{"trace_id", "client_ip"}) &&
					reflect.DeepEqual(a.Hash.Reasons, map[string]string{"trace_id": "set per hop"})
			},
		},
		{
			name:  "a step name taken by an earlier step",
			start: design.Answers{},
			form: func(a *design.Answers) *huh.Form {
				a.Downstream = []design.StepAnswers{{}}
				return design.NewStepForm(&a.Downstream[0], cat, []string{"charge"})
			},
			lines: []string{"charge", "refund", "stripe", ""},
			shown: []string{"Q6 · Downstream step 2", "a step is already named charge; each step needs its own derived key"},
			check: func(a design.Answers) bool {
				return reflect.DeepEqual(a.Downstream, []design.StepAnswers{{Name: "refund", Target: "stripe", Mechanism: "provider-key"}})
			},
		},
		{
			name:  "a field name with a space",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"customer id", "customer_id", "0", "", "", "", "", "", "", "", "", "", "", ""},
			shown: []string{`"customer id" is not a field name; separate fields with commas`},
			check: func(a design.Answers) bool { return reflect.DeepEqual(a.Hash.Include, []string{"customer_id"}) },
		},
		{
			name:  "a client is offered the answers an HTTP caller can get",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "", "", "", "", "", "2", ""},
			shown: []string{"1. replay: Replay the stored result", "1. conflict: 409 with Retry-After", "2. wait: Wait, then 409", "Retry-After [5s]"},
			check: func(a design.Answers) bool {
				return a.Collision.Completed == "replay" && a.Collision.InProgress == "wait"
			},
		},
		{
			name: "a queue is offered ack, nack and a dead-letter queue",
			start: func() design.Answers {
				a := clientAnswers()
				a.Key = design.KeyAnswers{Source: "queue", Provider: "sqs", Scope: "unscoped"}
				return a
			}(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "", "", "", "", "", "", "30s", "0", "5", "a:b", "orders-dlq"},
			shown: []string{"1. ack: Acknowledge", "1. requeue: Nack with a delay", "Requeue delay [30s]", "a number of deliveries from 1 to 1000", "':'"},
			check: func(a design.Answers) bool {
				return a.Collision.MaxDeliveries == 5 && a.Collision.DeadLetter == "orders-dlq" && a.Collision.RetryAfter == "30s"
			},
		},
		{
			name:  "a lease whose heartbeat comes too late",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "", "40m", "", "20s", "10s", "", "", ""},
			shown: []string{"20s renews a 30s lease too late"},
			check: func(a design.Answers) bool { return a.Lease.LongestRun == "40m" && a.Lease.Heartbeat == "10s" },
		},
		{
			name:  "no scope",
			start: design.Answers{Key: design.KeyAnswers{Source: "cron"}},
			form:  func(a *design.Answers) *huh.Form { return design.NewKeyForm(a, cat) },
			lines: []string{"job", "1h", "", "", "", "unscoped"},
			shown: []string{"name the field that scopes stored keys (tenant_id), or answer unscoped"},
			check: func(a design.Answers) bool { return a.Key.Scope == "unscoped" },
		},
		{
			name:  "cron slot that never ends",
			start: design.Answers{Key: design.KeyAnswers{Source: "cron"}},
			form:  func(a *design.Answers) *huh.Form { return design.NewKeyForm(a, cat) },
			lines: []string{"job", "forever", "15m", "Mars/Olympus", "Europe/Berlin", "", "unscoped"},
			shown: []string{rules.ErrForever.Error(), `"Mars/Olympus" is not an IANA time zone`},
			check: func(a design.Answers) bool { return a.Key.Schedule == "15m" && a.Key.TimeZone == "Europe/Berlin" },
		},
		{
			name:  "a header name with a space",
			start: design.Answers{Key: design.KeyAnswers{Source: "client"}},
			form:  func(a *design.Answers) *huh.Form { return design.NewKeyForm(a, cat) },
			lines: []string{"Idempotency Key", "X-Request-Key", "unscoped", "0"},
			shown: []string{`not an HTTP header name: "Idempotency Key" has a space`},
			check: func(a design.Answers) bool { return a.Key.Header == "X-Request-Key" },
		},
		{
			name:  "a workflow step name with a colon",
			start: design.Answers{Key: design.KeyAnswers{Source: "workflow"}},
			form:  func(a *design.Answers) *huh.Form { return design.NewKeyForm(a, cat) },
			lines: []string{"checkout", "charge:card", "charge", "order_id", "7d", "unscoped"},
			shown: []string{`the step name "charge:card" has a ':', the separator of key parts`},
			check: func(a design.Answers) bool { return a.Key.Step == "charge" },
		},
		{
			name:  "a hundred-year TTL",
			start: clientAnswers(),
			form:  newForm,
			lines: []string{"", "0", "", "", "", "", "36500d", "48h", "", "", "", "", "", ""},
			shown: []string{"keeping keys forever in all but name"},
			check: func(a design.Answers) bool { return a.TTL == "48h" },
		},
		{
			name:  "a description over its limit",
			start: design.Answers{Operation: "refund"},
			form: func(a *design.Answers) *huh.Form {
				var preset string
				return design.NewStartForm(a, cat, &preset)
			},
			lines: []string{"", strings.Repeat("x", 5000), "Refunds a charge", ""},
			shown: []string{"description too long: 5000 bytes, at most 4096"},
			check: func(a design.Answers) bool { return a.Description == "Refunds a charge" },
		},
		{
			name:  "an operation without a name",
			start: design.Answers{},
			form: func(a *design.Answers) *huh.Form {
				var preset string
				return design.NewStartForm(a, cat, &preset)
			},
			lines: []string{"", "-", "refund", "", ""},
			shown: []string{"an operation name is required"},
			check: func(a design.Answers) bool { return a.Operation == "refund" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.start
			out := runAccessible(t, script(tc.lines...), func(run func(*huh.Form) error) error {
				return run(tc.form(&a))
			})
			for _, s := range tc.shown {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if !tc.check(a) {
				got, _ := yaml.Marshal(a)
				t.Errorf("answers after the re-prompt are wrong:\n%s\noutput:\n%s", got, out)
			}
		})
	}
}

// The TTL is prefilled with what Decide would suggest, and the note says
// where the number comes from.
func TestFormTTLSuggestion(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	for _, tc := range []struct {
		name string
		key  design.KeyAnswers
		want []string
	}{
		{
			name: "nothing bounds the retries",
			key:  design.KeyAnswers{Source: "workflow", Workflow: "w", Step: "s", Param: "p", Scope: "unscoped"},
			want: []string{"TTL [1d]", "Nothing known bounds this operation's retries; the catalogue's default is 1d."},
		},
		{
			name: "a client key is retried by people",
			key:  design.KeyAnswers{Source: "client", Scope: "unscoped"},
			want: []string{"TTL [1d]", "User-driven UI retry can repeat a request for up to 30m; suggested TTL 1d."},
		},
		{
			name: "a sender that does not retry by itself is resent",
			key:  design.KeyAnswers{Source: "webhook", Provider: "github", Scope: "unscoped"},
			want: []string{"TTL [7d]", "GitHub webhooks: no automatic retries, but a delivery can be resent for up to 3d; suggested TTL 7d."},
		},
		{
			name: "the provider with the longest window decides",
			key:  design.KeyAnswers{Source: "webhook", Provider: "stripe", RetriedBy: []string{"ui", "internal-http"}, Scope: "unscoped"},
			want: []string{"TTL [7d]", "Stripe webhooks can repeat a request for up to 3d; suggested TTL 7d."},
		},
		{
			name: "a queue that no clock bounds",
			key:  design.KeyAnswers{Source: "queue", Provider: "rabbitmq", Scope: "unscoped"},
			want: []string{"TTL [7d]", "No clock bounds a redelivery from RabbitMQ; the policy is 7d unless key.window says otherwise."},
		},
		{
			name: "a window given in the answers",
			key:  design.KeyAnswers{Source: "workflow", Workflow: "w", Step: "s", Param: "p", Window: "3d", Scope: "unscoped"},
			want: []string{"TTL [3d]", "Retries can reach this workflow key for up to 3d"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := design.Answers{Kind: "other", Key: tc.key}
			lines := make([]string, 13, 15)
			lines[1] = "0"
			switch tc.key.Source {
			case "webhook":
				lines = append(lines, "") // acknowledge first
			case "queue":
				lines = append(lines, "", "") // dead-letter count and queue
			}
			out := runAccessible(t, script(lines...), func(run func(*huh.Form) error) error {
				return run(design.NewForm(&a, cat))
			})
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

// A loaded design keeps its answers unless the person changes them: Enter
// keeps, "-" clears, and an empty step name drops the step.
func TestFormKeepsClearsAndDrops(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	a := design.Answers{
		Operation:   "refund",
		Description: "Refunds a charge",
		Kind:        "payment",
		Key:         design.KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id", Provider: "stripe", Job: "stale"},
		Hash:        design.HashAnswers{Include: []string{"charge_id"}, Exclude: []string{"timestamp", "trace_id"}, Reasons: map[string]string{"trace_id": "per hop"}},
		Store:       design.StoreAnswers{Kind: "postgres", AuditRow: new(false)},
		TTL:         "2d",
		Collision:   design.CollisionAnswers{Completed: "replay", InProgress: "wait", RetryAfter: "2s"},
		Downstream: []design.StepAnswers{
			{Name: "refund", Target: "stripe", Mechanism: "provider-key"},
			{Name: "email", Target: "sendgrid", Mechanism: "message-id"},
		},
	}
	out := runAccessible(t, script(
		"", "-", "", // operation kept, description cleared, keep the loaded answers
		"", "", // kind, source
		"", "", "0", // header, scope, retried by
		"", "", "", // key format, retry window, where from
		"-", "0", "", "", // included cleared, exclusions kept
		"", "", "", // store, audit row, TTL
		"", "", "", // longest run, lease, heartbeat
		"", "", "", // collisions
		"", "", "", "", "", "", // step refund kept: no reason asked for provider-key
		"-", "", "", // step email dropped: nothing more asked about it
		"",
	), func(run func(*huh.Form) error) error { return design.Interview(&a, cat, run) })

	want := design.Answers{
		Operation: "refund",
		Kind:      "payment",
		Key:       design.KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id"},
		Hash: design.HashAnswers{
			Exclude:        []string{"timestamp", "trace_id"},
			Reasons:        map[string]string{"trace_id": "per hop"},
			DetectMismatch: new(true),
		},
		Store:      design.StoreAnswers{Kind: "postgres", AuditRow: new(false)},
		TTL:        "2d",
		Collision:  design.CollisionAnswers{Completed: "replay", InProgress: "wait", RetryAfter: "2s"},
		Downstream: []design.StepAnswers{{Name: "refund", Target: "stripe", Mechanism: "provider-key"}},
	}
	equalAnswers(t, a, want, out)
	for _, s := range []string{
		"1. keep the answers loaded",
		"What does it do? [Refunds a charge]",
		"Other excluded fields (name: why it is noise, comma separated) [trace_id: per hop]",
		"Store [postgres]",
		"Also write a Postgres audit row? [y/N]",
		"Same key and payload, still in progress [wait]",
		"Step name [email]",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestFormInputEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		input     string
		operation string // read before the end
		preset    string // applied before the end
	}{
		{name: "nothing at all", input: ""},
		{name: "in the middle", input: "refund\n\n", operation: "refund"},
		{name: "after a last line without a newline", input: "refund\nRefunds\n2", operation: "refund", preset: "payment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a design.Answers
			var out strings.Builder
			err := design.Interview(&a, testCatalog(), design.RunWith(context.Background(), strings.NewReader(tc.input), &out, true))
			if !errors.Is(err, huh.ErrUserAborted) {
				t.Fatalf("err = %v, want huh.ErrUserAborted\noutput:\n%s", err, out.String())
			}
			if a.Operation != tc.operation || a.Preset != tc.preset {
				t.Errorf("operation, preset = %q, %q; want %q, %q", a.Operation, a.Preset, tc.operation, tc.preset)
			}
		})
	}
}

// The terminal view must show what accessible mode shows: the catalogue's
// text with its underscores (notes render a little markdown) and every
// option of a select, the bound one under the cursor.
func TestFormTerminalView(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	for _, tc := range []struct {
		name string
		form func(*design.Answers) *huh.Form
		a    design.Answers
		want []string
	}{
		{
			name: "key format in a note",
			form: func(a *design.Answers) *huh.Form { return design.NewKeyForm(a, cat) },
			a:    design.Answers{Key: design.KeyAnswers{Source: "workflow"}},
			want: []string{"{workflow_id}:{step}:{param}"},
		},
		{
			name: "mismatch detection offers both answers",
			form: func(a *design.Answers) *huh.Form {
				f := design.NewForm(a, cat)
				f.NextGroup() // Q2 goes on over a second group
				return f
			},
			a:    clientAnswers(),
			want: []string{"> refuse it: never processed, logged loudly (Q5 says how)", "process it anyway"},
		},
		{
			name: "a select shows the options above its default",
			form: func(a *design.Answers) *huh.Form { return design.NewSourceForm(a, cat) },
			a:    design.Answers{Kind: "other", Key: design.KeyAnswers{Source: "cron"}},
			want: []string{"payment (gets a Postgres audit row by default)", "billing", "email", "> other"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.a
			f := tc.form(&a).WithWidth(120)
			f.Init()
			f.Update(nil) // lays the first group out
			view := f.View()
			for _, s := range tc.want {
				if !strings.Contains(view, s) {
					t.Errorf("view lacks %q:\n%s", s, view)
				}
			}
		})
	}
}

// responder answers accessible prompts from what the form printed last: the
// given lines first, then "0" to confirm a multi-select, "unscoped" to a
// scope with no default, and Enter to everything else. It gives up (ends
// the input, which aborts the form) after max answers, so a prompt that
// keeps re-asking fails the test instead of hanging it.
type responder struct {
	out     *strings.Builder
	first   []string
	pending []byte
	max     int
}

func (r *responder) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if r.max == 0 {
			return 0, io.EOF
		}
		r.max--
		out := r.out.String()
		prompt := out[strings.LastIndex(out, "\n")+1:]
		answer := ""
		switch {
		case len(r.first) > 0:
			answer, r.first = r.first[0], r.first[1:]
		case strings.HasPrefix(prompt, "Enter a number between 0 and"):
			answer = "0"
		case strings.HasPrefix(prompt, "Scope stored keys by") && !strings.Contains(prompt, "["):
			answer = "unscoped"
		}
		r.pending = []byte(answer + "\n")
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// Every preset of the embedded catalogue walks through the interview with
// Enter alone, and keeps every answer it gives: its answers all apply to its
// key source and pass the form's checks.
func TestFormDefaultCatalogPresets(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for i, id := range design.PresetIDs(cat) {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			want := design.Answers{Operation: "op"}
			if err := design.ApplyPreset(cat, id, &want); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			in := &responder{out: &out, first: []string{"", "", strconv.Itoa(i + 2)}, max: 200}
			a := design.Answers{Operation: "op"}
			if err := design.Interview(&a, cat, design.RunWith(context.Background(), in, &out, true)); err != nil {
				t.Fatalf("interview: %v\noutput:\n%s", err, out.String())
			}
			if a.Preset != id {
				t.Fatalf("preset = %q, want %q", a.Preset, id)
			}
			// A preset may answer in another transport's words (a cron
			// preset's "ack"); the form shows, and keeps, the source's own.
			want.Collision.Completed = canonicalPolicy(want.Key.Source, want.Collision.Completed)
			want.Collision.InProgress = canonicalPolicy(want.Key.Source, want.Collision.InProgress)
			if want.Key.Source == "cron" {
				want.Key.Job = "op" // named after the operation, not the preset's example
			}
			keeps(t, "", toMap(t, want), toMap(t, a))
			if a.Key.Scope == "" || a.TTL == "" || a.Store.Kind == "" || a.Collision.Completed == "" {
				t.Errorf("an answer was left empty:\n%s", yamlOf(a))
			}
		})
	}
}

func toMap(t *testing.T, a design.Answers) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(yamlOf(a)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func yamlOf(a design.Answers) string {
	b, _ := yaml.Marshal(a)
	return string(b)
}

// keeps reports every value in want that got does not hold the same.
func keeps(t *testing.T, path string, want, got map[string]any) {
	t.Helper()
	for k, w := range want {
		g := got[k]
		if wm, ok := w.(map[string]any); ok {
			gm, _ := g.(map[string]any)
			keeps(t, path+k+".", wm, gm)
			continue
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s%s = %v, the preset gave %v", path, k, g, w)
		}
	}
}

// canonicalPolicy is the word a source uses for a collision answer given
// in another transport's words.
func canonicalPolicy(src, policy string) string {
	aliases := map[string]map[string]string{
		"queue":    {"nack": "requeue"},
		"workflow": {"conflict": "retry"},
		"cron":     {"ack": "skip", "conflict": "skip"},
	}
	if to, ok := aliases[src][policy]; ok {
		return to
	}
	return policy
}

// The kind question starts from what the operation's name says, and the
// preset question shows what Enter keeps.
func TestFormDefaultsFromTheName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ op, kind string }{
		{"create payment", "payment"},
		{"Charge card", "payment"},
		{"refund-order", "payment"},
		{"pay invoice", "payment"},
		{"send invoice", "billing"},
		{"renew subscription", "billing"},
		{"send welcome email", "email"},
		{"process payload", "other"},
		{"import orders", "other"},
	} {
		a := design.Answers{Operation: tc.op}
		design.NewSourceForm(&a, testCatalog())
		if a.Kind != tc.kind {
			t.Errorf("%q: kind %q, want %q", tc.op, a.Kind, tc.kind)
		}
	}
	a := design.Answers{Operation: "create payment", Kind: "other"}
	design.NewSourceForm(&a, testCatalog())
	if a.Kind != "other" {
		t.Errorf("a kind already given became %q", a.Kind)
	}

	var preset string
	out := runAccessible(t, script("", "", ""), func(run func(*huh.Form) error) error {
		return run(design.NewStartForm(&design.Answers{Operation: "op"}, testCatalog(), &preset))
	})
	if !strings.Contains(out, "Start from a common pattern? [none]") {
		t.Errorf("the preset question does not show its default:\n%s", out)
	}
}

// Q5's note gives each answer that is not asked a paragraph of its own.
func TestCollisionNoteParagraphs(t *testing.T) {
	t.Parallel()
	a := design.Answers{Operation: "op", Key: design.KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "unscoped"}}
	out := runAccessible(t, script("", "0", "", "", "", "", "", "", "", "", "", "", ""), func(run func(*huh.Form) error) error {
		return run(design.NewForm(&a, testCatalog()))
	})
	want := "Same key, different payload: 422, logged, not processed.\n\nSame key after the TTL: a new request.\n\nChoose what"
	if !strings.Contains(out, want) {
		t.Errorf("Q5's note lacks %q:\n%s", want, out)
	}
}

// A provider's key of several parts stays whole when its location is
// kept: Adyen's is pspReference and eventCode, and the name question shows
// the first of them only.
func TestKeyDetailKeepsAProvidersKeyWhole(t *testing.T) {
	t.Parallel()
	a := design.Answers{Operation: "adyen events", Key: design.KeyAnswers{Source: "webhook", Provider: "adyen", Scope: "unscoped"}}
	out := runAccessible(t, script("", "", "", "", ""), func(run func(*huh.Form) error) error {
		return run(design.NewKeyDetailForm(&a, rules.Default()))
	})
	for _, want := range []string{
		"Its name there [/NotificationRequestItem/pspReference]",
		"Key format [{provider}:{psp_reference}:{event_code}]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if a.Key.Format != "{provider}:{psp_reference}:{event_code}" {
		t.Errorf("format %q", a.Key.Format)
	}
}

// A provider of another source (left by a queue preset when the source
// became cron) is dropped, not shown as the default of a list without it.
func TestKeyFormDropsAnotherSourcesProvider(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct{ source, want string }{
		{"cron", ""},
		{"workflow", ""},
		{"webhook", "stripe"},
	} {
		a := design.Answers{Operation: "op", Key: design.KeyAnswers{Source: tc.source, Provider: "sqs-standard"}}
		design.NewKeyForm(&a, cat)
		if a.Key.Provider != tc.want {
			t.Errorf("%s: provider %q, want %q", tc.source, a.Key.Provider, tc.want)
		}
	}
}

// In accessible mode Ctrl-C is a signal, which ends ctx: the prompt that
// waits for a line stops with huh.ErrUserAborted.
func TestAccessibleStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	in, w := io.Pipe() // a terminal nobody types on
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	var preset string
	done := make(chan error, 1)
	go func() {
		done <- design.RunWith(ctx, in, &out, true)(design.NewStartForm(&design.Answers{}, testCatalog(), &preset))
	}()
	cancel()
	if err := <-done; !errors.Is(err, huh.ErrUserAborted) {
		t.Errorf("err = %v, want huh.ErrUserAborted", err)
	}
}

// A scheduled job is named after its operation: with no job given, and
// over the cron preset's example (hourly-rollup); a workflow's or cron
// job's provider, which is optional, shows [none] when there is none.
func TestCronJobNamedAfterTheOperation(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	a := design.Answers{Operation: "nightly invoices", Key: design.KeyAnswers{Source: "cron"}}
	out := runAccessible(t, script("", "", "1d", "", "", "unscoped"), func(run func(*huh.Form) error) error {
		return run(design.NewKeyForm(&a, cat))
	})
	if a.Key.Job != "nightly-invoices" {
		t.Errorf("job %q, want nightly-invoices", a.Key.Job)
	}
	if !strings.Contains(out, "Which provider? [none]") {
		t.Errorf("the optional provider does not show its default:\n%s", out)
	}

	var presetOut strings.Builder
	in := &responder{out: &presetOut, first: []string{"", "", strconv.Itoa(slices.Index(design.PresetIDs(cat), "cron") + 2)}, max: 200}
	b := design.Answers{Operation: "nightly invoices"}
	if err := design.Interview(&b, cat, design.RunWith(context.Background(), in, &presetOut, true)); err != nil {
		t.Fatalf("interview: %v\n%s", err, presetOut.String())
	}
	if b.Key.Job != "nightly-invoices" || b.Kind != "billing" {
		t.Errorf("after the cron preset: job %q, kind %q; want nightly-invoices, billing", b.Key.Job, b.Kind)
	}
}

// A workflow step's run timeout, which Decide requires, is refused empty
// with what to give, and starts from the engine's window when it has one.
func TestWorkflowRunTimeout(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	a := design.Answers{Operation: "charge", Key: design.KeyAnswers{Source: "workflow", Provider: "temporal"}}
	out := runAccessible(t, script("", "checkout", "charge", "order_id", "", "7d", "unscoped"), func(run func(*huh.Form) error) error {
		return run(design.NewKeyForm(&a, cat))
	})
	if want := "give the workflow's run timeout, e.g. 7d"; !strings.Contains(out, want) {
		t.Errorf("an empty run timeout is not refused with %q:\n%s", want, out)
	}
	b := design.Answers{Operation: "charge", Key: design.KeyAnswers{Source: "workflow", Provider: "step-functions"}}
	out = runAccessible(t, script("", "checkout", "charge", "order_id", "", "unscoped"), func(run func(*huh.Form) error) error {
		return run(design.NewKeyForm(&b, cat))
	})
	if b.Key.Window != "14d" || !strings.Contains(out, "Workflow run timeout [14d]") {
		t.Errorf("window %q, want Step Functions' 14d shown and kept:\n%s", b.Key.Window, out)
	}
}

// Answers that name a provider as people write it (a preset or a spec
// edited by hand) keep that provider in the form, by its ID, instead of
// falling back to the menu's first; so do the ones in retried_by.
func TestKeyFormFindsProvidersByName(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	a := design.Answers{Operation: "events", Key: design.KeyAnswers{Source: "webhook", Provider: "Checkout.com", RetriedBy: []string{"Internal HTTP retry policy"}}}
	out := runAccessible(t, script("", "unscoped", "0"), func(run func(*huh.Form) error) error {
		return run(design.NewKeyForm(&a, cat))
	})
	if a.Key.Provider != "checkout-com" || !slices.Equal(a.Key.RetriedBy, []string{"internal-http"}) {
		t.Errorf("provider %q, retried_by %v; want checkout-com, [internal-http]\n%s", a.Key.Provider, a.Key.RetriedBy, out)
	}
	if !strings.Contains(out, "Which provider? [checkout-com]") {
		t.Errorf("the provider question does not default to checkout-com:\n%s", out)
	}
}

// A step's target that could be two catalogue targets is refused where it
// is typed, with both; a name that is one target, or no target at all, is
// taken as written (Decide records the ID).
func TestStepFormRefusesAnAmbiguousTarget(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	s := design.StepAnswers{Mechanism: "provider-key"}
	out := runAccessible(t, script("transfer", "Plaid", "Plaid Bank Transfers", ""), func(run func(*huh.Form) error) error {
		return run(design.NewStepForm(&s, cat, nil))
	})
	if !strings.Contains(out, "plaid-bank-transfer") || !strings.Contains(out, "plaid-transfer-authorization") {
		t.Errorf("the ambiguous target is not refused with both IDs:\n%s", out)
	}
	if s.Target != "Plaid Bank Transfers" {
		t.Errorf("target %q, want Plaid Bank Transfers", s.Target)
	}
	a := design.Answers{Operation: "pay", Key: design.KeyAnswers{Source: "client"}, Downstream: []design.StepAnswers{s}}
	d, err := design.Decide(a, cat)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Spec.Downstream[0].Target; got != "plaid-bank-transfer" {
		t.Errorf("the spec records target %q, want plaid-bank-transfer", got)
	}
}

// The retry window question shows a provider's number with what of it
// was not checked against the provider's documentation, as the spec will.
func TestKeyDetailSaysWhatIsUnverified(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		provider string
		caveat   bool
	}{{"gocardless", true}, {"stripe", false}} {
		a := design.Answers{Operation: "events", Key: design.KeyAnswers{Source: "webhook", Provider: tc.provider, Scope: "unscoped"}}
		out := runAccessible(t, script("", "", "", "", ""), func(run func(*huh.Form) error) error {
			return run(design.NewKeyDetailForm(&a, rules.Default()))
		})
		if got := strings.Contains(out, "Not checked against the documentation of "); got != tc.caveat {
			t.Errorf("%s: caveat shown %v, want %v:\n%s", tc.provider, got, tc.caveat, out)
		}
	}
}
