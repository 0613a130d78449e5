package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"
	"net/http"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
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
	return compares(info, cond, token.EQL, func(e ast.Expr) bool { return types.ExprString(e) == field })
}

// compares reports a condition that holds when an expression is says is
// there is empty (op token.EQL: x == "", len(x) == 0, x == nil) or, for
// op token.NEQ, when it is set (x != "", a side of an ||).
func compares(info *types.Info, cond ast.Expr, op token.Token, is func(ast.Expr) bool) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	if op == token.EQL && b.Op == token.LAND || op == token.NEQ && b.Op == token.LOR {
		return compares(info, b.X, op, is) || compares(info, b.Y, op, is)
	}
	if b.Op != op {
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
	at := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" {
				e = call.Args[0]
			}
		}
		return is(e)
	}
	zero := func(e ast.Expr) bool {
		tv, ok := info.Types[ast.Unparen(e)]
		return ok && tv.Value != nil && tv.Value.ExactString() == "0"
	}
	return at(b.X) && (empty(b.Y) || zero(b.Y)) || at(b.Y) && (empty(b.X) || zero(b.X))
}

// headerOnce reports a key header set on an outgoing request only while
// the request has none (if req.Header.Get("Idempotency-Key") == "" {
// req.Header.Set("Idempotency-Key", uuid.NewString()) }, if _, ok :=
// req.Header[...]; !ok, len(req.Header.Values(...)) == 0, or after if
// req.Header.Get(...) != "" { return ... }), on a request held across the
// attempts of sc: one made before a retry loop, or the request a request
// hook or a transport is handed, which a retrying client (resty,
// go-retryablehttp) hands to every attempt with the headers the first one
// set. A request built, or cloned, within the attempt has none each time.
func (c *checker) headerOnce(decl *ast.FuncDecl, s sink, sc *scope) bool {
	info := c.pass.TypesInfo
	root, name := headerSinkOf(info, s.node)
	if root == nil || sc == nil {
		return false
	}
	header := func(e ast.Expr) bool { // the request's Header
		h, ok := ast.Unparen(e).(*ast.SelectorExpr)
		return ok && h.Sel.Name == "Header" && effect.RootVar(info, h.X) == root
	}
	named := func(e ast.Expr) bool {
		k, ok := match.ConstString(info, e)
		return ok && http.CanonicalHeaderKey(k) == name
	}
	reads := func(e ast.Expr) bool { // req.Header.Get(name), req.Header.Values(name)
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		return ok && (sel.Sel.Name == "Get" || sel.Sel.Name == "Values") && header(sel.X) && named(call.Args[0])
	}
	// present returns ok of if _, ok := req.Header[name]; ...
	present := func(ifs *ast.IfStmt) types.Object {
		a, ok := ifs.Init.(*ast.AssignStmt)
		if !ok || len(a.Lhs) != 2 || len(a.Rhs) != 1 {
			return nil
		}
		ix, ok := ast.Unparen(a.Rhs[0]).(*ast.IndexExpr)
		id, isID := a.Lhs[1].(*ast.Ident)
		if !ok || !isID || !header(ix.X) || !named(ix.Index) {
			return nil
		}
		return info.ObjectOf(id)
	}
	is := func(e ast.Expr, v types.Object) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && v != nil && info.Uses[id] == v
	}
	absent := func(ifs *ast.IfStmt) bool {
		if u, ok := ast.Unparen(ifs.Cond).(*ast.UnaryExpr); ok && u.Op == token.NOT && is(u.X, present(ifs)) {
			return true
		}
		return compares(info, ifs.Cond, token.EQL, reads)
	}
	set := func(ifs *ast.IfStmt) bool {
		return is(ifs.Cond, present(ifs)) || compares(info, ifs.Cond, token.NEQ, reads)
	}
	guarded := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			guarded = guarded || within(n.Body, s.node) && absent(n)
		case *ast.BlockStmt:
			for _, st := range n.List {
				if st.Pos() >= s.node.Pos() {
					break
				}
				ifs, ok := st.(*ast.IfStmt)
				if ok && ifs.Else == nil && len(ifs.Body.List) > 0 && set(ifs) {
					_, ret := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt)
					guarded = guarded || ret && within(n, s.node)
				}
			}
		}
		return !guarded
	})
	if !guarded {
		return false
	}
	if !within(sc.node, root.Pos()) {
		return true // a request made before the retry loop
	}
	var ft *ast.FuncType
	switch f := sc.node.(type) {
	case *ast.FuncLit:
		ft = f.Type
	case *ast.FuncDecl:
		ft = f.Type
	}
	if !sc.call || ft == nil || !within(ft, root.Pos()) {
		return false
	}
	reassigned := false
	ast.Inspect(sc.node, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok {
			for _, l := range a.Lhs {
				if id, ok := l.(*ast.Ident); ok && info.Uses[id] == root {
					reassigned = true // req = req.Clone(ctx): a copy the next attempt never sees
				}
			}
		}
		return !reassigned
	})
	return !reassigned
}

// headerSinkOf returns the request whose key header a header sink sets
// (req.Header.Set(k, v), r.SetHeader(k, v), req.Header[k] = v) and the
// header's canonical name.
func headerSinkOf(info *types.Info, n ast.Node) (types.Object, string) {
	var header, key ast.Expr
	switch n := n.(type) {
	case *ast.CallExpr:
		sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
		if !ok || len(n.Args) != 2 {
			return nil, ""
		}
		switch sel.Sel.Name {
		case "Set", "Add":
			h, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
			if !ok || h.Sel.Name != "Header" {
				return nil, ""
			}
			header = h.X
		case "SetHeader":
			header = sel.X
		default:
			return nil, ""
		}
		key = n.Args[0]
	case *ast.AssignStmt:
		if len(n.Lhs) != 1 {
			return nil, ""
		}
		ix, ok := n.Lhs[0].(*ast.IndexExpr)
		if !ok {
			return nil, ""
		}
		h, ok := ast.Unparen(ix.X).(*ast.SelectorExpr)
		if !ok || h.Sel.Name != "Header" {
			return nil, ""
		}
		header, key = h.X, ix.Index
	default:
		return nil, ""
	}
	k, ok := match.ConstString(info, key)
	root := effect.RootVar(info, header)
	if !ok || root == nil {
		return nil, ""
	}
	return root, http.CanonicalHeaderKey(k)
}
