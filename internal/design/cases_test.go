package design

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
)

// TestCaseGolden decides every answers file in testdata/cases and pins the
// spec it renders to beside it (NAME.yaml -> NAME.md), one case per class
// of design: queue consumers, workflow activities, scheduled batches with
// per-item keys, business keys, each mechanism. The spec must validate and
// survive spec -> answers -> spec unchanged. Run with -update to rewrite
// the .md files, and review the diff.
func TestCaseGolden(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/cases")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ParseAnswers(data)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decide(a, cat)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			d.Spec.Idemkit = "test"
			got, err := templates.RenderSpec(d.Spec)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".md"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: rendered spec differs from %s; run go test ./internal/design -update and review the diff", file, golden)
			}

			parsed, err := spec.Parse(got)
			if err != nil {
				t.Fatalf("rendered spec does not parse: %v", err)
			}
			d2, err := Decide(AnswersFromSpec(parsed, cat), cat)
			if err != nil {
				t.Fatalf("answers recovered from the spec do not decide: %v", err)
			}
			d2.Spec.Idemkit = "test"
			again, err := templates.RenderSpec(d2.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(got) {
				t.Errorf("spec -> answers -> spec changed it:\n%s", firstDiff(string(got), string(again)))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, al[i], bl[i])
		}
	}
	return "lengths differ"
}
