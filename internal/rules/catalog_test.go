package rules

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestDefault proves the embedded catalogue loads and validates, so that
// Default's panic is unreachable.
func TestDefault(t *testing.T) {
	t.Parallel()
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("embedded catalogue does not validate:\n%v", err)
	}
	if Default() != c {
		t.Error("Default() loaded the catalogue twice; it must be loaded once and shared")
	}
}

func ids[T any](s []T, id func(T) string) []string {
	out := make([]string, len(s))
	for i, e := range s {
		out[i] = id(e)
	}
	return out
}

// TestRequiredEntries pins the IDs other packages and the specs rely on.
func TestRequiredEntries(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		section string
		have    []string
		want    []string
	}{
		{"key_sources", ids(c.KeySources, func(k KeySource) string { return k.ID }),
			[]string{"client", "webhook", "queue", "workflow", "cron", "server"}},
		{"providers", ids(c.Providers, func(p Provider) string { return p.ID }),
			[]string{"stripe", "github", "shopify", "twilio", "slack", "paypal", "adyen", "standard-webhooks", "svix",
				"sqs-standard", "sqs-fifo", "kafka", "rabbitmq", "internal-http", "ui"}},
		{"stores", ids(c.Stores, func(s Store) string { return s.ID }),
			[]string{"redis", "postgres", "dynamodb", "workflow", "memcached"}},
		{"collisions", ids(c.Collisions, func(r Collision) string { return r.ID }),
			[]string{"completed", "in_progress", "mismatch", "expired"}},
		{"mechanisms", ids(c.Mechanisms, func(m Mechanism) string { return m.ID }),
			[]string{"provider-key", "on-conflict", "audit-log", "message-id"}},
		{"anti_patterns", ids(c.AntiPatterns, func(a AntiPattern) string { return a.ID }),
			[]string{"we-never-retry", "per-attempt-key", "no-mismatch-detection", "check-then-act", "keys-forever",
				"no-response-stored", "key-per-user", "memcached-store", "ttl-below-retry-window", "poisoned-key", "caching-5xx"}},
		{"presets", ids(c.Presets, func(p Preset) string { return p.ID }),
			[]string{"payment", "webhook", "queue", "workflow", "cron"}},
		{"checks", ids(c.Checks, func(k Check) string { return k.ID }),
			[]string{"checkthenact", "attemptkey", "releaseonerror", "cacheresponse"}},
		{"volatile_fields", ids(c.VolatileFields, func(f VolatileField) string { return f.Name }),
			[]string{"timestamp", "created_at", "sent_at", "request_id", "client_request_id", "trace_id", "traceparent",
				"span_id", "nonce", "signature", "ip", "user_agent", "retry_count", "attempt"}},
	} {
		for _, id := range tt.want {
			if !slices.Contains(tt.have, id) {
				t.Errorf("%s: no %q (have %v)", tt.section, id, tt.have)
			}
		}
	}
}

