package cacheresponse

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// outcome checks what a completion of a key the function claimed (or
// locked, under the same key) stores as the outcome of the work: the
// work's error whatever it was, or a status captured from the handler
// that nothing checked for 5xx. It reports and returns true on a finding.
//
// A store's Set(ctx, key, saved, ttl), known only by its shape, is such a
// completion when the function took the key first, or looked it up in
// the same store (lookup): an idempotency middleware keeps in it what the
// handler answered.
//
// The status (a constant 5xx, or one captured and never checked) is
// checked here only for a completion known by its shape (status):
// complete reads the response of a declared one.
func (a *checker) outcome(f *claim.Func, call *ast.CallExpr, fn *types.Func, key int, status bool) bool {
	c := a.keyClaim(f, call, key)
	if c == nil {
		c = a.lookup(f, call, key)
	}
	if c == nil {
		return false
	}
	i := responseParam(fn.Signature())
	if i < 0 || i >= len(call.Args) || i == key && !carriesKey(fn, i) {
		return false
	}
	arg := call.Args[i]
	vals := a.storedValues(f, call, arg)
	if at, work := a.workError(f, c, call, vals); work != nil && f.Responder {
		a.r.Report(analysis.Diagnostic{
			Pos: call.Pos(), End: call.End(),
			Message: fmt.Sprintf("%s stores the error of the call at %s as the result of the key %s, whatever the error was: a timeout or an unavailable dependency is replayed to every retry as final; release the key when the call fails, and store only errors a retry would get again (cacheresponse)",
				fn.Name(), a.where(at.Pos()), a.took(c)),
			Related: append(claimRelated(c), analysis.RelatedInformation{Pos: work.Pos(), End: work.End(), Message: "the error stored"}),
		})
		return true
	}
	var statuses []storedValue
	for _, v := range vals {
		if v.field != nil && statusField(v.field) {
			statuses = append(statuses, v)
		}
	}
	if st := a.statusArg(fn, call); st != nil {
		statuses = append(statuses, storedValue{expr: st}) // Set(key, rec.Code, rec.Header(), body)
	}
	for _, v := range statuses {
		if !status {
			break
		}
		if claim.Status5xx(a.info, v.expr) {
			a.r.Report(analysis.Diagnostic{
				Pos: call.Pos(), End: call.End(),
				Message: fmt.Sprintf("%s stores a %s response as the result of the key %s: every retry within the TTL gets the transient failure back instead of running again; release the key on a 5xx and complete only 2xx and 4xx (cacheresponse)",
					fn.Name(), a.info.Types[v.expr].Value.ExactString(), a.took(c)),
				Related: claimRelated(c),
			})
			return true
		}
		if !f.Responder || a.info.Types[v.expr].Value != nil || a.passedOn(v.expr) {
			continue
		}
		if !a.captured(v.expr) || a.checked(f, call, v.expr, nil) {
			continue
		}
		a.r.Report(analysis.Diagnostic{
			Pos: call.Pos(), End: call.End(),
			Message: fmt.Sprintf("%s stores the status %s for the key %s without a check for 5xx before it: a transient failure would be replayed to every retry; release the key when it is 500 or more and complete only 2xx and 4xx (cacheresponse)",
				fn.Name(), types.ExprString(v.expr), a.took(c)),
			Related: claimRelated(c),
		})
		return true
	}
	return false
}

// keyClaim returns the claim of f that call completes, or, where the
// claim is a lock, the one taken under the key call writes.
func (a *checker) keyClaim(f *claim.Func, call *ast.CallExpr, key int) *claim.Claim {
	if c := a.claimed(f, func(c *claim.Claim) bool { return a.claims.Settles(c, call)&claim.Completed != 0 }); c != nil {
		return c
	}
	if key < 0 || key >= len(call.Args) {
		return nil
	}
	return a.claimed(f, func(c *claim.Claim) bool { return c.Key != nil && a.sameVars(c.Key, call.Args[key]) })
}

