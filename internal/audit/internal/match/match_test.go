package match_test

import (
	"fmt"
	"go/ast"
	goTypes "go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// describe reports what the predicates make of every call, so that the
// testdata pins them against copies of the real libraries' signatures.
var describe = &analysis.Analyzer{
	Name: "describe",
	Doc:  "reports what package match makes of each call",
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if c, ok := match.SQL(pass.TypesInfo, call); ok {
					st := c.Statement()
					pass.Reportf(call.Pos(), "sql %s %s %s const=%v for-update=%v conditional=%v guarded=%v columns=%s",
						c.Method, st.Verb, st.Table, c.Const, st.ForUpdate, st.Conditional, st.Guarded, strings.Join(st.Columns, ","))
				}
				if c, ok := match.ORM(pass.TypesInfo, call); ok {
					pass.Reportf(call.Pos(), "orm %s op=%d model=%s on-conflict=%v locking=%v", c.Method, c.Op, c.Model, c.OnConflict, c.Locking)
				}
				if c, ok := match.Redis(pass.TypesInfo, call); ok {
					pass.Reportf(call.Pos(), "redis %s %s key=%s command=%s", c.Method, c.Op, types(pass, c.Key), c.Command)
				}
				if a, ok := match.Classify(pass.Fset, pass.TypesInfo, call); ok {
					pass.Reportf(call.Pos(), "access %s %s record=%q keys=<%s> dest=<%s> for-update=%v appends=%v added=%v pipelined=%v watch=%v key-record=%q",
						a.Op, a.What, a.Record, exprs(a.Keys), exprs(a.Dest), a.ForUpdate, a.Appends, a.ReportsAdded, a.Pipelined, a.InWatch, a.KeyRecord)
				}
				for _, a := range match.ClassifyAll(pass.Fset, pass.TypesInfo, call) {
					if a.Part == nil {
						continue
					}
					fields, _ := match.WrittenBy(pass.TypesInfo, a)
					names := make([]string, len(fields))
					for i, f := range fields {
						names[i] = f.Name
					}
					pass.Reportf(a.Part.Pos(), "part %s %s record=%q keys=<%s> written=<%s>", a.Op, a.What, a.Record, exprs(a.Keys), strings.Join(names, ","))
				}
				return true
			})
		}
		return nil, nil
	},
}

func types(pass *analysis.Pass, e ast.Expr) string {
	if s, ok := match.ConstString(pass.TypesInfo, e); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%T", e)
}

// exprs lists expressions as written, separated by "; ".
func exprs(es []ast.Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = goTypes.ExprString(e)
	}
	return strings.Join(s, "; ")
}

func TestCalls(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), describe, "calls")
}
