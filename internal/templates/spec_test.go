package templates

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// clientPayment is a client-keyed payment endpoint with three downstream
// steps and an audit row: the seed's payment pattern.
func clientPayment() *spec.Spec {
	return &spec.Spec{
		Schema:      spec.SchemaVersion,
		Idemkit:     "v0.1.0",
		Operation:   "charge card",
		Slug:        "charge-card",
		Description: "POST /v1/charges takes a card payment for an order and emails a receipt.",
		Preset:      "payment",
		Kind:        "payment",
		Patterns:    spec.PatternsLink,
		Key: spec.Key{
			Source:    spec.SourceClient,
			Field:     "header Idempotency-Key",
			Format:    "{uuid}",
			Example:   "8e03978e-40d5-43e8-bc93-6894a57f9324",
			Scope:     "tenant_id",
			Rationale: "The client makes one UUID per press of *Pay* and sends it again on every retry of that press.",
		},
		Hash: spec.Hash{
			Algorithm: spec.HashSHA256JCS,
			Include:   []string{"customer_id", "order_id", "amount", "currency"},
			Exclude: []spec.Field{
				{Name: "timestamp", Reason: "set by the client on each attempt"},
				{Name: "request_id", Reason: "new on every attempt; it traces, it does not identify"},
			},
		},
		Store: spec.Store{
			Kind:      "redis",
			Name:      "Redis",
			Primitive: "SET key value NX PX lease",
			AuditRow:  true,
			Rationale: "One atomic round trip per claim; payments also get a Postgres audit row.",
		},
		TTL: spec.TTL{
			Duration:      rules.MustDuration("24h"),
			RetryWindow:   rules.MustDuration("5m"),
			WindowSource:  "internal HTTP retry policy",
			Justification: "a page reload a day later is still the same press of Pay",
			Lease:         rules.MustDuration("30s"),
		},
		Collisions: []spec.Collision{
			{Case: spec.CaseCompleted, When: "Same key, same hash, completed", Response: "stored status, headers and body replayed with Idempotent-Replayed: true", Status: 200},
			{Case: spec.CaseInProgress, When: "Same key, same hash, in progress", Response: "problem+json; the client retries after the delay", Status: 409, RetryAfter: rules.MustDuration("5s")},
			{Case: spec.CaseMismatch, When: "Same key, different hash", Response: "problem+json, logged as an alert; the second payload is not processed", Status: 422},
			{Case: spec.CaseExpired, When: "Same key, TTL expired", Response: "treated as a new request"},
		},
		Downstream: []spec.Step{
			{Name: "charge", Target: "Stripe PaymentIntents", Mechanism: spec.MechanismProviderKey, Key: "{key}:charge", How: "Idempotency-Key header on the create call"},
			{Name: "record order", Target: "orders table", Mechanism: spec.MechanismOnConflict, Key: "{key}:record-order", How: "INSERT ... ON CONFLICT (id) DO NOTHING"},
			{Name: "receipt email", Target: "SendGrid", Mechanism: spec.MechanismMessageID, Key: "{key}:receipt-email", How: "custom message ID; SendGrid drops repeats"},
		},
	}
}

// stripeWebhook is a webhook receiver with no downstream steps.
func stripeWebhook() *spec.Spec {
	return &spec.Spec{
		Schema:      spec.SchemaVersion,
		Idemkit:     "v0.1.0",
		Operation:   "Stripe invoice.paid",
		Slug:        "stripe-invoice-paid",
		Description: "Marks the invoice paid when Stripe reports it.",
		Preset:      "webhook",
		Patterns:    spec.PatternsLink,
		Key: spec.Key{
			Source:       spec.SourceWebhook,
			Provider:     "stripe",
			ProviderName: "Stripe webhooks",
			Field:        "body id (event.id), read after the signature check",
			Format:       "{event_id}",
			Example:      "evt_1NG8Du2eZvKYlo2CUI79vXWy",
			Scope:        "unscoped",
			Rationale:    "Stripe sends the same event ID with every redelivery of one event.",
		},
		Hash: spec.Hash{Algorithm: spec.HashSHA256JCS, Include: []string{"type", "data"}},
		Store: spec.Store{
			Kind:      "postgres",
			Name:      "Postgres webhook_inbox",
			Primitive: "INSERT ... ON CONFLICT (key) DO NOTHING RETURNING",
			Rationale: "The inbox row is the audit trail and commits with the invoice update.",
		},
		TTL: spec.TTL{
			Duration:      rules.MustDuration("7d"),
			RetryWindow:   rules.MustDuration("72h"),
			WindowSource:  "stripe",
			Justification: "twice Stripe's three days of redeliveries, and a manual resend after them",
			Lease:         rules.MustDuration("1m"),
		},
		Collisions: []spec.Collision{
			{Case: spec.CaseCompleted, When: "Same event, already processed", Response: "acknowledge without processing again", Status: 200},
			{Case: spec.CaseInProgress, When: "Same event, still being processed", Response: "409 + Retry-After: 60 — Stripe redelivers later", Status: 409, RetryAfter: rules.MustDuration("1m")},
			{Case: spec.CaseMismatch, When: "Same event ID, different body", Response: "reject and alert: a forged or corrupted delivery", Status: 422},
			{Case: spec.CaseExpired, When: "Same event after 7 days", Response: "processed as new; past every redelivery Stripe makes"},
		},
	}
}

