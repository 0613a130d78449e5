package attemptkey

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// freshCall reports a call whose every run returns a value no other run
// returns: match.Fresh's (UUIDs, ULIDs, an ID library's, the clock,
// random values) and watermill's ID generators (wmFresh).
func freshCall(info *types.Info, call *ast.CallExpr) (string, bool) {
	if what, ok := match.Fresh(info, call); ok {
		return what, true
	}
	return wmFresh(info, call)
}

// generated reports a call of a generator function an ID library made
// (gen, _ := nanoid.Standard(21); gen()): each call returns a new ID.
func (c *checker) generated(call *ast.CallExpr) (string, bool) {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return "", false
	}
	if maker := c.generators()[c.pass.TypesInfo.Uses[id]]; maker != "" {
		return id.Name + " (made by " + maker + ")", true
	}
	return "", false
}

// generators returns the variables and fields of the package that hold a
// generator function an ID library made (var gen, _ = nanoid.Standard(21)),
// by what made it (match.MakesIDs).
func (c *checker) generators() map[types.Object]string {
	if c.gens != nil {
		return c.gens
	}
	info := c.pass.TypesInfo
	c.gens = map[types.Object]string{}
	maker := func(e ast.Expr) string {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return ""
		}
		if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && match.MakesIDs(fn) {
			return fn.Pkg().Name() + "." + fn.Name()
		}
		return ""
	}
	hold := func(lhs ast.Expr, m string) {
		switch l := ast.Unparen(lhs).(type) {
		case *ast.Ident:
			if obj := info.ObjectOf(l); obj != nil {
				c.gens[obj] = m
			}
		case *ast.SelectorExpr:
			if obj := info.Uses[l.Sel]; obj != nil {
				c.gens[obj] = m
			}
		}
	}
	for _, file := range c.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Rhs) == 1 && len(n.Lhs) > 0 {
					if m := maker(n.Rhs[0]); m != "" {
						hold(n.Lhs[0], m)
					}
				}
			case *ast.ValueSpec:
				if len(n.Values) == 1 && len(n.Names) > 0 {
					if m := maker(n.Values[0]); m != "" {
						hold(n.Names[0], m)
					}
				}
			}
			return true
		})
	}
	return c.gens
}
