package claim_test

import (
	"fmt"
	"go/ast"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/claim"
)

// exits reports every exit the walk finds, so that the testdata pins the
// walk's pruning branch by branch.
var exits = &analysis.Analyzer{
	Name:     "exits",
	Doc:      "reports the exits on which each claim is held",
	Requires: []*analysis.Analyzer{claim.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.ResultOf[claim.Analyzer].(*claim.Result).Funcs {
			for _, c := range f.Claims {
				for _, e := range c.Exits {
					kind := "answer"
					if e.Error {
						kind = "error"
					}
					pass.Reportf(e.Pos().Pos(), "%s exit of %s, deferred %s, responder %v, lock %v", kind, c.What, settle(e.Deferred), f.Responder, c.Lock)
				}
			}
		}
		return nil, nil
	},
}

func settle(s claim.Settle) string {
	names := ""
	for _, n := range []struct {
		s    claim.Settle
		name string
	}{{claim.Released, "released"}, {claim.Completed, "completed"}, {claim.HandedOff, "handed-off"}} {
		if s&n.s != 0 {
			names += n.name + " "
		}
	}
	if names == "" {
		return "nothing"
	}
	return fmt.Sprint(names[:len(names)-1])
}

func TestExits(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), exits, "flow")
}

// TestResultConcurrent asks one package's Result what each call does to
// each claim from many goroutines at once, as releaseonerror and
// cacheresponse do side by side: Settles fills the summaries of the
// functions it looks into, and marks the literals it is inside, as it
// goes. Run with -race (make test does), it fails without the Result's
// lock.
func TestResultConcurrent(t *testing.T) {
	t.Parallel()
	// flow's want comments are the exits analyzer's, so its expectations
	// are not checked here.
	results := analysistest.Run(ignoreWants{}, audittest.Dir(t), claim.Analyzer, "flow")
	if len(results) == 0 || results[0].Err != nil {
		t.Fatalf("no result for package flow: %v", results)
	}
	res := results[0].Result.(*claim.Result)
	type ask struct {
		c    *claim.Claim
		call *ast.CallExpr
	}
	var asks []ask
	for _, f := range res.Funcs {
		for _, c := range f.Claims {
			ast.Inspect(f.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					asks = append(asks, ask{c, call})
				}
				return true
			})
		}
	}
	if len(asks) < 20 {
		t.Fatalf("only %d calls after claims in package flow; the test needs more", len(asks))
	}
	settled := make([]int, 8)
	var wg sync.WaitGroup
	for g := range settled {
		wg.Go(func() {
			for i := range asks {
				a := asks[(i+g*5)%len(asks)]
				if res.Settles(a.c, a.call) != 0 {
					settled[g]++
				}
				res.Redis(a.call)
				res.AssignedFields(a.call.Fun)
			}
		})
	}
	wg.Wait()
	for g, n := range settled[1:] {
		if n != settled[0] {
			t.Errorf("goroutine %d found %d settling calls, goroutine 0 found %d: the answers differ", g+1, n, settled[0])
		}
	}
	if settled[0] == 0 {
		t.Error("no call settles a claim in package flow: the test asks nothing that fills the memos")
	}
}

// ignoreWants is an analysistest.Testing that drops what Run reports.
type ignoreWants struct{}

func (ignoreWants) Errorf(string, ...any) {}