// nightlyCron is a cron job keyed by its slot, with one audit-logged step.
func nightlyCron() *spec.Spec {
	return &spec.Spec{
		Schema:    spec.SchemaVersion,
		Idemkit:   "v0.1.0",
		Operation: "nightly invoice run",
		Slug:      "nightly-invoice-run",
		Preset:    "cron",
		Kind:      "billing",
		Patterns:  spec.PatternsLink,
		Key: spec.Key{
			Source:    spec.SourceCron,
			Field:     "the scheduler's fire time",
			Format:    "{job}:{scheduled_time}",
			Example:   "nightly-invoice-run:2026-11-30T00:00:00Z",
			Scope:     "unscoped",
			Schedule:  rules.MustDuration("1d"),
			Rationale: "Two schedulers firing the same night make the same key.",
		},
		Hash: spec.Hash{Algorithm: spec.HashSHA256JCS, Include: []string{"job", "scheduled_time"}},
		Store: spec.Store{
			Kind:      "postgres",
			Name:      "Postgres",
			Primitive: "INSERT ... ON CONFLICT (key) DO NOTHING RETURNING",
			AuditRow:  true,
			Rationale: "Billing needs the audit row, and the run is once a day.",
		},
		TTL: spec.TTL{
			Duration:      rules.MustDuration("3d"),
			RetryWindow:   rules.MustDuration("1d"),
			WindowSource:  "the job's own slot",
			Justification: "a late or doubled fire arrives within the day",
			Lease:         rules.MustDuration("2h"),
		},
		Collisions: []spec.Collision{
			{Case: spec.CaseCompleted, When: "Slot already run", Response: "skip the run"},
			{Case: spec.CaseInProgress, When: "Slot running elsewhere", Response: "skip; the running scheduler finishes it"},
			{Case: spec.CaseMismatch, When: "Same slot, different parameters", Response: "fail the run and alert"},
			{Case: spec.CaseExpired, When: "Slot older than 3 days", Response: "a new run"},
		},
		Downstream: []spec.Step{
			{Name: "issue invoices", Target: "Billing API", Mechanism: spec.MechanismAuditLog, Key: "{key}:issue-invoices"},
		},
	}
}

var representative = map[string]func() *spec.Spec{
	"client-payment": clientPayment,
	"stripe-webhook": stripeWebhook,
	"nightly-cron":   nightlyCron,
}

func TestRenderSpecGolden(t *testing.T) {
	t.Parallel()
	for name, mk := range representative {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk()
			if err := s.Validate(); err != nil {
				t.Fatalf("the representative spec is invalid: %v", err)
			}
			got, err := RenderSpec(s)
			if err != nil {
				t.Fatalf("RenderSpec: %v", err)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/templates -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("RenderSpec differs from %s (run with -update if the change is meant):\n%s", path, diffLines(string(want), string(got)))
			}
			if bytes.Contains(got, []byte("❌")) {
				t.Errorf("a valid spec fails its self-check:\n%s", got)
			}
			checkStructure(t, got, s)
		})
	}
}

// diffLines shows the first line that differs, which is enough to find it.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

func TestRenderSpecRoundTrip(t *testing.T) {
	t.Parallel()
	for name, mk := range representative {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, mk())
		})
	}
}