// TestProviderFacts pins the numbers verified against each provider's
// documentation (see the reference of each entry). A change here is a
// change of fact and needs its source.
func TestProviderFacts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id         string
		kind       string
		retries    bool
		window     string // "" for unbounded
		ttl        string
		keyField   string // must appear in KeyField
		disagrees  bool   // a number often quoted for it is wrong
		referenceH string // host of the reference
	}{
		{"stripe", KindWebhook, true, "3d", "7d", "id", false, "docs.stripe.com"},
		{"github", KindWebhook, false, "3d", "7d", "X-GitHub-Delivery", true, "docs.github.com"},
		{"shopify", KindWebhook, true, "4h", "24h", "X-Shopify-Event-Id", false, "shopify.dev"},
		{"twilio", KindWebhook, true, "15s", "1h", "I-Twilio-Idempotency-Token", false, "www.twilio.com"},
		{"slack", KindWebhook, true, "6m", "1h", "event_id", false, "docs.slack.dev"},
		{"paypal", KindWebhook, true, "3d", "7d", "PAYPAL-TRANSMISSION-ID", false, "developer.paypal.com"},
		{"adyen", KindWebhook, true, "30d", "60d", "pspReference + eventCode", true, "docs.adyen.com"},
		{"standard-webhooks", KindWebhook, true, "76h", "7d", "webhook-id", false, "github.com"},
		{"svix", KindWebhook, true, "28h", "3d", "svix-id", false, "docs.svix.com"},
		{"sqs-standard", KindQueue, true, "14d", "15d", "MessageId", true, "docs.aws.amazon.com"},
		{"sqs-fifo", KindQueue, true, "14d", "15d", "MessageDeduplicationId", true, "docs.aws.amazon.com"},
		{"kafka", KindQueue, true, "14d", "15d", "topic-partition-offset", true, "kafka.apache.org"},
		{"rabbitmq", KindQueue, true, "", "7d", "message_id", false, "www.rabbitmq.com"},
		{"internal-http", KindInternal, true, "5m", "1h", "Idempotency-Key", false, "datatracker.ietf.org"},
		{"ui", KindUI, true, "1h", "24h", "Idempotency-Key", false, "docs.stripe.com"},
	} {
		p, ok := Default().Provider(tt.id)
		if !ok {
			t.Errorf("no provider %q", tt.id)
			continue
		}
		if p.Kind != tt.kind || p.Retries != tt.retries {
			t.Errorf("%s: kind %q retries %v, want %q %v", tt.id, p.Kind, p.Retries, tt.kind, tt.retries)
		}
		if tt.window == "" {
			if !p.Unbounded || p.RetryWindow != 0 {
				t.Errorf("%s: want unbounded with no window, got unbounded=%v window %s", tt.id, p.Unbounded, p.RetryWindow)
			}
		} else if p.Unbounded || p.RetryWindow != MustDuration(tt.window) {
			t.Errorf("%s: retry_window %s (unbounded %v), want %s", tt.id, p.RetryWindow, p.Unbounded, tt.window)
		}
		if p.SuggestedTTL != MustDuration(tt.ttl) {
			t.Errorf("%s: suggested_ttl %s, want %s", tt.id, p.SuggestedTTL, tt.ttl)
		}
		if !strings.Contains(p.KeyField, tt.keyField) {
			t.Errorf("%s: key_field %q does not name %q", tt.id, p.KeyField, tt.keyField)
		}
		if (p.Correction != "") != tt.disagrees {
			t.Errorf("%s: correction %q, want one: %v", tt.id, p.Correction, tt.disagrees)
		}
		u, err := url.Parse(p.Reference)
		if err != nil || u.Scheme != "https" || u.Host != tt.referenceH {
			t.Errorf("%s: reference %q, want an https URL on %s", tt.id, p.Reference, tt.referenceH)
		}
		if p.Line == 0 {
			t.Errorf("%s: Line not set", tt.id)
		}
	}
}

// TestWebhookTTLs holds the webhook providers to idemkit's webhook
// pattern: keep keys at least twice the retry window.
func TestWebhookTTLs(t *testing.T) {
	t.Parallel()
	for _, p := range Default().Providers {
		if p.Kind == KindWebhook && p.SuggestedTTL < 2*p.RetryWindow {
			t.Errorf("%s: suggested_ttl %s is less than twice retry_window %s", p.ID, p.SuggestedTTL, p.RetryWindow)
		}
	}
}

func TestKeySources(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		id, format  string
		rejected    bool
		antiPattern string
	}{
		{"client", "{uuid}", false, ""},
		{"webhook", "{provider}:{event_id}", false, ""},
		{"queue", "{queue}:{message_id}", false, ""},
		{"workflow", "{workflow_id}:{step}:{param}", false, ""},
		{"cron", "{job}:{slot}", false, ""},
		{"server", "{uuid per attempt}", true, "per-attempt-key"},
	} {
		k, ok := c.KeySource(tt.id)
		if !ok {
			t.Fatalf("no key source %q", tt.id)
		}
		if k.Format != tt.format || k.Rejected != tt.rejected || k.AntiPattern != tt.antiPattern {
			t.Errorf("%s: format %q rejected %v anti_pattern %q, want %q %v %q",
				tt.id, k.Format, k.Rejected, k.AntiPattern, tt.format, tt.rejected, tt.antiPattern)
		}
		if k.Example == "" || k.Description == "" {
			t.Errorf("%s: example or description missing", tt.id)
		}
	}
}

