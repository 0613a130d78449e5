package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// lazyOnce reports a key field filled in only while it is empty (if
// p.IdempotencyKey == "" { p.IdempotencyKey = uuid.NewString() ... }),
// which makes the key once for its record rather than once per attempt:
// when the block stores it (repo.SetKey(ctx, p.ID, p.IdempotencyKey),
// db.Save(p)) before it is sent, every later attempt reads it back; and
// when the record is held from before the attempt sc (a parameter of the
// function whose loop retries), every turn finds it set. sc is nil for a
// summary, where only the store counts.
func (c *checker) lazyOnce(decl *ast.FuncDecl, s sink, sc *scope) bool {
	info := c.pass.TypesInfo
	a, ok := s.node.(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 {
		return false
	}
	lhs, ok := a.Lhs[0].(*ast.SelectorExpr)
	if !ok {
		return false
	}
	field := types.ExprString(lhs)
	root := effect.RootVar(info, lhs.X)
	if root == nil {
		return false
	}
	var guard *ast.IfStmt
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if ifs, ok := n.(*ast.IfStmt); ok && within(ifs.Body, a) && emptyCheck(info, ifs.Cond, field) {
			guard = ifs // the innermost such if wins: Inspect goes outside in
		}
		return true
	})
	if guard == nil {
		return false
	}
	if sc != nil && !within(sc.node, root.Pos()) {
		return true
	}
	stored := false
	ast.Inspect(guard.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || stored || within(a, call.Pos()) {
			return !stored
		}
		for _, arg := range call.Args {
			arg = ast.Unparen(arg)
			if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
				arg = ast.Unparen(u.X)
			}
			if types.ExprString(arg) == field {
				stored = true
			} else if id, ok := arg.(*ast.Ident); ok && info.Uses[id] == root {
				stored = true
			}
		}
		return !stored
	})
	return stored
}

// emptyCheck reports a condition that holds when the expression spelled
// field is empty: field == "", "" == field, field == nil, len(field) == 0,
// field == uuid.Nil.
func emptyCheck(info *types.Info, cond ast.Expr, field string) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	if b.Op == token.LAND {
		return emptyCheck(info, b.X, field) || emptyCheck(info, b.Y, field)
	}
	if b.Op != token.EQL {
		return false
	}
	empty := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if tv, ok := info.Types[e]; ok && (tv.IsNil() || tv.Value != nil && tv.Value.ExactString() == `""`) {
			return true
		}
		if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "Nil" {
			return true
		}
		return false
	}
	is := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" {
				e = call.Args[0]
			}
		}
		return types.ExprString(e) == field
	}
	zero := func(e ast.Expr) bool {
		tv, ok := info.Types[ast.Unparen(e)]
		return ok && tv.Value != nil && tv.Value.ExactString() == "0"
	}
	return is(b.X) && (empty(b.Y) || zero(b.Y)) || is(b.Y) && (empty(b.X) || zero(b.X))
}