// roundTrip renders s, parses the result and renders again: the spec must
// come back equal and the bytes identical.
func roundTrip(t testing.TB, s *spec.Spec) []byte {
	t.Helper()
	first, err := RenderSpec(s)
	if err != nil {
		t.Fatalf("RenderSpec: %v", err)
	}
	parsed, err := spec.Parse(first)
	if err != nil {
		t.Fatalf("Parse(RenderSpec(s)): %v\n%s", err, first)
	}
	if want, got := normalize(s), normalize(parsed); !reflect.DeepEqual(want, got) {
		t.Fatalf("Parse(RenderSpec(s)) =\n%#v\nwant\n%#v", got, want)
	}
	second, err := RenderSpec(parsed)
	if err != nil {
		t.Fatalf("RenderSpec(Parse(...)): %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("render, parse, render is not byte-identical:\n%s", diffLines(string(first), string(second)))
	}
	return first
}

// normalize treats empty and nil lists alike: YAML writes both as [] and
// reads [] back as nil.
func normalize(s *spec.Spec) *spec.Spec {
	c := *s
	if len(c.Hash.Include) == 0 {
		c.Hash.Include = nil
	}
	if len(c.Hash.Exclude) == 0 {
		c.Hash.Exclude = nil
	}
	if len(c.Collisions) == 0 {
		c.Collisions = nil
	}
	if len(c.Downstream) == 0 {
		c.Downstream = nil
	}
	return &c
}

func TestRenderSpecSections(t *testing.T) {
	t.Parallel()
	doc, err := RenderSpec(clientPayment())
	if err != nil {
		t.Fatal(err)
	}
	body := bodyOf(t, doc)
	for _, want := range []string{
		"# Idempotency Design: charge card\n",
		"- Source: client — the caller makes one key per logical action",
		"- Format: `{uuid}`\n- Example: `8e03978e-40d5-43e8-bc93-6894a57f9324`\n- Read from: header Idempotency-Key\n",
		"- Scope: the namespace, `tenant_id`, the method and the route, then the client's key",
		"- Included fields: `customer_id`, `order_id`, `amount`, `currency`\n",
		"| `request_id` | new on every attempt; it traces, it does not identify |\n",
		"- TTL: 1d, for the 5m retry window of internal HTTP retry policy — a page reload a day later is still the same press of Pay\n",
		"- Lease: 30s — a claim still in progress after this is taken over by the next attempt with a new fencing token",
		"- Audit row: yes",
		"| `in_progress` | Same key, same hash, in progress | 409 + Retry-After: 5 — problem+json; the client retries after the delay |\n",
		"| `expired` | Same key, TTL expired | treated as a new request |\n",
		"| record order | orders table | INSERT ... ON CONFLICT DO NOTHING (`on-conflict`) | `{key}:record-order` |\n",
		"- **record order**: INSERT ... ON CONFLICT (id) DO NOTHING\n",
		"    participant D1 as Stripe PaymentIntents\n",
		"    H->>S: claim key with fingerprint, lease 30s\n    alt new key, every step succeeds\n        H->>D1: charge, key {key}:charge\n",
		"        H->>A: write audit row\n        H->>S: complete with the response, kept 1d\n",
		"    else a step fails, 5xx, panic or timeout\n        H->>S: release key\n",
		"- **Mismatch**: the same key with a different payload → 422 — problem+json",
		"- **Concurrent retries**: two requests with one key at once → one runs the operation; the other → 409 + Retry-After: 5",
		"- **TTL expiry**: the same key after the 1d TTL → treated as a new request\n",
		"- **Crash mid-flight**: the handler fails or dies after claiming the key → the key is released (or its 30s lease lapses) and the next retry succeeds, running the operation once, each step deduplicating on its derived key\n",
		"- ✅ TTL covers every retry window: TTL 1d ≥ the 5m retry window of internal HTTP retry policy\n",
		"- ✅ Every side effect has its own mechanism: 3 steps, each with its own mechanism and a key derived from the parent (`{key}:charge`, `{key}:record-order`, `{key}:receipt-email`)\n",
		"\nPatterns: [idempotency patterns](../patterns/idempotency-patterns.md)\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	if !strings.HasSuffix(body, "Patterns: [idempotency patterns](../patterns/idempotency-patterns.md)\n") {
		t.Errorf("the body does not end with the patterns link:\n%s", body)
	}
}

func TestRenderSpecWebhookWording(t *testing.T) {
	t.Parallel()
	doc, err := RenderSpec(stripeWebhook())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- Source: webhook — the event ID Stripe webhooks sends again with every redelivery\n- Provider: `stripe`\n",
		"- Scope: unscoped — the key is global on purpose\n",
		"No field is excluded.\n",
		"None: the key guards the operation's only write.\n",
		"    participant C as Stripe webhooks\n",
		"- ✅ TTL covers every retry window: TTL 7d ≥ the 3d retry window of Stripe webhooks\n",
		"- ✅ Every side effect has its own mechanism: no downstream side effects; the key guards the only write\n",
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("webhook spec lacks %q", want)
		}
	}
	if strings.Contains(string(doc), "Audit row: yes") || strings.Contains(string(doc), "participant A") {
		t.Error("an audit row is shown for a spec without one")
	}
}

