package effect_test

import (
	"go/ast"
	"go/types"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// TestSummaries pins the summaries exported as facts: which records a
// function reads, writes or claims, from which parameters the key comes,
// and which reads it keeps to itself.
func TestSummaries(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), effect.Analyzer, "summaries")
}

// TestResultConcurrent asks one package's Result from many goroutines at
// once, as the analyzers that require effect do when the checker runs
// them side by side: Of, SummaryOf and Script fill memos as they go, and
// without the Result's lock this crashed with "concurrent map read and
// map write" (inspire-middleware, ent). Calls inside function literals
// are not summarized by run, so their effects are computed on first ask.
func TestResultConcurrent(t *testing.T) {
	t.Parallel()
	results := analysistest.Run(t, audittest.Dir(t), effect.Analyzer, "summaries")
	if len(results) == 0 {
		t.Fatal("no result for package summaries")
	}
	res, pass := results[0].Result.(*effect.Result), results[0].Pass
	var calls []*ast.CallExpr
	var funcs []*types.Func
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				calls = append(calls, call)
				if fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func); ok {
					funcs = append(funcs, fn)
				}
			}
			return true
		})
	}
	if len(calls) < 20 {
		t.Fatalf("only %d calls in package summaries; the test needs a package with many", len(calls))
	}
	var wg sync.WaitGroup
	effects := make([]int, 8)
	for g := range effects {
		wg.Go(func() {
			for i := range calls {
				call := calls[(i+g*7)%len(calls)]
				effects[g] += len(res.Of(call))
				res.Script(call)
			}
			for _, fn := range funcs {
				res.SummaryOf(fn)
			}
		})
	}
	wg.Wait()
	for g, n := range effects[1:] {
		if n != effects[0] {
			t.Errorf("goroutine %d saw %d effects, goroutine 0 saw %d: the answers differ", g+1, n, effects[0])
		}
	}
	if effects[0] == 0 {
		t.Error("no call in package summaries has an effect: the test asks nothing that fills the memos")
	}
}

// TestSetsField pins which calls may hand back a record with a field
// changed: a create that flags the event itself does, one that stores
// the flag as given does not.
func TestSetsField(t *testing.T) {
	t.Parallel()
	results := analysistest.Run(t, audittest.Dir(t), effect.Analyzer, "summaries")
	if len(results) == 0 {
		t.Fatal("no result for package summaries")
	}
	res, pass := results[0].Result.(*effect.Result), results[0].Pass
	sets := map[string]bool{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func); ok && len(call.Args) == 3 {
					sets[fn.Name()] = res.SetsField(call, 2, "Duplicate")
				}
			}
			return true
		})
	}
	for name, want := range map[string]bool{"createFlagged": true, "createAsGiven": false} {
		if got, ok := sets[name]; !ok || got != want {
			t.Errorf("SetsField of a call of %s: got %v (called: %v), want %v", name, got, ok, want)
		}
	}
}
