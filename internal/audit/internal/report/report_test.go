package report_test

import (
	"go/ast"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/report"
	"github.com/idemkit/idemkit/internal/rules"
)

// fake stands in for a check: it takes checkthenact's name, so that the
// directives in testdata address it, and reports every call of racy.
var fake = &analysis.Analyzer{
	Name:     "checkthenact",
	Doc:      "reports calls of racy",
	Requires: []*analysis.Analyzer{report.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		r := report.New(pass)
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "racy" {
						r.Reportf(call, "racy call (checkthenact)")
					}
				}
				return true
			})
		}
		return nil, nil
	},
}

func TestIgnore(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), fake, "ignores")
}

// TestDoc checks that every catalogue check's help text is built from its
// entry, summary line first.
func TestDoc(t *testing.T) {
	t.Parallel()
	for _, c := range rules.Default().Checks {
		doc := report.Doc(c.ID)
		first, _, _ := strings.Cut(doc, "\n")
		if first != c.Title {
			t.Errorf("%s: summary %q, want the title %q", c.ID, first, c.Title)
		}
		for _, part := range []string{c.Why, c.Fix, "\t" + strings.SplitN(c.Bad, "\n", 2)[0], "\t" + strings.SplitN(c.Good, "\n", 2)[0]} {
			if !strings.Contains(doc, part) {
				t.Errorf("%s: help text lacks %q:\n%s", c.ID, part, doc)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Doc of an unknown check did not panic")
		}
	}()
	report.Doc("nosuchcheck")
}