func TestRenderSpecSelfCheckFailures(t *testing.T) {
	t.Parallel()
	s := stripeWebhook()
	s.TTL.Duration = rules.MustDuration("24h")
	s.TTL.Lease = 0
	s.Collisions = s.Collisions[:3]
	s.Downstream = []spec.Step{{Name: "email", Key: "{key}:email"}}
	s.Store.Name = ""
	doc := string(roundTrip(t, s))
	for _, want := range []string{
		"- ✅ Key stable across retries: `{event_id}` is the ID the sender repeats on every redelivery",
		"- ❌ TTL covers every retry window: ttl.duration: 1d is shorter than the 3d retry window of stripe; a late retry would run the operation again\n",
		"- ❌ All collision types handled: collisions: no row for expired",
		"- ❌ Every side effect has its own mechanism: downstream[0].mechanism: missing",
		"- ❌ Tests cover replay, mismatch, concurrency, expiry and crash mid-flight: collisions: no row for expired",
		"- ❌ No error path leaves a poisoned key: ttl.lease: missing; without a lease a crashed holder leaves the key in progress until the TTL runs out\n",
		"- ❌ Front matter complete: store.name: missing\n",
		"- **TTL expiry**: the same key after the 1d TTL → (no expired row in the collision table)\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("self-check lacks %q", want)
		}
	}
}

func TestRenderSpecNil(t *testing.T) {
	t.Parallel()
	if _, err := RenderSpec(nil); err == nil || err.Error() != "render spec: no spec" {
		t.Errorf("RenderSpec(nil) = %v, want render spec: no spec", err)
	}
}

// hostile puts text meant to break markdown tables, headings, HTML and the
// Mermaid diagram into every name the user chooses.
func hostile(texts ...string) *spec.Spec {
	s := clientPayment()
	at := func(i int) string { return texts[i%len(texts)] }
	s.Operation = at(0)
	s.Description = at(1)
	s.Kind = at(2)
	s.Key.Field = at(3)
	s.Key.Format = at(4)
	s.Key.Example = at(5)
	s.Key.Scope = at(6)
	s.Key.Rationale = at(7)
	s.Hash.Include = []string{at(8), at(9) + "2"}
	s.Hash.Exclude = []spec.Field{{Name: at(10), Reason: at(11)}}
	s.Store.Name = at(12)
	s.Store.Primitive = at(13)
	s.TTL.WindowSource = at(14)
	s.TTL.Justification = at(15)
	s.Collisions[0].When = at(16)
	s.Collisions[1].Response = at(17)
	s.Patterns = at(18)
	for i := range s.Downstream {
		s.Downstream[i].Name = at(19+i) + fmt.Sprint(i)
		s.Downstream[i].Target = at(22 + i)
		s.Downstream[i].Key = at(25+i) + fmt.Sprint(i)
		s.Downstream[i].How = at(28 + i)
	}
	return s
}

var hostileTexts = []string{
	"a | b",
	"line one\nline two",
	"## Injected heading\n- item\n| x | y |\n|---|---|",
	"</td><!-- hidden",
	"```\nend\n```",
	"charge; participant X as Y",
	"A->>B: hi\nB-->>A: ok",
	"%% comment #59; #quot;",
	"`code` with ``ticks``",
	"ünïcödé 支付 🙂",
	`back\slash \| pipe\`,
	"\r\ncr\rlf\u2028ls\u0085nel",
	"# leading hash",
	"1. ordered",
	"> quote",
	"- dash",
	"    indented code",
	"trailing ###",
	"",
	"   ",
	"\t",
}

func TestRenderSpecHostile(t *testing.T) {
	t.Parallel()
	for i := range hostileTexts {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			rotated := append(append([]string{}, hostileTexts[i:]...), hostileTexts[:i]...)
			s := hostile(rotated...)
			doc := roundTrip(t, s)
			checkStructure(t, doc, s)
		})
	}
}

// FuzzRenderParse feeds arbitrary names through render and parse: rendering
// never panics, the document parses back to the same spec and renders to
// the same bytes, and no name changes the document's structure.
func FuzzRenderParse(f *testing.F) {
	for i := range hostileTexts {
		f.Add(hostileTexts[i], hostileTexts[(i+1)%len(hostileTexts)], hostileTexts[(i+2)%len(hostileTexts)])
	}
	f.Add("charge card", "customer_id", "charge")
	f.Fuzz(func(t *testing.T, op, field, step string) {
		s := hostile(op, field, step, op+field, step+op)
		if slug, err := spec.Slug(op); err == nil {
			s.Slug = slug
		}
		doc := roundTrip(t, s)
		checkStructure(t, doc, s)
	})
}

func bodyOf(t testing.TB, doc []byte) string {
	t.Helper()
	_, body, ok := strings.Cut(strings.TrimPrefix(string(doc), "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("no front matter in\n%s", doc)
	}
	return body
}

var (
	// mermaidLine is the grammar the diagram keeps to whatever the names:
	// aliased participants, arrows between aliases, and alt/else/end.
	mermaidLine = regexp.MustCompile(`^    (sequenceDiagram` +
		`|participant [A-Z][0-9]* as [\p{L}\p{N}_.()/' ]+` +
		`|(    )?[A-Z][0-9]*-{1,2}>>[A-Z][0-9]*: [\p{L}\p{N}_.,:/(){}\[\]'+@=?!*$ -]+` +
		`|alt [a-z ,]+|else [a-z0-9 ,]+|end)$`)
	unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)
	// blockStart is what turns the start of a paragraph line into another
	// block: a heading, quote, list item, thematic break, table or fence.
	blockStart = regexp.MustCompile("^(#{1,6}( |$)|>|[-+*]( |$)|[0-9]{1,9}[.)]( |$)|[-*_=]{2,}|\\||```|~~~)")
)