// sameVars reports whether two key expressions read a common local
// variable or parameter.
func (a *checker) sameVars(x, y ast.Expr) bool {
	vars := map[types.Object]bool{}
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := a.info.Uses[id].(*types.Var); ok && !v.IsField() {
				vars[v] = true
			}
		}
		return true
	})
	found := false
	ast.Inspect(y, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && vars[a.info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// storedValue is one value a completion stores: a field of the response
// it is given (set in its literal or assigned to its variable before the
// call), or the argument itself.
type storedValue struct {
	field *types.Var // nil for the argument itself
	expr  ast.Expr
}

// storedValues returns what arg holds when call is made: the argument,
// the fields of the literal it is (or its variable was last set to
// before call, in f), and the fields assigned to that variable in
// between (saved.Err = err.Error()).
func (a *checker) storedValues(f *claim.Func, call *ast.CallExpr, arg ast.Expr) []storedValue {
	out := []storedValue{{expr: arg}}
	fieldsOf := func(lit *ast.CompositeLit) {
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if id, ok := kv.Key.(*ast.Ident); ok {
				if fv, ok := a.info.Uses[id].(*types.Var); ok && fv.IsField() {
					out = append(out, storedValue{field: fv, expr: kv.Value})
				}
			}
		}
	}
	if lit := compositeOf(arg); lit != nil {
		fieldsOf(lit)
		return out
	}
	id, ok := ast.Unparen(arg).(*ast.Ident)
	if !ok {
		return out
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok {
		return out
	}
	var last *ast.CompositeLit
	var fields []storedValue
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= call.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				switch l := ast.Unparen(l).(type) {
				case *ast.Ident:
					if a.info.ObjectOf(l) == v {
						last, fields = compositeOf(n.Rhs[i]), nil
					}
				case *ast.SelectorExpr:
					if x, ok := ast.Unparen(l.X).(*ast.Ident); ok && a.info.Uses[x] == v {
						if fv, ok := a.info.Uses[l.Sel].(*types.Var); ok && fv.IsField() {
							fields = append(fields, storedValue{field: fv, expr: n.Rhs[i]})
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if a.info.Defs[name] == v && i < len(n.Values) {
					last, fields = compositeOf(n.Values[i]), nil
				}
			}
		}
		return true
	})
	if last != nil {
		fieldsOf(last)
	}
	return append(out, fields...)
}

// compositeOf returns the composite literal e is, through & and parens.
func compositeOf(e ast.Expr) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	lit, _ := e.(*ast.CompositeLit)
	return lit
}

// statusField reports whether a response's field holds its status:
// Status, StatusCode or Code, or an integer named for one
// (ResponseStatus, HTTPCode).
func statusField(f *types.Var) bool {
	if slices.Contains(statusFields, f.Name()) {
		return true
	}
	ws := match.Words(f.Name())
	b, ok := f.Type().Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0 && len(ws) > 0 && (ws[len(ws)-1] == "status" || ws[len(ws)-1] == "code")
}

// captured reports whether a status is read from what the work
// answered: a field of a variable (rec.code, resp.StatusCode) or a
// method of one (c.Writer.Status()).
func (a *checker) captured(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if tv := a.info.Types[x.Fun]; tv.IsType() && len(x.Args) == 1 {
			return a.captured(x.Args[0]) // int(st.Code())
		}
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		return ok && len(x.Args) == 0 && a.captured(sel.X)
	case *ast.SelectorExpr:
		return a.captured(x.X) || a.localVar(x.X)
	}
	return false
}

func (a *checker) localVar(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := a.info.Uses[id].(*types.Var)
	return ok && !v.IsField() && v.Pkg() != nil && v.Parent() != v.Pkg().Scope()
}

