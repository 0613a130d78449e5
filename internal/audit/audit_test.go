package audit

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/internal/report"
	"github.com/idemkit/idemkit/internal/rules"
)

// TestAnalyzers validates the suite as go vet and the checker will run it,
// and checks that each analyzer is documented by its catalogue entry.
func TestAnalyzers(t *testing.T) {
	t.Parallel()
	if err := analysis.Validate(Analyzers); err != nil {
		t.Fatal(err)
	}
	for _, a := range Analyzers {
		if _, ok := rules.Default().Check(a.Name); !ok {
			t.Errorf("%s: no entry in internal/rules/catalog/checks.yaml", a.Name)
			continue
		}
		if a.Doc != report.Doc(a.Name) {
			t.Errorf("%s: Doc is not built from its catalogue entry; use report.Doc(%q)", a.Name, a.Name)
		}
	}
}