// checkStructure holds the body of doc to the shape of the document: the
// same lines, of the same kinds, as the body of a twin spec whose every
// name is plain; tables with the same number of cells in each row; and a
// diagram in the grammar above.
func checkStructure(t testing.TB, doc []byte, s *spec.Spec) {
	t.Helper()
	body := bodyOf(t, doc)
	plainDoc, err := RenderSpec(plain(s))
	if err != nil {
		t.Fatal(err)
	}
	got, want := shapes(t, body), shapes(t, bodyOf(t, plainDoc))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("names changed the document's structure:\n got %v\nwant %v\n%s", got, want, body)
	}
	if n := strings.Count(body, "```mermaid\n"); n != 1 {
		t.Fatalf("%d mermaid blocks", n)
	}
	_, diagram, _ := strings.Cut(body, "```mermaid\n")
	diagram, _, _ = strings.Cut(diagram, "\n```\n")
	lines := strings.Split("    "+diagram, "\n")
	for _, line := range lines {
		if !mermaidLine.MatchString(line) || strings.Contains(line[strings.Index(line, ":")+1:], "--") {
			t.Fatalf("diagram line %q breaks the grammar:\n%s", line, diagram)
		}
	}
	if n := strings.Count(diagram, "H->>D"); n != len(s.Downstream) {
		t.Errorf("diagram calls downstream %d times, want %d", n, len(s.Downstream))
	}
}

// shapes classifies each body line outside the diagram by what markdown
// makes of its start, and counts the cells of table rows. The diagram is
// left out: names that sanitise to the same label share a participant.
func shapes(t testing.TB, body string) []string {
	t.Helper()
	var out []string
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		var kind string
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
			kind = "fence"
		case fenced:
			continue // the diagram's grammar is checked line by line
		case line == "":
			kind = "blank"
		case strings.HasPrefix(line, "## "):
			kind = "h2 " + line
		case strings.HasPrefix(line, "# "):
			kind = "h1"
		case strings.HasPrefix(line, "|"):
			kind = fmt.Sprintf("row of %d cells", len(unescapedPipe.FindAllString(line, -1))-1)
		case strings.HasPrefix(line, "- "):
			kind = "item"
		case strings.HasPrefix(line, "> "):
			kind = "quote"
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			kind = "indented"
		default:
			kind = "text"
			if m := blockStart.FindString(line); m != "" {
				kind = "text starting a block with " + m
			}
		}
		out = append(out, kind)
	}
	return out
}

// plain is s with every non-empty name replaced by a plain word, equal names
// by equal words, so that it renders with the shape s should have.
func plain(s *spec.Spec) *spec.Spec {
	c := normalize(s)
	c.Hash.Include = append([]string(nil), c.Hash.Include...)
	c.Hash.Exclude = append([]spec.Field(nil), c.Hash.Exclude...)
	c.Collisions = append([]spec.Collision(nil), c.Collisions...)
	c.Downstream = append([]spec.Step(nil), c.Downstream...)
	words := map[string]string{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if v.String() != "" {
				w, ok := words[v.String()]
				if !ok {
					w = fmt.Sprintf("word%d", len(words))
					words[v.String()] = w
				}
				v.SetString(w)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(c).Elem())
	return c
}
