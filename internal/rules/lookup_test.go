package rules

import (
	"slices"
	"strings"
	"testing"
)

func TestLookups(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		name  string
		found func(string) (string, bool)
		id    string
	}{
		{"Provider", func(id string) (string, bool) {
			p, ok := c.Provider(id)
			return idOf(p, func(p Provider) string { return p.ID }), ok
		}, "sqs-fifo"},
		{"KeySource", func(id string) (string, bool) {
			k, ok := c.KeySource(id)
			return idOf(k, func(k KeySource) string { return k.ID }), ok
		}, "cron"},
		{"Store", func(id string) (string, bool) {
			s, ok := c.Store(id)
			return idOf(s, func(s Store) string { return s.ID }), ok
		}, "dynamodb"},
		{"Collision", func(id string) (string, bool) {
			r, ok := c.Collision(id)
			return idOf(r, func(r Collision) string { return r.ID }), ok
		}, "in_progress"},
		{"Mechanism", func(id string) (string, bool) {
			m, ok := c.Mechanism(id)
			return idOf(m, func(m Mechanism) string { return m.ID }), ok
		}, "audit-log"},
		{"AntiPattern", func(id string) (string, bool) {
			a, ok := c.AntiPattern(id)
			return idOf(a, func(a AntiPattern) string { return a.ID }), ok
		}, "poisoned-key"},
		{"VolatileField", func(n string) (string, bool) {
			f, ok := c.VolatileField(n)
			return idOf(f, func(f VolatileField) string { return f.Name }), ok
		}, "traceparent"},
	} {
		if got, ok := tt.found(tt.id); !ok || got != tt.id {
			t.Errorf("%s(%q) = %q, %v", tt.name, tt.id, got, ok)
		}
		if got, ok := tt.found("no-such-id"); ok || got != "" {
			t.Errorf("%s(no-such-id) = %q, %v; want not found", tt.name, got, ok)
		}
		if _, ok := tt.found(""); ok {
			t.Errorf("%s(\"\") found something", tt.name)
		}
	}
	if p, _ := c.Provider("stripe"); p != &c.Providers[0] {
		t.Error("Provider returns a copy; it should point into the catalogue")
	}
}

func idOf[T any](p *T, id func(T) string) string {
	if p == nil {
		return ""
	}
	return id(*p)
}

func TestProviderIDs(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		kind string
		want []string
	}{
		{KindQueue, []string{"azure-event-grid", "azure-service-bus", "cloud-tasks", "eventbridge", "google-pubsub", "kafka", "nats-jetstream", "rabbitmq", "sns", "sqs-fifo", "sqs-standard"}},
		{KindWorkflow, []string{"step-functions", "temporal"}},
		{KindCron, []string{"eventbridge-scheduler", "kubernetes-cronjob"}},
		{KindInternal, []string{"internal-http"}},
		{KindUI, []string{"ui"}},
		{KindWebhook, []string{"adyen", "airwallex", "bitbucket", "chargebee", "checkout-com", "clerk", "coinbase-commerce", "github", "gitlab", "gocardless", "hubspot", "jira", "linear", "mailgun", "paddle", "paypal", "postmark",
			"quickbooks", "razorpay", "resend", "salesforce", "sendgrid", "shopify", "slack", "sparkpost", "square", "standard-webhooks", "stripe", "svix", "twilio", "twitch", "zendesk"}},
		{"fax", nil},
	} {
		if got := c.ProviderIDs(tt.kind); !slices.Equal(got, tt.want) {
			t.Errorf("ProviderIDs(%q) = %v, want %v", tt.kind, got, tt.want)
		}
	}
	all := c.ProviderIDs("")
	if len(all) != len(c.Providers) || !slices.IsSorted(all) {
		t.Errorf("ProviderIDs(\"\") = %v, want all %d sorted", all, len(c.Providers))
	}
}

