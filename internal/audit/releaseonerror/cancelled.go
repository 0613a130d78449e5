package releaseonerror

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// cancelledReleases reports the releases of c made, in a branch that
// knows the request's context is done (ctx.Err() != nil, errors.Is(err,
// context.Canceled), case <-ctx.Done()), with that context or one derived
// from it: the store's client fails at once with the context's error,
// and the key stays held for as long as its TTL, as if never released.
// A context detached from it (context.WithoutCancel, Background, TODO,
// or a timeout made from one of those) is quiet, and so is a release
// helper given the context, which may detach it itself.
func (a *checker) cancelledReleases(res *claim.Result, f *claim.Func, c *claim.Claim) {
	info := a.pass.TypesInfo
	var stack []ast.Node
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Pos() < c.Call.End() || res.Settles(c, call)&claim.Released == 0 {
			return true
		}
		if _, direct := match.Classify(a.pass.Fset, info, call); !direct {
			return true // a helper's: it may detach the context it is given
		}
		i := slices.IndexFunc(call.Args, func(e ast.Expr) bool { return isContext(info.TypeOf(e)) })
		if i < 0 {
			return true
		}
		root, detached := a.contextRoot(call.Args[i], 0)
		if detached || root == nil {
			return true
		}
		if cond := a.knownDone(stack, root); cond != nil {
			a.reportCancelled(c, call, call.Args[i], cond)
		}
		return true
	})
}

// contextRoot follows a context expression to the variable it was made
// from, through local variables set once and the context package's
// With* functions: ctx, context.WithTimeout(ctx, d), tctx := ...; detached
// says it was made from none (Background, TODO) or cut loose from its
// parent's cancellation (WithoutCancel).
func (a *checker) contextRoot(e ast.Expr, depth int) (root *types.Var, detached bool) {
	info := a.pass.TypesInfo
	if depth > 4 {
		return nil, false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(info, x).(*types.Func)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
			return nil, false
		}
		switch fn.Name() {
		case "Background", "TODO", "WithoutCancel":
			return nil, true
		}
		if len(x.Args) > 0 {
			return a.contextRoot(x.Args[0], depth+1)
		}
	case *ast.Ident:
		v, ok := info.Uses[x].(*types.Var)
		if !ok {
			return nil, false
		}
		if val := a.setOnce(v); val != nil {
			if r, detached := a.contextRoot(val, depth+1); r != nil || detached {
				return r, detached
			}
		}
		return v, false
	}
	return nil, false
}

// setOnce returns the value a local variable is given where it is
// declared, when no other statement assigns it; the context a
// WithTimeout returns shares its statement with the cancel function.
func (a *checker) setOnce(v *types.Var) ast.Expr {
	file := a.file(v.Pos())
	if file == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	var value ast.Expr
	sets := 0
	ast.Inspect(file, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || a.pass.TypesInfo.ObjectOf(id) != v {
				continue
			}
			sets++
			switch {
			case len(as.Rhs) == len(as.Lhs):
				value = as.Rhs[i]
			case len(as.Rhs) == 1 && i == 0:
				value = as.Rhs[0] // tctx, cancel := context.WithTimeout(...)
			}
		}
		return true
	})
	if sets != 1 {
		return nil
	}
	return value
}

// knownDone returns the condition, among those enclosing the innermost
// node of stack and deciding the branch it is in, that says ctx is done:
// an if's condition on the side where it holds, a switch case, a select
// case receiving from ctx.Done().
func (a *checker) knownDone(stack []ast.Node, ctx *types.Var) ast.Node {
	for i := len(stack) - 2; i >= 0; i-- {
		child := stack[i+1]
		switch n := stack[i].(type) {
		case *ast.FuncLit:
			if !a.deferred(stack[:i+1]) {
				return nil // a closure run who knows when
			}
		case *ast.IfStmt:
			if child == n.Body && a.says(n.Cond, ctx) {
				return n.Cond
			}
		case *ast.CaseClause:
			if slices.IndexFunc(n.List, func(e ast.Expr) bool { return a.says(e, ctx) }) >= 0 {
				return n
			}
		case *ast.CommClause:
			if recv, ok := n.Comm.(*ast.ExprStmt); ok && a.doneChan(recv.X, ctx) {
				return n.Comm
			}
		}
	}
	return nil
}

// deferred reports whether the literal at the end of stack is deferred.
func (a *checker) deferred(stack []ast.Node) bool {
	if len(stack) < 3 {
		return false
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	_, isDefer := stack[len(stack)-3].(*ast.DeferStmt)
	return ok && isDefer && call.Fun == stack[len(stack)-1]
}

// says reports whether cond, when true, says ctx is done: ctx.Err() !=
// nil, errors.Is(err, context.Canceled) or DeadlineExceeded, err ==
// context.Canceled, or a conjunction holding one.
func (a *checker) says(cond ast.Expr, ctx *types.Var) bool {
	info := a.pass.TypesInfo
	switch e := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return a.says(e.X, ctx) || a.says(e.Y, ctx)
		case token.NEQ:
			return a.ctxErr(e.X, ctx) && info.Types[e.Y].IsNil() || a.ctxErr(e.Y, ctx) && info.Types[e.X].IsNil()
		case token.EQL:
			return contextSentinel(info, e.X) || contextSentinel(info, e.Y)
		}
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(info, e).(*types.Func)
		return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is" &&
			len(e.Args) == 2 && contextSentinel(info, e.Args[1])
	}
	return false
}

// ctxErr reports whether e is ctx.Err().
func (a *checker) ctxErr(e ast.Expr, ctx *types.Var) bool {
	return a.ctxMethod(e, ctx, "Err")
}

// doneChan reports whether e receives from ctx.Done().
func (a *checker) doneChan(e ast.Expr, ctx *types.Var) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW && a.ctxMethod(u.X, ctx, "Done")
}

func (a *checker) ctxMethod(e ast.Expr, ctx *types.Var, name string) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	root, _ := a.contextRoot(sel.X, 0)
	return root == ctx
}

// contextSentinel reports whether e is context.Canceled or
// context.DeadlineExceeded.
func contextSentinel(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	obj := info.Uses[sel.Sel]
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "context" && (obj.Name() == "Canceled" || obj.Name() == "DeadlineExceeded")
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// reportCancelled reports a release sent with a context known to be done,
// and offers to detach it with context.WithoutCancel.
func (a *checker) reportCancelled(c *claim.Claim, call *ast.CallExpr, ctx ast.Expr, cond ast.Node) {
	d := analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("this release of the key claimed by %s at %s is sent with %s, which is cancelled here: it fails at once and leaves the key held, so every retry is refused as in progress until its TTL or lease runs out; release with context.WithoutCancel(%[3]s) or a fresh timeout context (releaseonerror)",
			c.What, a.where(c.Call.Pos()), types.ExprString(ctx)),
		Related: []analysis.RelatedInformation{
			{Pos: c.Call.Pos(), End: c.Call.End(), Message: "the claim"},
			{Pos: cond.Pos(), End: cond.End(), Message: "says the context is done"},
		},
	}
	if file := a.file(call.Pos()); file != nil && imports(file, "context") {
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message: "Release with context.WithoutCancel",
			TextEdits: []analysis.TextEdit{{Pos: ctx.Pos(), End: ctx.End(),
				NewText: []byte("context.WithoutCancel(" + types.ExprString(ctx) + ")")}},
		}}
	}
	a.r.Report(d)
}
