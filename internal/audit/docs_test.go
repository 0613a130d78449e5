package audit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/rules"
)

// TestOneSourceOfProse keeps each check's words in one place: the rules
// catalogue (internal/rules/catalog/checks.yaml) is the source; the
// analyzer's Doc is built from it, and this test holds the analyzer
// package's doc.go summary line and the README's rules table to it.
func TestOneSourceOfProse(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	analyzers := audit.Analyzers
	if len(analyzers) != len(rules.DefaultChecks()) {
		t.Errorf("%d analyzers, %d catalogue checks: every check needs one entry", len(analyzers), len(rules.DefaultChecks()))
	}
	for _, a := range analyzers {
		c, ok := rules.DefaultCheck(a.Name)
		if !ok {
			t.Errorf("%s: no entry in internal/rules/catalog/checks.yaml", a.Name)
			continue
		}
		if first, _, _ := strings.Cut(a.Doc, "\n"); first != c.Title {
			t.Errorf("%s: Analyzer.Doc begins %q, the catalogue's title is %q: build Doc with report.Doc", a.Name, first, c.Title)
		}
		doc, err := os.ReadFile(filepath.Join(a.Name, "doc.go"))
		if err != nil {
			t.Errorf("%s: %v", a.Name, err)
			continue
		}
		want := "// " + a.Name + ": " + strings.ToLower(c.Title[:1]) + c.Title[1:] + "\n"
		if !strings.Contains(string(doc), want) {
			t.Errorf("%s/doc.go: its \"# Analyzer %s\" section must open with %q, the catalogue's title", a.Name, a.Name, strings.TrimSpace(want))
		}
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(a.Name) + ` +` + regexp.QuoteMeta(c.Title) + `$`)
		if !row.Match(readme) {
			t.Errorf("README.md: the idemkit rules table has no line %q followed by the catalogue's title %q", a.Name, c.Title)
		}
	}
}
