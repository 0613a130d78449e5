package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// toClient reports a key-named field or entry whose record a handler
// writes to its own response: a form rendered with a hidden key
// (tmpl.Execute(w, page)), a JSON answer that hands the client a key
// (json.NewEncoder(w).Encode(v), writeJSON(w, 200, v), gin's c.JSON,
// json.Marshal(v) then w.Write, the reply a gRPC method returns). The key
// goes to the client, which sends
// it with every attempt of what it does next: it is made where the user
// acts once, not per attempt.
func (c *checker) toClient(decl *ast.FuncDecl, s sink) bool {
	info := c.pass.TypesInfo
	var holders []ast.Expr // the literal, or the variable that holds it
	var held *types.Var
	switch {
	case s.lit != nil:
		holders = append(holders, s.lit)
		held = c.holder(decl, s.lit)
	default:
		if a, ok := s.node.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
			if sel, ok := a.Lhs[0].(*ast.SelectorExpr); ok {
				held = effect.RootVar(info, sel.X)
			}
		}
	}
	isHeld := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		for _, h := range holders {
			if e == h {
				return true
			}
		}
		id, ok := e.(*ast.Ident)
		return ok && held != nil && info.Uses[id] == held
	}
	marshalled := map[types.Object]bool{} // b, _ := json.Marshal(page)
	fn, _ := info.Defs[decl.Name].(*types.Func)
	answers := fn != nil && rpcMethod(fn) // a gRPC method answers with what it returns
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok && answers && len(r.Results) > 0 && isHeld(r.Results[0]) {
			found = true
			return false
		}
		if a, ok := n.(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
			if call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr); ok && len(call.Args) == 1 && isHeld(call.Args[0]) && len(a.Lhs) > 0 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok && info.ObjectOf(id) != nil {
					marshalled[info.ObjectOf(id)] = true
				}
			}
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		carries := false
		for _, arg := range call.Args {
			if isHeld(arg) {
				carries = true
			} else if id, ok := ast.Unparen(arg).(*ast.Ident); ok && marshalled[info.Uses[id]] {
				carries = true
			}
		}
		found = carries && c.responds(call)
		return !found
	})
	return found
}

// holder returns the local variable a literal is assigned to (page :=
// checkoutPage{...}, out := &prepared{...}); nil for none.
func (c *checker) holder(decl *ast.FuncDecl, lit *ast.CompositeLit) *types.Var {
	info := c.pass.TypesInfo
	var v *types.Var
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || v != nil || len(a.Lhs) != len(a.Rhs) {
			return v == nil
		}
		for i, r := range a.Rhs {
			r = ast.Unparen(r)
			if u, ok := r.(*ast.UnaryExpr); ok && u.Op == token.AND {
				r = ast.Unparen(u.X)
			}
			if r == lit {
				if id, ok := a.Lhs[i].(*ast.Ident); ok {
					v, _ = info.ObjectOf(id).(*types.Var)
				}
			}
		}
		return v == nil
	})
	return v
}

// responds reports a call that writes to the handler's response: one
// given the http.ResponseWriter, a method of a value made from it
// (json.NewEncoder(w).Encode), a method of the ResponseWriter itself
// (w.Write), or a method of a request context that carries the request
// and answers it (gin's c.JSON, echo's c.JSON).
func (c *checker) responds(call *ast.CallExpr) bool {
	info := c.pass.TypesInfo
	writer := func(e ast.Expr) bool {
		return types.TypeString(info.TypeOf(e), nil) == "net/http.ResponseWriter"
	}
	for _, arg := range call.Args {
		if writer(arg) {
			return true
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || info.Selections[sel] == nil {
		return false
	}
	if writer(sel.X) {
		return true
	}
	if inner, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok {
		for _, arg := range inner.Args {
			if writer(arg) {
				return true
			}
		}
	}
	return requestContext(info.TypeOf(sel.X))
}

// requestContext reports a web framework's request context: a type with
// a Request field or method that gives the request (*http.Request;
// fasthttp's *Request for fiber) beside a JSON method that answers it
// (gin.Context, echo.Context, fiber.Ctx). An *http.Response, which also
// holds its Request, answers nothing.
func requestContext(t types.Type) bool {
	if t == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Request")
	var rt types.Type
	switch o := obj.(type) {
	case *types.Var:
		rt = o.Type()
	case *types.Func:
		if r := o.Signature().Results(); r.Len() == 1 {
			rt = r.At(0).Type()
		}
	}
	if rt == nil || !isPointer(rt) || typeName(rt) != "Request" {
		return false
	}
	answer, _, _ := types.LookupFieldOrMethod(t, true, nil, "JSON")
	_, ok := answer.(*types.Func)
	return ok
}