func TestStores(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		id, primitive   string
		ttlMin, ttlMax  Duration
		rejected        bool
		antiPatternWant string
	}{
		{"redis", "SET key value NX EX", MustDuration("1h"), MustDuration("30d"), false, ""},
		{"postgres", "ON CONFLICT", MustDuration("24h"), 0, false, ""},
		{"dynamodb", "attribute_not_exists", MustDuration("24h"), MustDuration("48h"), false, ""},
		{"workflow", "workflow ID", 0, 0, false, ""},
		{"memcached", "add key", MustDuration("1m"), MustDuration("1h"), true, "memcached-store"},
	} {
		s, ok := c.Store(tt.id)
		if !ok {
			t.Fatalf("no store %q", tt.id)
		}
		if !strings.Contains(s.Primitive, tt.primitive) || s.TTLMin != tt.ttlMin || s.TTLMax != tt.ttlMax ||
			s.Rejected != tt.rejected || s.AntiPattern != tt.antiPatternWant {
			t.Errorf("%s: got primitive %q ttl %s–%s rejected %v %q", tt.id, s.Primitive, s.TTLMin, s.TTLMax, s.Rejected, s.AntiPattern)
		}
	}
}

func TestCollisions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id, response string
		status       int
	}{
		{"completed", "Idempotent-Replayed", 200},
		{"in_progress", "Retry-After", 409},
		{"mismatch", "never processed", 422},
		{"expired", "new request", 0},
	} {
		r, ok := Default().Collision(tt.id)
		if !ok {
			t.Fatalf("no collision %q", tt.id)
		}
		if r.Status != tt.status || !strings.Contains(r.Response, tt.response) {
			t.Errorf("%s: status %d response %q, want %d and %q", tt.id, r.Status, r.Response, tt.status, tt.response)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	d := Default().Defaults
	if d.Store != "redis" || d.TTL != MustDuration("24h") || d.LeaseTTL != MustDuration("30s") ||
		d.RetryAfter != MustDuration("5s") || !slices.Equal(d.AuditRowFor, []string{"payment", "billing"}) {
		t.Errorf("defaults = %+v", d)
	}
}

// TestPresets pins idemkit's common patterns where other packages and the
// generated specs depend on them.
func TestPresets(t *testing.T) {
	t.Parallel()
	path := func(m map[string]any, keys ...string) any {
		var x any = m
		for _, k := range keys {
			mm, _ := x.(map[string]any)
			x = mm[k]
		}
		return x
	}
	mechanisms := func(p map[string]any) []string {
		var out []string
		steps, _ := p["downstream"].([]any)
		for _, s := range steps {
			out = append(out, s.(map[string]any)["mechanism"].(string))
		}
		return out
	}
	for _, tt := range []struct {
		id, source, provider, store, ttl, inProgress, completed string
		mechanisms                                              []string
	}{
		{"payment", "client", "", "redis", "24h", "conflict", "replay", []string{"provider-key", "on-conflict", "audit-log"}},
		{"webhook", "webhook", "stripe", "postgres", "", "conflict", "ack", []string{"on-conflict"}},
		{"queue", "queue", "sqs-standard", "redis", "", "requeue", "ack", []string{"on-conflict"}},
		{"workflow", "workflow", "", "workflow", "", "", "", []string{"provider-key"}},
		{"cron", "cron", "", "postgres", "7d", "skip", "skip", []string{"on-conflict"}},
	} {
		var p *Preset
		for i := range Default().Presets {
			if Default().Presets[i].ID == tt.id {
				p = &Default().Presets[i]
			}
		}
		if p == nil {
			t.Fatalf("no preset %q", tt.id)
		}
		a := p.Answers
		got := []any{path(a, "key", "source"), path(a, "key", "provider"), path(a, "store", "kind"), path(a, "ttl"),
			path(a, "collision", "in_progress"), path(a, "collision", "completed")}
		want := []string{tt.source, tt.provider, tt.store, tt.ttl, tt.inProgress, tt.completed}
		for i := range want {
			if g, _ := got[i].(string); g != want[i] {
				t.Errorf("%s: answer %d = %v, want %q", tt.id, i, got[i], want[i])
			}
		}
		if m := mechanisms(a); !slices.Equal(m, tt.mechanisms) {
			t.Errorf("%s: downstream mechanisms %v, want %v", tt.id, m, tt.mechanisms)
		}
	}
	if got := path(Default().Presets[0].Answers, "store", "audit_row"); got != true {
		t.Errorf("payment preset audit_row = %v, want true", got)
	}
	if got := path(Default().Presets[4].Answers, "key", "schedule"); got != "1h" {
		t.Errorf("cron preset schedule = %v, want 1h (hourly slots)", got)
	}
}

// TestEveryProviderIsStructured holds the embedded catalogue to more than
// a team's override must give: each provider has its key as structure, a
// window that says what it is, and documentation to cite; and there are
// at least 30 of them, covering every kind.
func TestEveryProviderIsStructured(t *testing.T) {
	t.Parallel()
	c := Default()
	if len(c.Providers) < 30 {
		t.Errorf("%d providers; the catalogue promises at least 30", len(c.Providers))
	}
	kinds := map[string]int{}
	for _, p := range c.Providers {
		kinds[p.Kind]++
		if len(p.Key.From) == 0 || p.Key.Format == "" {
			t.Errorf("%s: no structured key", p.ID)
		}
		if p.Window.Kind == "" || p.Window.Is == "" {
			t.Errorf("%s: window does not say what it is", p.ID)
		}
		if p.Reference == "" {
			t.Errorf("%s: no reference", p.ID)
		}
		if p.Window.Kind == WindowRetention && !p.Window.Configurable {
			t.Errorf("%s: a retention window is the user's setting", p.ID)
		}
		if strings.Contains(strings.ToLower(p.Bound+p.Correction+p.KeyField), "seed") {
			t.Errorf("%s: speaks of the seed; speak of the catalogue and its sources", p.ID)
		}
	}
	for _, k := range ProviderKinds() {
		if kinds[k] == 0 {
			t.Errorf("no provider of kind %s", k)
		}
	}
}

// TestMoreProviderFacts pins the numbers of the entries added for issue
// 10, each from the page in its reference.
func TestMoreProviderFacts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id, kind, window, ttl string // window "" for unbounded
		windowKind            string
		keyKind, keyName      string // the first key location
		batch                 bool
	}{
		{"square", KindWebhook, "72h", "7d", WindowRetrySchedule, LocationBody, "/event_id", false},
		{"sendgrid", KindWebhook, "24h", "3d", WindowRetrySchedule, LocationBody, "/sg_event_id", true},
		{"mailgun", KindWebhook, "8h", "24h", WindowRetrySchedule, LocationBody, "/event-data/id", false},
		{"postmark", KindWebhook, "11h", "3d", WindowRetrySchedule, LocationBody, "/MessageID", false},
		{"hubspot", KindWebhook, "24h", "3d", WindowRetrySchedule, LocationBody, "/eventId", true},
		{"salesforce", KindWebhook, "24h", "3d", WindowRetrySchedule, LocationBody, "/Id", true},
		{"adyen", KindWebhook, "30d", "60d", WindowRetrySchedule, LocationBody, "/NotificationRequestItem/pspReference", true},
		{"github", KindWebhook, "3d", "7d", WindowManualRedelivery, LocationHeader, "X-GitHub-Delivery", false},
		{"paddle", KindWebhook, "3d", "7d", WindowRetrySchedule, LocationBody, "/event_id", false},
		{"razorpay", KindWebhook, "7d", "14d", WindowManualRedelivery, LocationHeader, "X-Razorpay-Event-Id", false},
		{"chargebee", KindWebhook, "79h", "7d", WindowRetrySchedule, LocationBody, "/id", false},
		{"airwallex", KindWebhook, "3d", "7d", WindowRetrySchedule, LocationBody, "/id", false},
		{"clerk", KindWebhook, "28h", "3d", WindowRetrySchedule, LocationHeader, "svix-id", false},
		{"resend", KindWebhook, "28h", "3d", WindowRetrySchedule, LocationHeader, "svix-id", false},
		{"coinbase-commerce", KindWebhook, "3d", "7d", WindowRetrySchedule, LocationBody, "/event/id", false},
		{"checkout-com", KindWebhook, "30h", "3d", WindowRetrySchedule, LocationBody, "/id", false},
		{"linear", KindWebhook, "8h", "24h", WindowRetrySchedule, LocationHeader, "Linear-Delivery", false},
		{"jira", KindWebhook, "30m", "24h", WindowRetrySchedule, LocationHeader, "X-Atlassian-Webhook-Identifier", false},
		{"sparkpost", KindWebhook, "8h", "24h", WindowRetrySchedule, LocationHeader, "X-MessageSystems-Batch-ID", false},
		{"twitch", KindWebhook, "24h", "3d", WindowPolicy, LocationHeader, "Twitch-Eventsub-Message-Id", false},
		{"gocardless", KindWebhook, "7d", "14d", WindowPolicy, LocationBody, "/id", true},
		{"quickbooks", KindWebhook, "7d", "14d", WindowPolicy, LocationBody, "/id", true},
		{"sns", KindQueue, "1h", "24h", WindowRetrySchedule, LocationBody, "/MessageId", false},
		{"google-pubsub", KindQueue, "7d", "14d", WindowRetention, LocationRecord, "message_id", false},
		{"azure-service-bus", KindQueue, "", "14d", WindowRetention, LocationRecord, "MessageId", false},
		{"azure-event-grid", KindQueue, "24h", "3d", WindowRetrySchedule, LocationBody, "/id", true},
		{"sqs-fifo", KindQueue, "14d", "15d", WindowRetention, LocationAttribute, "MessageDeduplicationId", false},
		{"kafka", KindQueue, "14d", "15d", WindowRetention, LocationRecord, "topic", false},
		{"temporal", KindWorkflow, "", "30d", WindowTimeout, LocationParameter, "WorkflowExecution.ID", false},
		{"step-functions", KindWorkflow, "14d", "15d", WindowManualRedelivery, LocationParameter, "$$.Execution.Id", false},
		{"kubernetes-cronjob", KindCron, "1h", "24h", WindowPolicy, LocationRecord, "metadata.ownerReferences[0].name", false},
	} {
		p, ok := Default().Provider(tt.id)
		if !ok {
			t.Errorf("no provider %q", tt.id)
			continue
		}
		if p.Kind != tt.kind || p.Window.Kind != tt.windowKind || p.SuggestedTTL != MustDuration(tt.ttl) || p.Key.Batch != tt.batch {
			t.Errorf("%s: kind %s window %s ttl %s batch %v; want %s %s %s %v", tt.id, p.Kind, p.Window.Kind, p.SuggestedTTL, p.Key.Batch, tt.kind, tt.windowKind, tt.ttl, tt.batch)
		}
		if (tt.window == "") != p.Unbounded || (tt.window != "" && p.RetryWindow != MustDuration(tt.window)) {
			t.Errorf("%s: retry_window %s unbounded %v, want %q", tt.id, p.RetryWindow, p.Unbounded, tt.window)
		}
		if l := p.Key.From[0]; l.Kind != tt.keyKind || l.Name != tt.keyName {
			t.Errorf("%s: key read from %s %s, want %s %s", tt.id, l.Kind, l.Name, tt.keyKind, tt.keyName)
		}
	}
}

