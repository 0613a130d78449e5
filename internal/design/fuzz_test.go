package design

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
)

// FuzzAnswers feeds arbitrary answers files through the whole pipeline:
// parsing never panics, and whatever decides renders to a spec that parses
// back to the same spec and renders to the same bytes.
func FuzzAnswers(f *testing.F) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "charge-card.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(demo))
	cat := rules.Default()
	for _, id := range PresetIDs(cat) {
		a := Answers{Operation: id + " | op\nx"}
		if err := ApplyPreset(cat, id, &a); err != nil {
			f.Fatal(err)
		}
		b, err := MarshalAnswers(a)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("operation: \"a|b\"\nkey: {source: cron, job: \"j\\nk\", schedule: 15m}\ndownstream: [{name: \"x|y\", target: \"-->>\"}]\n")
	f.Add("operation: x\nkey: {source: workflow, workflow: w, step: s, window: 1d}\nttl: 2d\n")
	// Names as people write them, one of them ambiguous.
	f.Add("operation: x\nkey: {source: webhook, provider: Checkout.com, retried_by: [Internal HTTP]}\ndownstream: [{name: p, target: GoCardless}, {name: q, target: plaid}]\n")
	f.Fuzz(func(t *testing.T, in string) {
		a, err := ParseAnswers([]byte(in))
		if err != nil {
			return
		}
		d, err := Decide(a, cat)
		if err != nil {
			return
		}
		if err := d.Spec.Validate(); err != nil {
			t.Fatalf("Decide made an invalid spec: %v\nanswers:\n%s", err, in)
		}
		doc, err := templates.RenderSpec(d.Spec)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		back, err := spec.Parse(doc)
		if err != nil {
			t.Fatalf("rendered spec does not parse: %v\n%s", err, doc)
		}
		// Compared as YAML, where a nil and an empty list are the same.
		gotY, _ := yaml.Marshal(back)
		wantY, _ := yaml.Marshal(d.Spec)
		if string(gotY) != string(wantY) {
			t.Fatalf("parsed spec differs from the decided one:\n got %s\nwant %s", gotY, wantY)
		}
		again, err := templates.RenderSpec(back)
		if err != nil || string(again) != string(doc) {
			t.Fatalf("render(parse(render)) differs (err %v)", err)
		}
	})
}

// FuzzProposeFields feeds arbitrary payloads to derive's walk: it never
// panics, every proposed field is a JSON pointer FieldPath takes (or one it
// names as unusable), and no member is both included and excluded.
func FuzzProposeFields(f *testing.F) {
	f.Add(`{"id":"evt_1","pending_webhooks":1,"data":{"object":{"due_date":"2026-01-01","paid_at":"2026-01-01T00:00:00Z"}}}`, "webhook:stripe")
	f.Add(`{"a/b":{"c~d":1},"x.y":2,"":3}`, "queue:sqs-standard")
	f.Add(`{"p":1}`, "cron")
	cat := rules.Default()
	f.Fuzz(func(t *testing.T, payload, source string) {
		p, err := ProposeFields([]byte(payload), source, cat)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, in := range p.Include {
			seen[in] = true
		}
		for _, ex := range p.Exclude {
			if seen[ex.Name] {
				t.Fatalf("%s is both included and excluded", ex.Name)
			}
			if ex.Reason == "" {
				t.Fatalf("%s is excluded without a reason", ex.Name)
			}
		}
	})
}

// FuzzFieldPath checks that a path FieldPath accepts has no empty segment,
// which the runtime's canonical form would refuse.
func FuzzFieldPath(f *testing.F) {
	for _, s := range []string{"/a/b", "a.b", "/a~1b", "/a.b", "//", "a..b", "/~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		path, err := FieldPath(in)
		if err != nil {
			return
		}
		for _, seg := range strings.Split(path, ".") {
			if seg == "" {
				t.Fatalf("FieldPath(%q) = %q, with an empty segment", in, path)
			}
		}
	})
}
