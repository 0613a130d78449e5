package match

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// Forwarded classifies SQL that a helper sends for its caller: query is
// the caller's argument for the helper's query parameter, SQL text (a
// constant, or text built from constant parts) or a squirrel or goqu
// builder whose ToSql the helper calls; method is the library call the
// helper sends it with. call is the caller's call of the helper; the
// arguments after query are taken as the statement's, as a helper of the
// shape exec(ctx, query, args...) passes them on.
func Forwarded(info *types.Info, call *ast.CallExpr, method string, query ast.Expr) (Access, bool) {
	if c := sqlCall(info, method, query); c.Const || c.Built {
		return sqlAccess(info, call, c)
	}
	e := ast.Unparen(query)
	if id, ok := e.(*ast.Ident); ok {
		if v, index, later, ok := definition(info, id); ok && index == 0 && len(later) == 0 {
			e = ast.Unparen(v)
		}
	}
	x, ok := e.(*ast.CallExpr)
	if !ok {
		return Access{}, false
	}
	if b, ok := goquDataset(info, x); ok {
		return b.access(info, call, method)
	}
	if b, ok := squirrelBuilder(info, x); ok {
		return b.access(info, call, method)
	}
	return Access{}, false
}

// Builder reports whether call is a squirrel or goqu builder's ToSql or
// ToSQL, and returns the builder it is called on.
func Builder(info *types.Info, call *ast.CallExpr) (ast.Expr, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || (fn.Name() != "ToSql" && fn.Name() != "ToSQL") || fn.Signature().Results().Len() != 3 {
		return nil, false
	}
	x := receiverOf(call)
	return x, x != nil
}

// MethodValue returns the method value a call of a local function
// variable calls: create := s.repo.Create; create(ctx, v) calls
// s.repo.Create. The variable must be given its value once and never
// again; otherwise, or when the call is of anything else, it is nil.
func MethodValue(info *types.Info, call *ast.CallExpr) *ast.SelectorExpr {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, index, later, ok := definition(info, id)
	if !ok || index != 0 || len(later) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(v).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if s, ok := info.Selections[sel]; !ok || s.Kind() != types.MethodVal {
		return nil
	}
	return sel
}
