package rules

import (
	"reflect"
	"slices"
	"testing"
)

// briefExample is the shape of a team's .idemkit.yaml: a provider of its own,
// one built-in provider's window changed, and a default.
const briefExample = `# Acme's idempotency rules
providers:
  - id: acme-billing
    name: Acme billing webhooks
    kind: webhook
    source: webhook
    key_field: header Acme-Event-Id
    key_example: ae_123
    retries: true
    retry_window: 12h
    suggested_ttl: 2d
    bound: Acme retries 10 times over 12 hours.
    reference: https://docs.acme.example/webhooks#retries
  - id: stripe        # same ID: overrides the fields given
    retry_window: 96h
defaults:
  ttl: 48h
`

func TestOverrideMergesByID(t *testing.T) {
	t.Parallel()
	c, err := LoadOverrides(".idemkit.yaml", []byte(briefExample))
	if err != nil {
		t.Fatal(err)
	}
	base := Default()

	acme, ok := c.Provider("acme-billing")
	if !ok || c.Providers[len(c.Providers)-1].ID != "acme-billing" || len(c.Providers) != len(base.Providers)+1 {
		t.Fatalf("acme-billing not appended: %v", c.ProviderIDs(""))
	}
	if acme.RetryWindow != MustDuration("12h") || acme.SuggestedTTL != MustDuration("2d") || !acme.Retries || acme.Line != 3 {
		t.Errorf("acme-billing = %+v", *acme)
	}

	stripe, _ := c.Provider("stripe")
	old, _ := base.Provider("stripe")
	if stripe.RetryWindow != MustDuration("96h") {
		t.Errorf("stripe retry_window = %s, want 96h", stripe.RetryWindow)
	}
	want := *old
	want.RetryWindow, want.Line = MustDuration("96h"), 14
	if !reflect.DeepEqual(*stripe, want) {
		t.Errorf("fields not given changed:\n got %+v\nwant %+v", *stripe, want)
	}

	if c.Defaults.TTL != MustDuration("48h") || c.Defaults.Store != base.Defaults.Store ||
		c.Defaults.LeaseTTL != base.Defaults.LeaseTTL || !slices.Equal(c.Defaults.AuditRowFor, base.Defaults.AuditRowFor) {
		t.Errorf("defaults = %+v", c.Defaults)
	}
	if !slices.Contains(c.ProviderIDs(KindWebhook), "acme-billing") || slices.Contains(base.ProviderIDs(""), "acme-billing") {
		t.Error("ProviderIDs does not reflect the override, or the base catalogue changed")
	}
}

// TestOverridePresence checks that a field given as its zero value is
// applied (retries: false), which a plain decode into a struct cannot tell
// from a field left out.
func TestOverridePresence(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		check     func(*Catalog) bool
	}{
		{"retries: false is applied", "providers:\n  - id: stripe\n    retries: false\n",
			func(c *Catalog) bool { p, _ := c.Provider("stripe"); return !p.Retries }},
		{"retries left out stays true", "providers:\n  - id: stripe\n    name: Stripe (live)\n",
			func(c *Catalog) bool { p, _ := c.Provider("stripe"); return p.Retries && p.Name == "Stripe (live)" }},
		{"a volatile field matched by name", "volatile_fields:\n  - name: timestamp\n    reason: Ours is set by the proxy.\n  - name: event_time\n    reason: Stamped per delivery.\n",
			func(c *Catalog) bool {
				f, _ := c.VolatileField("timestamp")
				_, added := c.VolatileField("event_time")
				return f.Reason == "Ours is set by the proxy." && added && len(c.VolatileFields) == len(Default().VolatileFields)+1
			}},
		{"preset answers replaced whole", "presets:\n  - id: cron\n    answers: {key: {source: cron, job: nightly, schedule: 24h}}\n",
			func(c *Catalog) bool {
				for _, p := range c.Presets {
					if p.ID == "cron" {
						_, kept := p.Answers["store"]
						return !kept && p.Title == "Cron job"
					}
				}
				return false
			}},
		{"list replaced whole", "defaults:\n  audit_row_for: [payment]\n",
			func(c *Catalog) bool { return slices.Equal(c.Defaults.AuditRowFor, []string{"payment"}) }},
		{"an empty file changes nothing", "# no overrides yet\n",
			func(c *Catalog) bool { return slices.Equal(c.ProviderIDs(""), Default().ProviderIDs("")) }},
		{"an empty section changes nothing", "providers:\ndefaults:\n",
			func(c *Catalog) bool {
				return len(c.Providers) == len(Default().Providers) && c.Defaults.Store == "redis"
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadOverrides(".idemkit.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Error("override not applied as expected")
			}
		})
	}
}

// TestOverrideLeavesBase checks that Override never changes the catalogue
// it starts from, Default's least of all, even when it fails half-way.
func TestOverrideLeavesBase(t *testing.T) {
	t.Parallel()
	base := Default()
	for _, src := range []string{
		"providers:\n  - id: stripe\n    retry_window: 96h\n",
		"providers:\n  - id: stripe\n    retry_window: 96h\n  - id: github\n    retries: nope\n",
		"presets:\n  - id: payment\n    answers: {key: {source: server}}\n",
		"defaults:\n  audit_row_for: [refund]\n",
	} {
		_, _ = base.Override(".idemkit.yaml", []byte(src))
	}
	stripe, _ := base.Provider("stripe")
	github, _ := base.Provider("github")
	if stripe.RetryWindow != MustDuration("3d") || github.Retries || base.Defaults.AuditRowFor[0] != "payment" {
		t.Errorf("base changed: stripe %s, github retries %v, audit_row_for %v", stripe.RetryWindow, github.Retries, base.Defaults.AuditRowFor)
	}
	if src, _ := base.Presets[0].Answers["key"].(map[string]any)["source"]; src != "client" {
		t.Errorf("base payment preset key.source = %v", src)
	}
	ours, err := base.Override(".idemkit.yaml", []byte("checks:\n  - id: checkthenact\n    title: Ours\n"))
	if err != nil || len(ours.Checks) != len(base.Checks) {
		t.Errorf("overriding one check: %v, %d checks, want %d", err, len(ours.Checks), len(base.Checks))
	}
	if c, _ := base.Check("checkthenact"); c.Title == "Ours" {
		t.Error("base check title changed")
	}
	if err := base.Validate(); err != nil {
		t.Errorf("base no longer validates: %v", err)
	}
}

// TestOverrideChain checks that an override of an override keeps both, and
// that the blame for an error lands on the file that caused it.
func TestOverrideChain(t *testing.T) {
	t.Parallel()
	first, err := LoadOverrides("org.yaml", []byte("providers:\n  - id: stripe\n    suggested_ttl: 10d\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := first.Override("team.yaml", []byte("defaults:\n  ttl: 2d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := second.Provider("stripe"); p.SuggestedTTL != MustDuration("10d") || second.Defaults.TTL != MustDuration("2d") {
		t.Errorf("chain lost a change: stripe ttl %s, default ttl %s", p.SuggestedTTL, second.Defaults.TTL)
	}
	_, err = second.Override("mine.yaml", []byte("\nproviders:\n  - id: stripe\n    retry_window: 11d\n"))
	want := "mine.yaml:4: providers[0].retry_window: suggested_ttl 10d is shorter than retry_window 11d"
	if err == nil || err.Error()[:len(want)] != want {
		t.Errorf("got %v, want %s...", err, want)
	}
}