// TestPayloadsAndAcks pins what a delivery's body is written in and the
// acknowledgement a sender asks for, each from the sender's documentation:
// Salesforce posts SOAP XML and wants Ack true back, Twilio posts form
// fields; everyone else posts JSON and takes any 2xx (Adyen too, since it
// stopped asking for the body [accepted]).
func TestPayloadsAndAcks(t *testing.T) {
	t.Parallel()
	want := map[string]struct{ payload, ack string }{
		"salesforce": {PayloadXML, "<Ack>true</Ack>"},
		"twilio":     {PayloadForm, ""},
	}
	for i := range Default().Providers {
		p := &Default().Providers[i]
		w, ok := want[p.ID]
		if !ok {
			w.payload = PayloadJSON
		}
		if got := PayloadOf(p); got != w.payload {
			t.Errorf("%s: payload %s, want %s", p.ID, got, w.payload)
		}
		if w.ack == "" && p.Ack != (Ack{}) || !strings.Contains(p.Ack.Body, w.ack) {
			t.Errorf("%s: ack %q, want one containing %q", p.ID, p.Ack.Body, w.ack)
		}
		if p.Ack.Body != "" && p.Ack.URL == "" {
			t.Errorf("%s: ack %q has no documentation URL", p.ID, p.Ack.Body)
		}
	}
}

