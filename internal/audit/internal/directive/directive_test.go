package directive_test

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/directive"
)

// TestFacts checks the facts exported for annotated functions and
// interface methods, and that prose and misspelt directives export none.
func TestFacts(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), directive.Analyzer, "helpers")
}

// TestInferred checks the facts inferred from unannotated helpers'
// bodies (claims, lock helpers returning their release, releases and
// completions), that look-alikes which claim and then work, claim and
// release, or touch no parameter's key get none, and that a directive
// wins over the body.
func TestInferred(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), directive.Analyzer, "inferred")
}

// TestInferredAcrossPackages checks that inferred facts reach callers in
// another package.
func TestInferredAcrossPackages(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), calls, "inferuser")
}

// calls reports the directives of every call's callee, as a check sees
// them through the Result.
var calls = &analysis.Analyzer{
	Name:     "calls",
	Doc:      "reports the directives of each callee",
	Requires: []*analysis.Analyzer{directive.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		dirs := pass.ResultOf[directive.Analyzer].(*directive.Directives)
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if k, fn := dirs.Call(pass.TypesInfo, call); fn != nil {
						what := k.String()
						if k == 0 {
							what = "none"
						}
						pass.Reportf(call.Pos(), "%s: %s", fn.Name(), what)
					}
				}
				return true
			})
		}
		return nil, nil
	},
}

// TestAcrossPackages checks that the facts reach another package.
func TestAcrossPackages(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), calls, "user")
}

// TestRuntime checks that the reference runtime idemkit generates carries
// the directives its callers' checks rely on.
func TestRuntime(t *testing.T) {
	t.Parallel()
	const base = "github.com/idemkit/idemkit/internal/templates/runtime/idem"
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, base, base+"/pgstore", base+"/redisstore")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the runtime does not load")
	}
	g, err := checker.Analyze([]*analysis.Analyzer{directive.Analyzer}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for act := range g.All() {
		if act.Analyzer != directive.Analyzer || !slices.Contains(pkgs, act.Package) {
			continue
		}
		for _, f := range act.AllObjectFacts() {
			got[qualified(f.Object)] = fmt.Sprint(f.Fact)
		}
	}
	for name, want := range map[string]string{
		"idem.Store.Claim":          "idemkit:claim",
		"idem.Store.Complete":       "idemkit:complete",
		"idem.Store.Release":        "idemkit:release",
		"idem.MemoryStore.Claim":    "idemkit:claim",
		"idem.MemoryStore.Complete": "idemkit:complete",
		"idem.MemoryStore.Release":  "idemkit:release",
		"pgstore.Store.Claim":       "idemkit:claim",
		"pgstore.Store.ClaimTx":     "idemkit:claim",
		"pgstore.Store.CompleteTx":  "idemkit:complete",
		"pgstore.Store.Release":     "idemkit:release",
		"redisstore.Store.Claim":    "idemkit:claim",
		"redisstore.Store.Complete": "idemkit:complete",
		"redisstore.Store.Release":  "idemkit:release",
	} {
		if got[name] != want {
			t.Errorf("%s: fact %q, want %q (all: %v)", name, got[name], want, got)
		}
	}
}

// qualified names a function pkg.Func or a method pkg.Type.Method.
func qualified(obj types.Object) string {
	name := obj.Name()
	if fn, ok := obj.(*types.Func); ok && fn.Signature().Recv() != nil {
		t := fn.Signature().Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	return obj.Pkg().Name() + "." + name
}