// workError returns, when call stores a value read from the error of a
// call made after the claim (err.Error(), st.Message() of
// status.FromError(err)) on every path, not only on one that checked what
// the error was, where that error was set and the value stored. A
// completion inside a branch on the error is a choice made for it
// (marking the key failed), as is one after a condition that asks what
// the error is (errors.Is, a status code).
func (a *checker) workError(f *claim.Func, c *claim.Claim, call *ast.CallExpr, vals []storedValue) (set ast.Node, stored ast.Expr) {
	errs := a.workErrors(f, c, call)
	if len(errs) == 0 {
		return nil, nil
	}
	// values derived from a work error: st, _ := status.FromError(err)
	derived := map[types.Object]bool{}
	for v := range errs {
		derived[v] = true
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= call.Pos() {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || !a.mentions(as.Rhs[0], derived) {
			return true
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
				if v := a.info.ObjectOf(id); v != nil && !isErrorType(v.Type()) {
					derived[v] = true
				}
			}
		}
		return true
	})
	for _, v := range vals {
		if v.field == nil || !a.mentions(v.expr, derived) {
			continue
		}
		if a.inErrBranch(f, call, derived) || a.classified(f, call, derived) {
			return nil, nil
		}
		for ev, at := range errs {
			if a.mentions(v.expr, map[types.Object]bool{ev: true}) || len(errs) == 1 {
				return at, v.expr
			}
		}
	}
	return nil, nil
}

// workErrors returns the error variables set by a call after the claim
// and before call, other than the claim's own, with the statement that
// set each last.
func (a *checker) workErrors(f *claim.Func, c *claim.Claim, call *ast.CallExpr) map[types.Object]ast.Node {
	out := map[types.Object]ast.Node{}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= call.Pos() {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() <= c.Call.End() || as.End() > call.Pos() || len(as.Rhs) != 1 {
			return true
		}
		work, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || work == c.Call || a.info.Types[work.Fun].IsType() {
			return true
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				if v := a.info.ObjectOf(id); v != nil && isErrorType(v.Type()) {
					out[v] = as
				}
			}
		}
		return true
	})
	return out
}

func isErrorType(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// mentions reports whether e reads one of vars.
func (a *checker) mentions(e ast.Node, vars map[types.Object]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && vars[a.info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// inErrBranch reports whether call sits in an if or a case whose
// condition reads one of errs: it runs for one outcome only.
func (a *checker) inErrBranch(f *claim.Func, call *ast.CallExpr, errs map[types.Object]bool) bool {
	found := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() > call.Pos() || n.End() < call.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if a.mentions(n.Cond, errs) && (n.Body.Pos() <= call.Pos() && call.End() <= n.Body.End() || n.Else != nil && n.Else.Pos() <= call.Pos() && call.End() <= n.Else.End()) {
				found = true
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				found = found || a.mentions(e, errs)
			}
		}
		return !found
	})
	return found
}

// classified reports whether a condition before call asks what one of
// errs is, beyond whether it is nil: errors.Is(err, ErrRejected),
// status.Code(err) == codes.InvalidArgument, a switch on it.
func (a *checker) classified(f *claim.Func, call *ast.CallExpr, errs map[types.Object]bool) bool {
	found := false
	check := func(cond ast.Expr) {
		if cond == nil {
			return
		}
		ast.Inspect(cond, func(n ast.Node) bool {
			if found {
				return false
			}
			if be, ok := n.(*ast.BinaryExpr); ok && (be.Op == token.EQL || be.Op == token.NEQ) && (a.isNil(be.X) || a.isNil(be.Y)) {
				return false // err != nil asks nothing about the error
			}
			if id, ok := n.(*ast.Ident); ok && errs[a.info.Uses[id]] {
				found = true
			}
			return true
		})
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= call.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			check(n.Cond)
		case *ast.SwitchStmt:
			check(n.Tag)
		case *ast.TypeSwitchStmt:
			ast.Inspect(n.Assign, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && errs[a.info.Uses[id]] {
					found = true
				}
				return !found
			})
		case *ast.CaseClause:
			for _, e := range n.List {
				check(e)
			}
		}
		return true
	})
	return found
}