// TestVocabularies pins the lists design offers and accepts.
func TestVocabularies(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"sources", c.SourceIDs(), []string{"client", "webhook", "queue", "workflow", "cron"}},
		{"stores", c.StoreKinds(), []string{"redis", "postgres", "dynamodb", "workflow"}},
		{"mechanisms", c.MechanismIDs(), []string{"provider-key", "on-conflict", "audit-log", "message-id", "natural", "guard-row", "outbox", "search-before-create"}},
		{"presets", c.PresetIDs(), []string{"payment", "webhook", "queue", "workflow", "cron"}},
		{"collision cases", CollisionCases(), []string{"completed", "in_progress", "mismatch", "expired"}},
		{"location kinds", LocationKinds(), []string{"header", "body", "attribute", "parameter", "record"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// CollisionCases is a copy: changing it changes nothing.
	CollisionCases()[0] = "x"
	if CollisionCases()[0] != "completed" {
		t.Error("CollisionCases returned the package's own slice")
	}
}

// TestCollisionAnswers checks that every transport answers in its own
// terms, default first.
func TestCollisionAnswers(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		row, src string
		want     []string
	}{
		{"completed", "client", []string{"replay"}},
		{"completed", "webhook", []string{"ack"}},
		{"completed", "queue", []string{"ack"}},
		{"completed", "workflow", []string{"replay"}},
		{"completed", "cron", []string{"skip"}},
		{"in_progress", "client", []string{"conflict", "wait"}},
		{"in_progress", "queue", []string{"requeue"}},
		{"in_progress", "workflow", []string{"retry"}},
		{"in_progress", "cron", []string{"skip"}},
		{"mismatch", "client", []string{"reject"}},
		{"mismatch", "queue", []string{"dead-letter"}},
		{"mismatch", "workflow", []string{"non-retryable"}},
		{"mismatch", "cron", []string{"fail"}},
		{"expired", "queue", []string{"process"}},
		{"expired", "server", nil},
		{"nope", "client", nil},
	} {
		var got []string
		for _, a := range c.CollisionAnswers(tt.row, tt.src) {
			got = append(got, a.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("CollisionAnswers(%s, %s) = %v, want %v", tt.row, tt.src, got, tt.want)
		}
	}
	if a, fits := c.CollisionAnswer("mismatch", "reject", "queue"); a == nil || fits {
		t.Errorf("reject for a queue: %v, fits %v; want found and not fitting", a, fits)
	}
	if a, fits := c.CollisionAnswer("mismatch", "dead-letter", "queue"); a == nil || !fits || a.Status != 0 {
		t.Errorf("dead-letter for a queue: %+v, fits %v", a, fits)
	}
	if a, _ := c.CollisionAnswer("mismatch", "teapot", "queue"); a != nil {
		t.Errorf("an unknown answer was found: %+v", a)
	}
}

func TestCheckMechanism(t *testing.T) {
	t.Parallel()
	c, err := LoadOverrides("t.yaml", []byte(`targets:
  - {id: keyed, name: Keyed API, dedup: key, via: {kind: header, name: Idempotency-Key}, remembers: 24h, mechanism: provider-key, note: n, reference: "https://k.example"}
  - {id: mailer, name: Mailer, dedup: none, mechanism: audit-log, note: sends every call, reference: "https://m.example"}
  - {id: store, name: Object store, dedup: natural, via: {kind: body, name: /id}, mechanism: natural, note: PUT by ID, reference: "https://s.example"}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mech, target, want string // want: "" accepted
	}{
		{"provider-key", "keyed", ""},
		{"provider-key", "", ""},
		{"audit-log", "mailer", ""},
		{"guard-row", "keyed", ""},
		{"provider-key", "mailer", "provider-key relies on the target deduplicating, and Mailer does not (sends every call); guard it with audit-log or guard-row"},
		{"message-id", "mailer", "message-id relies on the target deduplicating"},
		{"provider-key", "store", "it is idempotent by itself: use natural"},
		{"carrier-pigeon", "", `"carrier-pigeon" is not a mechanism`},
		{"audit-log", "fax", `"fax" is not a target`},
	} {
		err := c.CheckMechanism(tt.mech, tt.target)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s for %s refused: %v", tt.mech, tt.target, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s for %s: got %v, want %q", tt.mech, tt.target, err, tt.want)
		}
	}
}

func TestDefaultWindow(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		src, provider string
		ok            bool
		want          string // duration, or "unbounded"
		from, kind    string
	}{
		{"client", "", true, "1h", "ui", WindowPolicy},
		{"webhook", "stripe", true, "3d", "stripe", WindowRetrySchedule},
		{"queue", "rabbitmq", true, "unbounded", "rabbitmq", WindowRetention},
		{"queue", "sqs-fifo", true, "14d", "sqs-fifo", WindowRetention},
		{"webhook", "", false, "", "", ""},
		{"cron", "", false, "", "", ""},
		{"webhook", "fax", false, "", "", ""},
		{"nope", "", false, "", "", ""},
	} {
		w, ok := c.DefaultWindow(tt.src, tt.provider)
		if ok != tt.ok {
			t.Errorf("DefaultWindow(%s, %s) ok = %v", tt.src, tt.provider, ok)
			continue
		}
		if !ok {
			continue
		}
		got := w.Duration.String()
		if w.Unbounded {
			got = "unbounded"
		}
		if got != tt.want && w.Duration != MustDuration(tt.want) || w.Provider != tt.from || w.Kind != tt.kind || w.URL == "" || w.Is == "" {
			t.Errorf("DefaultWindow(%s, %s) = %+v, want %s from %s (%s)", tt.src, tt.provider, w, tt.want, tt.from, tt.kind)
		}
	}
	// an unbounded default wins over any clock
	o, err := LoadOverrides("t.yaml", []byte("key_sources:\n  - id: client\n    default_providers: [internal-http, rabbitmq, ui]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := o.DefaultWindow("client", ""); !w.Unbounded || w.Provider != "rabbitmq" {
		t.Errorf("an unbounded default provider should win: %+v", w)
	}
	if _, err := LoadOverrides("t.yaml", []byte("key_sources:\n  - id: client\n    default_providers: [uii]\n")); err == nil || !strings.Contains(err.Error(), `"uii" is not a provider`) {
		t.Errorf("an unknown default provider: %v", err)
	}
}

func TestBodyPointer(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		provider string
		i        int
		want     string
		ok       bool
	}{
		{"adyen", 0, "/notificationItems/0/NotificationRequestItem/pspReference", true},
		{"sendgrid", 3, "/3/sg_event_id", true},
		{"stripe", 7, "/id", true},
		{"github", 0, "", false},
	} {
		p, _ := c.Provider(tt.provider)
		got, ok := p.Key.BodyPointer(p.Key.From[0], tt.i)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s[%d]: %q, %v; want %q, %v", tt.provider, tt.i, got, ok, tt.want, tt.ok)
		}
	}
}
