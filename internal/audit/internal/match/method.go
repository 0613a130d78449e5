package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
)

// SafeMethodsOnly reports whether at, in body, runs only for a request
// with a safe method (see safeMethod), such as GET: inside if r.Method == http.MethodGet,
// or after an if r.Method != http.MethodGet (or c.Method()) whose body
// returns. Serving a
// read twice changes nothing (RFC 9110), so a cache of reads (a page
// cache in front of a handler) keeps no record a retry must find, and
// two callers that both miss it only fetch twice.
func SafeMethodsOnly(info *types.Info, body *ast.BlockStmt, at ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() > at.Pos() {
			return false
		}
		if lit, ok := n.(*ast.FuncLit); ok {
			return lit.Pos() < at.Pos() && at.End() <= lit.End()
		}
		is, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		switch op, _ := safeMethodTest(info, is.Cond); op {
		case gotoken.EQL:
			found = is.Body.Pos() <= at.Pos() && at.End() <= is.Body.End()
		case gotoken.NEQ:
			found = is.End() <= at.Pos() && len(is.Body.List) > 0 && returns(is.Body.List[len(is.Body.List)-1])
		}
		return true
	})
	return found
}

// safeMethodTest reads a comparison of a request's Method with a safe
// method, and returns its operator.
func safeMethodTest(info *types.Info, cond ast.Expr) (gotoken.Token, bool) {
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || be.Op != gotoken.EQL && be.Op != gotoken.NEQ {
		return 0, false
	}
	for _, pair := range [][2]ast.Expr{{be.X, be.Y}, {be.Y, be.X}} {
		x := ast.Unparen(pair[0])
		if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 0 {
			x = ast.Unparen(call.Fun) // c.Method() of a framework's context
		}
		sel, ok := x.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Method" {
			continue
		}
		if m, ok := ConstString(info, pair[1]); ok && safeMethod(m) {
			return be.Op, true
		}
	}
	return 0, false
}

func returns(s ast.Stmt) bool {
	_, ok := s.(*ast.ReturnStmt)
	return ok
}
