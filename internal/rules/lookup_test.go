package rules

import (
	"slices"
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
		{KindQueue, []string{"kafka", "rabbitmq", "sqs-fifo", "sqs-standard"}},
		{KindInternal, []string{"internal-http"}},
		{KindUI, []string{"ui"}},
		{KindWebhook, []string{"adyen", "github", "paypal", "shopify", "slack", "standard-webhooks", "stripe", "svix", "twilio"}},
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
