package claim_test

import (
	"fmt"
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
