package design

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func presetAnswers(t *testing.T, id, op string) Answers {
	t.Helper()
	a := Answers{Operation: op}
	if err := ApplyPreset(rules.Default(), id, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPresetGolden decides every preset and pins the rendered spec. Run
// with -update to rewrite testdata/presets/*.md, and review the diff.
func TestPresetGolden(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, id := range PresetIDs(cat) {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(presetAnswers(t, id, id+" example"), cat)
			if err != nil {
				t.Fatalf("Decide(preset %s): %v", id, err)
			}
			if err := d.Spec.Validate(); err != nil {
				t.Fatalf("preset %s decides an invalid spec: %v", id, err)
			}
			d.Spec.Idemkit = "test"
			got, err := templates.RenderSpec(d.Spec)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "presets", id+".md")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("preset %s: rendered spec differs from %s; run go test ./internal/design -update and review the diff", id, golden)
			}
		})
	}
}

// TestRoundTrip decides, renders, parses the rendered spec, recovers its
// answers, and decides again: the second spec must be the first.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cases := map[string]Answers{}
	for _, id := range PresetIDs(cat) {
		cases[id] = presetAnswers(t, id, "round trip "+id)
	}
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "charge-card.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cases["demo"], err = ParseAnswers(demo); err != nil {
		t.Fatal(err)
	}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d1, err := Decide(a, cat)
			if err != nil {
				t.Fatal(err)
			}
			doc1, err := templates.RenderSpec(d1.Spec)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := spec.Parse(doc1)
			if err != nil {
				t.Fatalf("rendered spec does not parse: %v", err)
			}
			d2, err := Decide(AnswersFromSpec(parsed, cat), cat)
			if err != nil {
				t.Fatalf("answers recovered from the spec do not decide: %v", err)
			}
			doc2, err := templates.RenderSpec(d2.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if string(doc1) != string(doc2) {
				t.Errorf("design -> spec -> answers -> design changed the spec:\n--- first\n%s\n--- second\n%s", doc1, doc2)
			}
		})
	}
}