// TestTargets pins what each downstream target does with a repeated call,
// from its documentation: the email, SMS and chat APIs send every call.
func TestTargets(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id, dedup, via, remembers, mechanism string
	}{
		{"stripe-api", DedupKey, "Idempotency-Key", "24h", "provider-key"},
		{"adyen-api", DedupKey, "Idempotency-Key", "31d", "provider-key"},
		{"paypal-api", DedupKey, "PayPal-Request-Id", "", "provider-key"},
		{"square-api", DedupKey, "/idempotency_key", "", "provider-key"},
		{"checkout-api", DedupKey, "Cko-Idempotency-Key", "24h", "provider-key"},
		{"gocardless-api", DedupKey, "Idempotency-Key", "", "provider-key"},
		{"razorpay-payouts", DedupKey, "X-Payout-Idempotency", "", "provider-key"},
		{"increase-api", DedupKey, "Idempotency-Key", "", "provider-key"},
		{"airwallex-api", DedupKey, "/request_id", "", "provider-key"},
		{"mollie-api", DedupKey, "Idempotency-Key", "", "provider-key"},
		{"resend-emails", DedupKey, "Idempotency-Key", "24h", "provider-key"},
		{"plaid-bank-transfer", DedupKey, "/idempotency_key", "7d", "provider-key"},
		{"plaid-transfer-authorization", DedupKey, "/idempotency_key", "48h", "provider-key"},
		{"brex-api", DedupKey, "Idempotency-Key", "", "provider-key"},
		{"modern-treasury-api", DedupKey, "Idempotency-Key", "24h", "provider-key"},
		{"wise-transfers", DedupKey, "/customerTransactionId", "", "provider-key"},
		{"chargebee-api", DedupKey, "chargebee-idempotency-key", "", "provider-key"},
		{"dwolla-api", DedupKey, "Idempotency-Key", "24h", "provider-key"},
		{"lob-api", DedupKey, "Idempotency-Key", "24h", "provider-key"},
		{"mercury-api", DedupKey, "/idempotencyKey", "", "provider-key"},
		{"sqs-fifo-send", DedupKey, "MessageDeduplicationId", "5m", "message-id"},
		{"sns-fifo-publish", DedupKey, "MessageDeduplicationId", "5m", "message-id"},
		{"azure-service-bus-send", DedupKey, "MessageId", "1m", "message-id"},
		{"nats-jetstream-publish", DedupKey, "Nats-Msg-Id", "2m", "message-id"},
		{"sendgrid-mail", DedupNone, "", "", "audit-log"},
		{"mailgun-messages", DedupNone, "", "", "audit-log"},
		{"postmark-email", DedupNone, "", "", "audit-log"},
		{"amazon-ses", DedupNone, "", "", "audit-log"},
		{"twilio-messages", DedupNone, "", "", "audit-log"},
		{"slack-chat", DedupNone, "", "", "audit-log"},
		{"hubspot-crm", DedupNone, "", "", "search-before-create"},
		{"google-pubsub-publish", DedupNone, "", "", "outbox"},
		{"salesforce-upsert", DedupNatural, "the external ID field", "", "natural"},
		{"temporal-start", DedupNatural, "WorkflowId", "", "natural"},
	} {
		g, ok := Default().Target(tt.id)
		if !ok {
			t.Errorf("no target %q", tt.id)
			continue
		}
		var remembers Duration
		if tt.remembers != "" {
			remembers = MustDuration(tt.remembers)
		}
		if g.Dedup != tt.dedup || g.Via.Name != tt.via || g.Remembers != remembers || g.Mechanism != tt.mechanism {
			t.Errorf("%s = dedup %s via %q remembers %s mechanism %s; want %s %q %s %s", tt.id, g.Dedup, g.Via.Name, g.Remembers, g.Mechanism,
				tt.dedup, tt.via, tt.remembers, tt.mechanism)
		}
		if err := Default().CheckMechanism(g.Mechanism, g.ID); err != nil {
			t.Errorf("%s: its own mechanism does not fit: %v", tt.id, err)
		}
		if u, err := url.Parse(g.Reference); err != nil || u.Scheme != "https" {
			t.Errorf("%s: reference %q", tt.id, g.Reference)
		}
	}
}

