package design

import (
	"os"
	"path/filepath"
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
