package match_test

import (
	"go/ast"
	goTypes "go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// written reports the fields match.Written reads from each document
// store write.
var written = &analysis.Analyzer{
	Name: "written",
	Doc:  "reports the fields each document store write stores",
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if fields, ok := match.Written(pass.TypesInfo, call); ok {
						var parts []string
						for _, f := range fields {
							v := "<nil>"
							if f.Value != nil {
								v = goTypes.ExprString(f.Value)
							}
							parts = append(parts, f.Name+"="+v)
						}
						pass.Reportf(call.Pos(), "written %s", strings.Join(parts, " "))
					}
				}
				return true
			})
		}
		return nil, nil
	},
}

func TestWritten(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), written, "written")
}