// TestTargetOutlivesSender pins, for senders and the targets their
// handlers commonly call, whether the target forgets a key before the
// sender stops redelivering: design then asks for a guard row. Stripe's
// API keeps keys 24 hours while Stripe's webhooks retry for three days;
// Adyen's API keeps them at least 31 days, past its webhooks' 30; an SQS
// FIFO send remembers a deduplication ID for 5 minutes, far less than a
// FIFO queue's retention.
func TestTargetOutlivesSender(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sender, target string
		late           bool // the target forgets the key while the sender can still repeat
	}{
		{"stripe", "stripe-api", true},
		{"adyen", "adyen-api", false},
		{"github", "stripe-api", true},
		{"twilio", "stripe-api", false},
		{"internal-http", "stripe-api", false},
		{"sqs-fifo", "sqs-fifo-send", true},
		{"shopify", "stripe-api", false},
	} {
		p, ok := Default().Provider(tt.sender)
		if !ok {
			t.Errorf("no provider %q", tt.sender)
			continue
		}
		g, ok := Default().Target(tt.target)
		if !ok {
			t.Errorf("no target %q", tt.target)
			continue
		}
		if late := g.Remembers > 0 && g.Remembers < p.RetryWindow; late != tt.late {
			t.Errorf("%s (remembers %s) behind %s (window %s): late %v, want %v", tt.target, g.Remembers, tt.sender, p.RetryWindow, late, tt.late)
		}
	}
}

// TestNoMechanismOverclaims checks the mechanisms' own words: one that
// relies on the target's deduplication says whose, and none says an email
// provider deduplicates.
func TestNoMechanismOverclaims(t *testing.T) {
	t.Parallel()
	for _, m := range Default().Mechanisms {
		how := strings.ToLower(m.How)
		if strings.Contains(how, "email provider's message id") {
			t.Errorf("%s claims an email provider deduplicates on a message ID: %s", m.ID, m.How)
		}
		if (m.ID == "provider-key" || m.ID == "message-id") && m.TargetDedup != DedupKey {
			t.Errorf("%s relies on the target's key but target_dedup is %q", m.ID, m.TargetDedup)
		}
	}
}

// TestMechanismUse holds every mechanism to a text for generated code's
// comments, with one place for the target: the handler generator reads
// it from here, not from a list of its own.
func TestMechanismUse(t *testing.T) {
	t.Parallel()
	for _, m := range Default().Mechanisms {
		if strings.Count(m.Use, "%s") != 1 || strings.Count(m.Use, "%") != 1 {
			t.Errorf("mechanism %s: use %q must name the target once, as %%s", m.ID, m.Use)
		}
	}
}
