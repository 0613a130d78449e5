package rules

import (
	"errors"
	"testing"
)

// FuzzLoadOverrides feeds arbitrary bytes to LoadOverrides: it never
// panics, a successful load always validates and leaves the embedded
// catalogue as it was, and a failure is always a *FileError naming a file.
func FuzzLoadOverrides(f *testing.F) {
	for _, seed := range []string{
		briefExample,
		"",
		"providers:\n  - id: stripe\n    retries: false\n",
		"providers:\n  - id: rabbitmq\n    retry_window: 1h\n",
		"volatile_fields:\n  - name: timestamp\n    reason: r\n",
		"presets:\n  - id: payment\n    answers: {key: {source: client, retried_by: [ui]}, ttl: 2d}\n",
		"defaults:\n  ttl: 3 days\n",
		"providers:\n  - &p {id: acme, name: x}\n  - *p\n",
		"stores:\n  - id: redis\n    ttl_max: 30m\n",
		"collisions: [{id: expired, status: 700}]\n",
		"{providers: [{id: Stripe}], defaults: {store: memcached}}",
		"- a\n- b\n",
		"providers: \"\"\n",
	} {
		f.Add([]byte(seed))
	}
	base := Default()
	stripe, _ := base.Provider("stripe")
	window, providers := stripe.RetryWindow, len(base.Providers)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadOverrides(".idemkit.yaml", data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File == "" {
				t.Fatalf("error without a file: %v", err)
			}
		} else if verr := c.Validate(); verr != nil {
			t.Fatalf("loaded, but does not validate: %v", verr)
		}
		if s, _ := base.Provider("stripe"); s.RetryWindow != window || len(base.Providers) != providers {
			t.Fatal("LoadOverrides changed the embedded catalogue")
		}
	})
}

// FuzzCheckKeyFormat feeds arbitrary formats to the key-per-user check: it
// never panics, never accepts a format without a placeholder, and never
// accepts one whose every placeholder names an identity.
func FuzzCheckKeyFormat(f *testing.F) {
	for _, s := range []string{"{user_id}", "transfer:{user_id}", "{tenant_id}:{order_id}", "${a}", "{{.X}}", "<a>", "%(a)s", "{sha256(x)|y}", "{a.b[0].c}", "{", "}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, format string) {
		err := CheckKeyFormat(format)
		if err != nil {
			return
		}
		parts := Placeholders(format)
		if len(parts) == 0 {
			t.Fatalf("%q accepted without a placeholder", format)
		}
		identity := 0
		for _, p := range parts {
			if ClassifyPart(p) == PartIdentity {
				identity++
			}
		}
		if identity == len(parts) {
			t.Fatalf("%q accepted though every part is an identity: %q", format, parts)
		}
	})
}