func TestDecideRejects(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	no := false
	cases := []struct {
		name        string
		edit        func(*Answers)
		antiPattern string
		wantMsg     []string
	}{
		{"server per-attempt key", func(a *Answers) { a.Key.Source = "server" }, "per-attempt-key", []string{"every attempt"}},
		{"server uuid in key format", func(a *Answers) {
			a.Key.Source, a.Key.Provider, a.Key.Format, a.TTL = "queue", "sqs-fifo", "{uuid}", ""
		}, "per-attempt-key", []string{"{uuid} made by this service"}},
		{"attempt in key format", func(a *Answers) { a.Key.Format = "{order_id}:{attempt}" }, "per-attempt-key", []string{"{attempt}"}},
		{"memcached", func(a *Answers) { a.Store.Kind = "memcached" }, "memcached-store", []string{"Memcached"}},
		{"keys forever", func(a *Answers) { a.TTL = "forever" }, "keys-forever", []string{"forever"}},
		{"user id alone", func(a *Answers) { a.Key.Format = "{user_id}" }, "key-per-user", []string{"names who acts"}},
		{"user id in a longer format", func(a *Answers) { a.Key.Format = "transfer:{user_id}" }, "key-per-user", []string{"transfer:{user_id}"}},
		{"tenant and user", func(a *Answers) { a.Key.Format = "{tenant_id}:{user_id}" }, "key-per-user", []string{"names who acts"}},
		{"user and date", func(a *Answers) { a.Key.Format = "{user_id}:{date}" }, "key-per-user", []string{"names who acts"}},
		{"user and date for a queue", func(a *Answers) {
			a.Key.Source, a.Key.Provider, a.TTL, a.Key.Format = "queue", "sqs-standard", "30d", "{customer_id}:{date}"
		}, "key-per-user", []string{"names who acts"}},
		{"business key of identity alone", func(a *Answers) { a.Downstream[0].BusinessKey = []string{"user_id", "tenant_id"} }, "key-per-user", []string{"who acts"}},
		{"a hundred years", func(a *Answers) { a.TTL = "36500d" }, "keys-forever", []string{"in all but name"}},
		{"no mismatch detection", func(a *Answers) { a.Hash.DetectMismatch = &no }, "no-mismatch-detection", []string{"different payload"}},
		{"ack for a client key", func(a *Answers) { a.Collision.Completed = "ack" }, "no-response-stored", []string{"empty 200"}},
		{"ttl below stripe window", func(a *Answers) {
			a.Key.Source, a.Key.Provider, a.TTL = "webhook", "stripe", "24h"
		}, "ttl-below-retry-window", []string{"1d", "3d", "Stripe"}},
		{"ttl below internal retries", func(a *Answers) { a.TTL = "2m" }, "ttl-below-retry-window", []string{"2m", "1h"}},
		{"ttl below cron slot", func(a *Answers) {
			a.Key = KeyAnswers{Source: "cron", Job: "nightly", Schedule: "1d"}
			a.TTL = "12h"
		}, "ttl-below-retry-window", []string{"12h", "1d", "schedule"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "payment", "charge")
			if _, err := Decide(a, cat); err != nil {
				t.Fatalf("the unedited preset must decide: %v", err)
			}
			tc.edit(&a)
			_, err := Decide(a, cat)
			var rej *RejectedError
			if !errors.As(err, &rej) {
				t.Fatalf("Decide = %v, want a RejectedError (%s)", err, tc.antiPattern)
			}
			if rej.AntiPattern != tc.antiPattern {
				t.Errorf("anti-pattern = %s, want %s (%v)", rej.AntiPattern, tc.antiPattern, err)
			}
			if rej.Fix == "" {
				t.Errorf("rejection has no fix from the catalogue: %v", err)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestDecideInputErrors(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cases := []struct {
		name    string
		edit    func(*Answers)
		field   string
		wantMsg []string
	}{
		{"no operation", func(a *Answers) { a.Operation = " " }, "operation", []string{"required"}},
		{"only punctuation", func(a *Answers) { a.Operation = "../../" }, "operation", []string{"ASCII"}},
		{"newline in operation", func(a *Answers) { a.Operation = "a\nb" }, "operation", []string{"one line"}},
		{"no source", func(a *Answers) { a.Key.Source = "" }, "key.source", []string{"client", "webhook"}},
		{"unknown source", func(a *Answers) { a.Key.Source = "fax" }, "key.source", []string{"fax", "cron"}},
		{"unknown provider", func(a *Answers) { a.Key.Source, a.Key.Provider = "webhook", "strype" }, "key.provider", []string{"strype", "stripe", "github"}},
		{"webhook without provider", func(a *Answers) { a.Key.Source, a.Key.Provider = "webhook", "" }, "key.provider", []string{"required", "stripe"}},
		{"queue provider for webhook", func(a *Answers) { a.Key.Source, a.Key.Provider = "webhook", "kafka" }, "key.provider", []string{"queue provider"}},
		{"unknown retried_by", func(a *Answers) { a.Key.RetriedBy = []string{"nope"} }, "key.retried_by[0]", []string{"nope"}},
		{"newline in job", func(a *Answers) { a.Key = KeyAnswers{Source: "cron", Job: "a\nb", Schedule: "1h"} }, "key.job", []string{"one line"}},
		{"cron without schedule", func(a *Answers) { a.Key = KeyAnswers{Source: "cron", Job: "j"} }, "key.schedule", []string{"required"}},
		{"workflow without step", func(a *Answers) { a.Key = KeyAnswers{Source: "workflow", Workflow: "orders"} }, "key.step", []string{"required"}},
		{"bad ttl", func(a *Answers) { a.TTL = "3 days" }, "ttl", []string{"3 days"}},
		{"unknown store", func(a *Answers) { a.Store.Kind = "etcd" }, "store.kind", []string{"etcd", "redis", "postgres"}},
		{"excluded and included", func(a *Answers) { a.Hash.Exclude = append(a.Hash.Exclude, "amount") }, "hash.exclude[2]", []string{"both"}},
		{"unknown excluded field without reason", func(a *Answers) { a.Hash.Exclude = []string{"shard"} }, "hash.reasons.shard", []string{"why"}},
		{"bad collision answer", func(a *Answers) { a.Collision.Completed = "ignore" }, "collision.completed", []string{`"ignore"`, "one of replay", "an HTTP caller gets a status"}},
		{"requeue outside a queue", func(a *Answers) { a.Collision.InProgress = "requeue" }, "collision.in_progress", []string{"requeue", "one of conflict, wait"}},
		{"unknown mechanism", func(a *Answers) { a.Downstream[0].Mechanism = "hope" }, "downstream[0].mechanism", []string{"hope", "provider-key"}},
		{"duplicate step", func(a *Answers) { a.Downstream[1].Name = "Charge" }, "downstream[1].name", []string{"twice"}},
		{"step without name", func(a *Answers) { a.Downstream[0].Name = "" }, "downstream[0].name", []string{"required"}},
		{"header with a space", func(a *Answers) { a.Key.Header = "Idempotency Key" }, "key.header", []string{"a space"}},
		{"header with a colon", func(a *Answers) { a.Key.Header = "Idempotency-Key:" }, "key.header", []string{"a colon"}},
		{"colon in a workflow step", func(a *Answers) {
			a.Key = KeyAnswers{Source: "workflow", Workflow: "orders", Step: "charge:card", Window: "7d"}
		}, "key.step", []string{"':'"}},
		{"colon in a workflow parameter", func(a *Answers) {
			a.Key = KeyAnswers{Source: "workflow", Workflow: "orders", Step: "charge", Param: "a:b", Window: "7d"}
		}, "key.param", []string{"':'"}},
		{"colon in a job", func(a *Answers) { a.Key = KeyAnswers{Source: "cron", Job: "a:b", Schedule: "1h"} }, "key.job", []string{"':'"}},
		{"megabyte description", func(a *Answers) { a.Description = strings.Repeat("x", 1<<20) }, "description", []string{"too long"}},
		{"five thousand steps", func(a *Answers) {
			a.Downstream = make([]StepAnswers, 5000)
			for i := range a.Downstream {
				a.Downstream[i] = StepAnswers{Name: fmt.Sprintf("s%d", i)}
			}
		}, "downstream", []string{"too many", "5000"}},
		{"body key without a pointer", func(a *Answers) { a.Key.Header, a.Key.In, a.Key.Name = "", "body", "key" }, "key.name", []string{"start with '/'"}},
		{"client key in an attribute", func(a *Answers) { a.Key.In, a.Key.Name = "attribute", "k" }, "key.in", []string{"header or a body field"}},
		{"unknown key location", func(a *Answers) {
			a.Key = KeyAnswers{Source: "queue", Provider: "sqs-standard", In: "cookie", Name: "id"}
			a.TTL = "30d"
		}, "key.in", []string{"cookie"}},
		{"unknown time zone", func(a *Answers) {
			a.Key = KeyAnswers{Source: "cron", Job: "j", Schedule: "1d", TimeZone: "Mars/Olympus"}
		}, "key.time_zone", []string{"IANA"}},
		{"business date of an hourly job", func(a *Answers) {
			a.Key = KeyAnswers{Source: "cron", Job: "j", Schedule: "1h", BusinessDate: true}
		}, "key.business_date", []string{"1d"}},
		{"item that is not a field", func(a *Answers) { a.Downstream[0].Item = "{customer}" }, "downstream[0].item", []string{"not a field name"}},
		{"item and business key", func(a *Answers) {
			a.Downstream[0].Item, a.Downstream[0].BusinessKey = "customer_id", []string{"order_id"}
		}, "downstream[0].business_key", []string{"not both"}},
		{"window out of range", func(a *Answers) { a.Key.Window = "500d" }, "key.window", []string{"366d"}},
		{"provider key for an email API", func(a *Answers) {
			a.Downstream[2].Target, a.Downstream[2].Mechanism = "sendgrid-mail", "provider-key"
		}, "downstream[2].mechanism", []string{"does not", "guard"}},
		{"provider key for an email API named as people write it", func(a *Answers) {
			a.Downstream[2].Target, a.Downstream[2].Mechanism = "SendGrid", "provider-key"
		}, "downstream[2].mechanism", []string{"SendGrid", "does not"}},
		{"message id for an email API", func(a *Answers) {
			a.Downstream[2].Target, a.Downstream[2].Mechanism = "sendgrid-mail", "message-id"
		}, "downstream[2].mechanism", []string{"SendGrid"}},
		{"stripe key under stripe's webhook window", func(a *Answers) {
			a.Key = KeyAnswers{Source: "webhook", Provider: "stripe"}
			a.TTL, a.Collision = "7d", CollisionAnswers{}
			a.Downstream[0].Target = "stripe-api"
		}, "downstream[0].mechanism", []string{"1d", "3d", "guard-row"}},
		{"a reason for a keyed step", func(a *Answers) { a.Downstream[1].Why = "it is an upsert" }, "downstream[1].why", []string{"only a naturally idempotent"}},
		{"natural for an email API", func(a *Answers) {
			a.Downstream[2].Target, a.Downstream[2].Mechanism, a.Downstream[2].Why = "sendgrid-mail", "natural", "hope"
		}, "downstream[2].mechanism", []string{"natural"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "payment", "charge")
			tc.edit(&a)
			_, err := Decide(a, cat)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Decide = %v, want an InputError on %s", err, tc.field)
			}
			if ie.Field != tc.field {
				t.Errorf("field = %s, want %s (%v)", ie.Field, tc.field, err)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestDecideDefaults(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	d, err := Decide(Answers{Operation: "Stripe events", Key: KeyAnswers{Source: "webhook", Provider: "stripe"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Spec
	stripe, _ := cat.Provider("stripe")
	if s.TTL.Duration != stripe.SuggestedTTL || s.TTL.RetryWindow != stripe.RetryWindow || s.TTL.WindowSource != "stripe" {
		t.Errorf("TTL = %+v, want Stripe's suggested %s over its %s window", s.TTL, stripe.SuggestedTTL, stripe.RetryWindow)
	}
	if s.Store.Kind != cat.Defaults.Store || s.Store.AuditRow {
		t.Errorf("store = %+v, want the default %s without an audit row", s.Store, cat.Defaults.Store)
	}
	if s.Slug != "stripe-events" || s.Key.Provider != "stripe" || s.Key.Example != "stripe:"+stripe.KeyExample {
		t.Errorf("key = %+v slug %q", s.Key, s.Slug)
	}
	var cases []string
	for _, c := range s.Collisions {
		cases = append(cases, c.Case)
	}
	if got := strings.Join(cases, ","); got != "completed,in_progress,mismatch,expired" {
		t.Errorf("collision rows = %s", got)
	}
	// A webhook sender retries on its own schedule: a 409 without a
	// Retry-After it would ignore.
	if s.Collisions[1].Status != 409 || s.Collisions[1].RetryAfter != 0 || strings.Contains(s.Collisions[1].Response, "Retry-After") {
		t.Errorf("in-progress row = %+v, want 409 without Retry-After", s.Collisions[1])
	}

	// A payment operation gets a Postgres audit row on top of Redis.
	pay, err := Decide(Answers{Operation: "pay", Kind: "payment", Key: KeyAnswers{Source: "client"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	if !pay.Spec.Store.AuditRow || pay.Spec.Store.Kind != "redis" {
		t.Errorf("payment store = %+v, want redis plus a Postgres audit row", pay.Spec.Store)
	}
	if pay.Spec.Key.Scope != "tenant_id" || pay.Spec.Key.Field != "header Idempotency-Key" {
		t.Errorf("client key = %+v", pay.Spec.Key)
	}
}

func TestDecideCronAndWorkflow(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cron, err := Decide(Answers{Operation: "hourly invoices", Key: KeyAnswers{Source: "cron", Job: "invoices", Schedule: "1h"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cron.Spec.Key.Example, "invoices:2026-03-14T15:00:00Z"; got != want {
		t.Errorf("cron example = %q, want the slot floored to the hour %q", got, want)
	}
	if cron.Spec.TTL.RetryWindow != rules.MustDuration("1h") || cron.Spec.TTL.Duration < rules.MustDuration("2h") {
		t.Errorf("cron TTL = %+v, want at least two 1h slots", cron.Spec.TTL)
	}
	wf, err := Decide(Answers{Operation: "reserve stock", Key: KeyAnswers{Source: "workflow", Workflow: "order-fulfilment", Step: "reserve", Param: "sku", Window: "7d"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	if wf.Spec.Key.Format != "{workflow_id}:reserve:{sku}" {
		t.Errorf("workflow format = %q", wf.Spec.Key.Format)
	}
}

func TestDecideNotes(t *testing.T) {
	t.Parallel()
	a := presetAnswers(t, "payment", "charge")
	a.Hash.Include = append(a.Hash.Include, "timestamp")
	a.Hash.Exclude = nil
	a.TTL = "60d"
	d, err := Decide(a, rules.Default())
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, "\n")
	for _, w := range []string{"timestamp", "60d"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q do not mention %s", notes, w)
		}
	}
}

func TestApplyPresetRejectsUnknownFields(t *testing.T) {
	t.Parallel()
	cat, err := rules.LoadOverrides(".idemkit.yaml", []byte("presets:\n  - id: mine\n    title: Mine\n    description: A team preset.\n    answers:\n      key:\n        source: client\n        provder: ui\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := Answers{Operation: "x"}
	err = ApplyPreset(cat, "mine", &a)
	if err == nil || !strings.Contains(err.Error(), "provder") {
		t.Fatalf("ApplyPreset = %v, want an error naming the misspelt field", err)
	}
	if err := ApplyPreset(cat, "payment", &a); err != nil || a.Operation != "x" || a.Preset != "payment" {
		t.Fatalf("ApplyPreset(payment) = %v, answers %+v", err, a)
	}
}

// TestDecideLenient checks answers a good design may leave out or give in
// another form: it decides, with a note where the spec would say more.
func TestDecideLenient(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	a := presetAnswers(t, "payment", "charge")
	a.Downstream[1].Mechanism = "natural"
	d, err := Decide(a, cat)
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Spec.Downstream[1]; st.Why == "" || !strings.Contains(strings.Join(d.Notes, "\n"), "downstream[1].why") {
		t.Errorf("a natural step without a reason: why %q, notes %q", st.Why, d.Notes)
	}

	hook := Answers{Operation: "acme", Key: KeyAnswers{Source: "webhook", Provider: "stripe", Header: "X-Acme-Id"}, Store: StoreAnswers{Kind: "postgres"}}
	d, err = Decide(hook, cat)
	if err != nil {
		t.Fatal(err)
	}
	if k := d.Spec.Key; k.In != "header" || k.Name != "X-Acme-Id" || k.Field != "header X-Acme-Id" || k.Format != "{provider}:{x_acme_id}" {
		t.Errorf("a webhook key.header: in %q name %q field %q format %q", k.In, k.Name, k.Field, k.Format)
	}
}

// TestAnswersFromOlderSpec reads the answers back from specs written
// before key.job and key.workflow existed, where they were only text.
func TestAnswersFromOlderSpec(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	cron := &spec.Spec{Key: spec.Key{Source: "cron", Format: "nightly-invoices:{scheduled_time floored to 1d}", Schedule: rules.MustDuration("1d")}}
	if a := AnswersFromSpec(cron, cat); a.Key.Job != "nightly-invoices" {
		t.Errorf("job = %q from an older cron spec", a.Key.Job)
	}
	wf := &spec.Spec{Key: spec.Key{Source: "workflow", Field: "workflow ID of checkout, step charge, parameter order_id"}}
	if a := AnswersFromSpec(wf, cat); a.Key.Workflow != "checkout" || a.Key.Step != "charge" || a.Key.Param != "order_id" {
		t.Errorf("workflow answers = %+v from an older workflow spec", a.Key)
	}
}

// TestDecideProviderScope checks that a provider whose key is unique only
// within something else (GitHub's delivery GUID, per hook) says so.
func TestDecideProviderScope(t *testing.T) {
	t.Parallel()
	d, err := Decide(Answers{Operation: "pushes", Key: KeyAnswers{Source: "webhook", Provider: "github"}, Store: StoreAnswers{Kind: "postgres"}}, rules.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "key.scope") || !strings.Contains(d.Spec.Key.Rationale, "unique only per") {
		t.Errorf("no word on GitHub's per-hook key: notes %q, rationale %q", d.Notes, d.Spec.Key.Rationale)
	}
}

// TestDecideKeyParts checks that every webhook and queue provider's key
// reaches the spec as data: its parts in the format's order, where each is
// read, and for a batch the array of events, each keyed on its own.
func TestDecideKeyParts(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, p := range cat.Providers {
		if p.Kind != rules.KindWebhook && p.Kind != rules.KindQueue {
			continue
		}
		t.Run(p.ID, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(Answers{Operation: "handle " + p.ID, Key: KeyAnswers{Source: p.Source, Provider: p.ID}}, cat)
			if err != nil {
				t.Fatal(err)
			}
			k := d.Spec.Key
			if len(k.Parts) != len(p.Key.From) {
				t.Fatalf("parts = %+v, want the catalogue's %+v", k.Parts, p.Key.From)
			}
			for i, l := range p.Key.From {
				if want := (spec.KeyPart{Part: l.Part, In: l.Kind, Name: l.Name}); k.Parts[i] != want {
					t.Errorf("parts[%d] = %+v, want %+v", i, k.Parts[i], want)
				}
			}
			if k.Batch != p.Key.Batch || k.Items != p.Key.Items {
				t.Errorf("batch %v items %q, want %v %q", k.Batch, k.Items, p.Key.Batch, p.Key.Items)
			}
		})
	}
}

func TestDecideKeyPartsOverridden(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	sf, ok := cat.Provider("salesforce")
	if !ok {
		t.Fatal("no salesforce in the catalogue")
	}
	salesforceAck := sf.Ack.Body
	tests := []struct {
		name string
		key  KeyAnswers
		want []spec.KeyPart
		ack  string
	}{
		{"adyen", KeyAnswers{Source: "webhook", Provider: "adyen"}, []spec.KeyPart{
			{Part: "psp_reference", In: "body", Name: "/NotificationRequestItem/pspReference"},
			{Part: "event_code", In: "body", Name: "/NotificationRequestItem/eventCode"},
		}, ""},
		{"salesforce acknowledges in SOAP", KeyAnswers{Source: "webhook", Provider: "salesforce"},
			[]spec.KeyPart{{Part: "notification_id", In: "body", Name: "/Id"}}, salesforceAck},
		{"location from the answers", KeyAnswers{Source: "queue", Provider: "kafka", In: "attribute", Name: "event-id"},
			[]spec.KeyPart{{Part: "event_id", In: "attribute", Name: "event-id"}}, ""},
		{"format keeps the parts it uses", KeyAnswers{Source: "webhook", Provider: "adyen", Format: "{provider}:{psp_reference}"},
			[]spec.KeyPart{{Part: "psp_reference", In: "body", Name: "/NotificationRequestItem/pspReference"}}, ""},
		{"format of other placeholders drops them", KeyAnswers{Source: "webhook", Provider: "stripe", Format: "{provider}:{object_id}"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(Answers{Operation: "events", Key: tt.key}, cat)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Spec.Key.Parts, tt.want) || d.Spec.Key.Ack != tt.ack {
				t.Errorf("parts %+v ack %q, want %+v %q", d.Spec.Key.Parts, d.Spec.Key.Ack, tt.want, tt.ack)
			}
		})
	}
}

// TestDecideDeliveryFields checks that the body fields a provider changes
// between deliveries of one event are left out of the hash, or every
// redelivery would be a mismatch; a field the answers include stays in.
func TestDecideDeliveryFields(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	tests := []struct {
		provider string
		include  []string
		want     []string
	}{
		{"hubspot", nil, []string{"attemptNumber"}},
		{"stripe", nil, []string{"pending_webhooks"}},
		{"stripe", []string{"pending_webhooks"}, nil},
		{"github", nil, nil},
	}
	for _, tt := range tests {
		d, err := Decide(Answers{Operation: "events", Key: KeyAnswers{Source: "webhook", Provider: tt.provider}, Hash: HashAnswers{Include: tt.include}}, cat)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range d.Spec.Hash.Exclude {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s including %v: hash.exclude %v, want %v", tt.provider, tt.include, got, tt.want)
		}
	}
}

// TestSpecLines pins lines of the rendered spec that read wrong before: a
// window's justification said the same thing twice, a lease line claimed a
// longest run nobody gave, an example key ignored the format given, a body
// key's rationale named a header, and the ack body was a map of decide's.
func TestSpecLines(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	render := func(t *testing.T, a Answers) (*spec.Spec, string) {
		t.Helper()
		d, err := Decide(a, cat)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := templates.RenderSpec(d.Spec)
		if err != nil {
			t.Fatal(err)
		}
		return d.Spec, string(doc)
	}
	line := func(doc, prefix string) string {
		for l := range strings.Lines(doc) {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		return ""
	}

	t.Run("UI window said once", func(t *testing.T) {
		t.Parallel()
		_, doc := render(t, Answers{Operation: "create order", Key: KeyAnswers{Source: "client", Provider: "internal-http", RetriedBy: []string{"ui"}}})
		ttl := line(doc, "- TTL: ")
		if n := strings.Count(ttl, "hard bound"); n != 1 || strings.Count(ttl, "resubmit") != 1 {
			t.Errorf("the TTL line says how people retry %d times, want once:\n%s", n, ttl)
		}
	})
	t.Run("no longest run given", func(t *testing.T) {
		t.Parallel()
		s, doc := render(t, Answers{Operation: "create order", Key: KeyAnswers{Source: "client"}})
		lease := line(doc, "- Lease: ")
		if s.TTL.LongestRun != 0 || strings.Contains(lease, "The longest run") ||
			!strings.Contains(lease, "No longest run was given") || !strings.Contains(lease, "30s lease (idemkit's default)") {
			t.Errorf("longest_run %s; lease line:\n%s\nwant it to say no longest run was given and that 30s is the default", s.TTL.LongestRun, lease)
		}
	})
	for _, tc := range []struct {
		name    string
		key     KeyAnswers
		example string
	}{
		{"Adyen custom format", KeyAnswers{Source: "webhook", Provider: "adyen", Format: "{provider}/{event_code}/{psp_reference}"}, "adyen/AUTHORISATION/8815658961765250"},
		{"Adyen catalogue format", KeyAnswers{Source: "webhook", Provider: "adyen"}, "adyen:8815658961765250:AUTHORISATION"},
		{"Kafka catalogue format", KeyAnswers{Source: "queue", Provider: "kafka"}, "orders:orders-3-1048576"},
		{"client custom format", KeyAnswers{Source: "client", Format: "order:{idempotency_key}"}, "order:8e03978e-40d5-43e8-bc93-6894a57f9326"},
		{"unknown placeholder", KeyAnswers{Source: "webhook", Provider: "stripe", Format: "{provider}:{event_id}:{order_id}"}, "stripe:evt_1NG8Du2eZvKYlo2CUI79vXWy:order-42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := render(t, Answers{Operation: "handle it", Key: tc.key})
			if s.Key.Example != tc.example {
				t.Errorf("format %s: example %q, want %q", s.Key.Format, s.Key.Example, tc.example)
			}
		})
	}
	t.Run("every provider's example is in its format", func(t *testing.T) {
		t.Parallel()
		for _, p := range cat.Providers {
			if p.Kind != rules.KindWebhook && p.Kind != rules.KindQueue {
				continue
			}
			s, _ := render(t, Answers{Operation: "handle " + p.ID, Key: KeyAnswers{Source: p.Source, Provider: p.ID}})
			if got := formatValues(p.Key.Format, p.KeyExample); len(got) == 0 || !strings.HasSuffix(s.Key.Example, ":"+p.KeyExample) {
				t.Errorf("%s: example %q is not a key in format %s", p.ID, s.Key.Example, s.Key.Format)
			}
		}
	})
	t.Run("body key rationale", func(t *testing.T) {
		t.Parallel()
		s, _ := render(t, Answers{Operation: "create transfer", Key: KeyAnswers{Source: "client", In: "body", Name: "/idempotency_key"}})
		if strings.Contains(s.Key.Rationale, "header") || !strings.Contains(s.Key.Rationale, "body field /idempotency_key") {
			t.Errorf("a body key's rationale: %q", s.Key.Rationale)
		}
	})
	t.Run("ack and payload from the catalogue", func(t *testing.T) {
		t.Parallel()
		for _, p := range cat.Providers {
			if p.Kind != rules.KindWebhook {
				continue
			}
			s, _ := render(t, Answers{Operation: "handle " + p.ID, Key: KeyAnswers{Source: "webhook", Provider: p.ID}})
			payload := p.Payload
			if payload == rules.PayloadJSON {
				payload = ""
			}
			if s.Key.Ack != p.Ack.Body || s.Key.Payload != payload {
				t.Errorf("%s: ack %q payload %q, want the catalogue's %q and %q", p.ID, s.Key.Ack, s.Key.Payload, p.Ack.Body, payload)
			}
		}
	})
}

// TestNotesAndTTLWords pins the wording of two notes engineers read: a
// configurable window is named without a possessive on a phrase ("Kafka
// with manual commits's"), and the UI window's reason is said once.
func TestNotesAndTTLWords(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	d, err := Decide(Answers{Operation: "op", Key: KeyAnswers{Source: "queue", Provider: "kafka"}, Store: StoreAnswers{Kind: "postgres"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range d.Notes {
		if strings.Contains(n, "'s 7d") || strings.Contains(n, "s's") {
			t.Errorf("note %q: a possessive on a name that is a phrase", n)
		}
	}
	ui, err := Decide(Answers{Operation: "op", Key: KeyAnswers{Source: "client"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ui.Spec.TTL.Justification, "open tab"); n != 1 {
		t.Errorf("UI justification says the open tab %d times: %s", n, ui.Spec.TTL.Justification)
	}
}

// TestWebhookKeyRationale keeps a webhook key's rationale in the chosen
// sender's words: its name and where its own key parts are read, never
// another sender's ID.
func TestWebhookKeyRationale(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, id := range cat.ProviderIDs(spec.SourceWebhook) {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			p, _ := cat.Provider(id)
			got, err := Decide(Answers{Operation: id + " events", Key: KeyAnswers{Source: spec.SourceWebhook, Provider: id}}, cat)
			if err != nil {
				t.Fatal(err)
			}
			r := got.Spec.Key.Rationale
			if !strings.Contains(r, p.Name) {
				t.Errorf("rationale does not name %s: %s", p.Name, r)
			}
			for _, l := range p.Key.From {
				if !strings.Contains(r, l.Name) {
					t.Errorf("rationale does not say where %s is read (%s %s): %s", l.Part, l.Kind, l.Name, r)
				}
			}
			for _, other := range []string{"evt_", "X-GitHub-Delivery"} {
				if strings.Contains(r, other) && !strings.Contains(p.KeyField, other) {
					t.Errorf("rationale names another sender's key %q: %s", other, r)
				}
			}
		})
	}
}

// TestProviderKeyWords keeps a step's mechanism text to its own target:
// only the chosen target's key is named, and the guard-row advice comes
// only when the source's retries outlast the target's memory of a key,
// with both numbers.
func TestProviderKeyWords(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct {
		name       string
		key        KeyAnswers
		target     string
		mechanism  string
		want, deny []string
	}{
		{"adyen from a client", KeyAnswers{Source: spec.SourceClient}, "adyen-api", "provider-key",
			[]string{"Adyen API", "Idempotency-Key"}, []string{"Stripe", "guard row", "3-day"}},
		{"stripe from a client", KeyAnswers{Source: spec.SourceClient}, "stripe-api", "provider-key",
			[]string{"Stripe API", "Idempotency-Key"}, []string{"Adyen", "guard row", "3-day", "webhook"}},
		{"stripe under stripe webhooks", KeyAnswers{Source: spec.SourceWebhook, Provider: "stripe"}, "stripe-api", "guard-row",
			[]string{"forgets keys after 1d", "Stripe webhooks can repeat this operation for 3d"}, []string{"Adyen"}},
		{"paypal from a client", KeyAnswers{Source: spec.SourceClient}, "paypal-api", "provider-key",
			[]string{"PayPal", "PayPal-Request-Id"}, []string{"Stripe", "Adyen", "guard row"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decide(Answers{Operation: "pay", Key: tc.key, Downstream: []StepAnswers{{Name: "charge", Target: tc.target, Mechanism: tc.mechanism}}}, cat)
			if err != nil {
				t.Fatal(err)
			}
			st := got.Spec.Downstream[0]
			text := st.How + " " + st.Dedup
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("step text lacks %q: %s", w, text)
				}
			}
			for _, w := range tc.deny {
				if strings.Contains(text, w) {
					t.Errorf("step text has %q: %s", w, text)
				}
			}
		})
	}
}

// TestWebhookFailureAnswer keeps a webhook's failure line to the sender's
// own facts: no sender is said to redeliver a 5xx that its documentation
// says it does not.
func TestWebhookFailureAnswer(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct{ provider, want, deny string }{
		{"stripe", "Stripe webhooks redelivers it for up to 3d", "own schedule"},
		{"github", "GitHub webhooks does not redeliver a failed delivery by itself", "redelivers it for up to"},
		{"twilio", "never an HTTP answer", "redelivers it for up to"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			got, err := Decide(Answers{Operation: tc.provider + " events", Key: KeyAnswers{Source: spec.SourceWebhook, Provider: tc.provider}}, cat)
			if err != nil {
				t.Fatal(err)
			}
			a := got.Spec.Failure.Answer
			if !strings.Contains(a, tc.want) || strings.Contains(a, tc.deny) {
				t.Errorf("failure answer = %q, want %q and not %q", a, tc.want, tc.deny)
			}
		})
	}
}

// TestFloorIn holds the spec's example slot to the rule generated cron handlers follow: a daily
// slot starts at local midnight on the calendar, on the day daylight saving time begins too (an
// offset taken at the scheduled time would put it at 23:00 the day before), and a shorter slot is
// counted on the wall clock from local midnight, half-hour offsets included: on the day the clocks
// go forward a 6h job's 06:00 run is the 06:00 slot, not the midnight one (whose run it would be
// skipped as a repeat of), and in the hour they go back each pass has its own slot.
func TestFloorIn(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Time
		slot time.Duration
		want time.Time
	}{
		{time.Date(2026, 3, 29, 15, 9, 0, 0, berlin), 24 * time.Hour, time.Date(2026, 3, 29, 0, 0, 0, 0, berlin)},
		{time.Date(2026, 10, 25, 23, 30, 0, 0, berlin), 24 * time.Hour, time.Date(2026, 10, 25, 0, 0, 0, 0, berlin)},
		{time.Date(2026, 3, 14, 15, 29, 0, 0, kolkata), time.Hour, time.Date(2026, 3, 14, 15, 0, 0, 0, kolkata)},
		{time.Date(2026, 3, 14, 15, 29, 0, 0, time.UTC), 15 * time.Minute, time.Date(2026, 3, 14, 15, 15, 0, 0, time.UTC)},
		{time.Date(2026, 3, 29, 6, 0, 0, 0, berlin), 6 * time.Hour, time.Date(2026, 3, 29, 6, 0, 0, 0, berlin)},
		{time.Date(2026, 3, 29, 15, 29, 0, 0, berlin), 2 * time.Hour, time.Date(2026, 3, 29, 14, 0, 0, 0, berlin)},
		{time.Date(2026, 10, 25, 18, 5, 0, 0, berlin), 6 * time.Hour, time.Date(2026, 10, 25, 18, 0, 0, 0, berlin)},
		// 02:30 comes twice on 25 October: first at 00:30 UTC (CEST), then at 01:30 UTC (CET).
		{time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC).In(berlin), time.Hour, time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC).In(berlin), time.Hour, time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC)},
		{time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC).In(berlin), 30 * time.Minute, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
	} {
		if got := floorIn(tc.at, tc.slot); !got.Equal(tc.want) {
			t.Errorf("floorIn(%v, %v) = %v, want %v", tc.at, tc.slot, got, tc.want)
		}
	}
}
