package claim

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// settles returns what call does to c.
func (s *scope) settles(c *Claim, call *ast.CallExpr) Settle {
	info := s.pass.TypesInfo
	if k, fn := s.dirs.Call(info, call); fn != nil && k&(directive.Release|directive.Complete) != 0 {
		return settleOf(k)
	}
	switch c.Via {
	case Redis:
		if rc, ok := match.Redis(info, call); ok && types.ExprString(rc.Key) == types.ExprString(c.Key) {
			switch rc.Op {
			case match.RedisDel:
				return Released
			case match.RedisSet:
				return Completed
			}
		}
	case SQL:
		if sc, ok := match.SQL(info, call); ok {
			if st := sc.Statement(); st.Table == c.Table {
				switch st.Verb {
				case match.Delete:
					return Released
				case match.Update:
					return Completed
				}
			}
		}
	}
	if out := s.endsTx(c, call); out != 0 {
		return out
	}
	if s.handsOff(c, call) {
		return HandedOff
	}
	if fn := typeutil.StaticCallee(info, call); fn != nil && s.decls[fn.Origin()] != nil {
		return s.summary(fn.Origin()).settle(c)
	}
	return 0
}

func settleOf(k directive.Kind) Settle {
	var out Settle
	if k&directive.Release != 0 {
		out |= Released
	}
	if k&directive.Complete != 0 {
		out |= Completed
	}
	return out
}

// endsTx returns what call does to a claim made in a transaction (on
// the transaction's receiver, or passing it, as pgstore's ClaimTx(ctx, tx,
// ...) does): a rollback takes the INSERT back; a commit makes it the
// record of the work committed with it, and when the commit fails the
// claim rolls back.
func (s *scope) endsTx(c *Claim, call *ast.CallExpr) Settle {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0
	}
	var out Settle
	switch sel.Sel.Name {
	case "Rollback":
		out = Released
	case "Commit":
		out = Completed
	default:
		return 0
	}
	tx := types.ExprString(sel.X)
	if cs, ok := ast.Unparen(c.Call.Fun).(*ast.SelectorExpr); ok && types.ExprString(cs.X) == tx {
		return out
	}
	for _, a := range c.Call.Args {
		if types.ExprString(a) == tx {
			return out
		}
	}
	return 0
}

// handsOff reports whether call passes the claim's result (or a field of
// it, such as its lease token) to code outside the standard library, which
// owns the claim from then on: the runtime's Keeper.Do hands a held claim
// to the function that runs the work.
func (s *scope) handsOff(c *Claim, call *ast.CallExpr) bool {
	if fn, ok := typeutil.Callee(s.pass.TypesInfo, call).(*types.Func); ok && fn.Pkg() != nil && std(fn.Pkg().Path()) {
		return false
	}
	for _, a := range call.Args {
		if v, _ := s.root(c, a); v != nil && c.own[v] && !basicValue(s.pass.TypesInfo.TypeOf(a)) {
			return true
		}
	}
	return false
}

// std reports whether an import path belongs to the standard library.
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// basicValue reports whether t is a bool or a number: a claim's "taken"
// flag or row count, which says nothing when passed on.
func basicValue(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsNumeric) != 0
}

// effects is what a function of the package does to keys, whichever they
// are: a helper such as unlock(ctx, key) is known by its body.
type effects struct {
	release, complete  bool // //idemkit:release and //idemkit:complete calls
	redisDel, redisSet bool
	deletes, updates   map[string]bool // SQL tables
	rollback           bool
}

func (e *effects) settle(c *Claim) Settle {
	var out Settle
	if e.release || e.rollback {
		out |= Released
	}
	if e.complete {
		out |= Completed
	}
	switch c.Via {
	case Redis:
		if e.redisDel {
			out |= Released
		}
		if e.redisSet {
			out |= Completed
		}
	case SQL:
		if e.deletes[c.Table] {
			out |= Released
		}
		if e.updates[c.Table] {
			out |= Completed
		}
	}
	return out
}

// summary returns what fn's body does to keys, through the package's
// functions it calls in turn.
func (s *scope) summary(fn *types.Func) *effects {
	if e, done := s.effects[fn]; done {
		if e == nil {
			return &effects{} // recursion adds nothing
		}
		return e
	}
	s.effects[fn] = nil
	e := &effects{deletes: map[string]bool{}, updates: map[string]bool{}}
	info := s.pass.TypesInfo
	ast.Inspect(s.decls[fn].Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if k, f := s.dirs.Call(info, call); f != nil && k != 0 {
			e.release = e.release || k&directive.Release != 0
			e.complete = e.complete || k&directive.Complete != 0
		}
		if rc, ok := match.Redis(info, call); ok {
			e.redisDel = e.redisDel || rc.Op == match.RedisDel
			e.redisSet = e.redisSet || rc.Op == match.RedisSet
		}
		if sc, ok := match.SQL(info, call); ok {
			switch st := sc.Statement(); st.Verb {
			case match.Delete:
				e.deletes[st.Table] = true
			case match.Update:
				e.updates[st.Table] = true
			}
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Rollback" {
			e.rollback = true
		}
		if f := typeutil.StaticCallee(info, call); f != nil && s.decls[f.Origin()] != nil {
			sub := s.summary(f.Origin())
			e.release = e.release || sub.release
			e.complete = e.complete || sub.complete
			e.redisDel = e.redisDel || sub.redisDel
			e.redisSet = e.redisSet || sub.redisSet
			e.rollback = e.rollback || sub.rollback
			for t := range sub.deletes {
				e.deletes[t] = true
			}
			for t := range sub.updates {
				e.updates[t] = true
			}
		}
		return true
	})
	s.effects[fn] = e
	return e
}

// responder reports whether f answers with something a replay must
// reproduce (see Func.Responder).
func (s *scope) responder(f *Func) bool {
	res := f.Sig.Results()
	for i := range res.Len() {
		t := res.At(i).Type()
		if i == res.Len()-1 && isError(t) {
			continue
		}
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsBoolean == 0 {
			return true
		}
	}
	w := s.writer(f)
	if w == nil {
		return false
	}
	for call := range f.Calls() {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Write" && s.uses(sel.X, w) {
			return true
		}
		if fn := callee(s.pass.TypesInfo, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" {
			continue // http.Error, http.Redirect, http.NotFound answer without a result
		}
		for _, a := range call.Args {
			if s.uses(a, w) {
				return true // json.NewEncoder(w), fmt.Fprintf(w, ...), a writeJSON(w, ...) helper
			}
		}
	}
	return false
}

// writer returns f's http.ResponseWriter parameter, or nil.
func (s *scope) writer(f *Func) *types.Var {
	params := f.Sig.Params()
	for i := range params.Len() {
		if isHTTP(params.At(i).Type(), "ResponseWriter") {
			return params.At(i)
		}
	}
	return nil
}

func (s *scope) uses(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && s.pass.TypesInfo.Uses[id] == v
}

// isHTTP reports whether t is net/http's type name.
func isHTTP(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http"
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return t != nil && types.Identical(t, errorType) }

func callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}
