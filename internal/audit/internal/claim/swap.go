package claim

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// nilAsked reports whether f asks, after a GETSET claim, whether the old
// value was nil: its error compared with redis.Nil or with nil (a repeat
// found a value), errors.Is(err, redis.Nil) or a Nil predicate such as
// rueidis.IsRedisNil when not negated, the old value compared with "",
// or a branch that leaves when it is not "".
// A GETSET whose function only lets redis.Nil through (err != nil && err
// != redis.Nil) swaps a value in and claims nothing.
func (s *scope) nilAsked(f *Func, c *Claim) bool {
	info := s.pass.TypesInfo
	claimErr := func(e ast.Expr) bool {
		if v := s.varOf(e); v != nil {
			return v == c.err
		}
		_, isClaim := s.root(c, e)
		return isClaim && isError(info.TypeOf(e))
	}
	oldValue := func(e ast.Expr) bool {
		v := s.varOf(e)
		return v != nil && c.own[v] && isStringish(v.Type())
	}
	negated := map[ast.Expr]bool{}
	asked := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if asked || n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n.End() <= c.Call.End() {
			return true
		}
		switch n := n.(type) {
		case *ast.IfStmt:
			// if old != "" { return }: a repeat leaves; one that goes on
			// to use the old value swapped it
			be, ok := ast.Unparen(n.Cond).(*ast.BinaryExpr)
			if ok && be.Op == token.NEQ && exits(n.Body) && (oldValue(be.X) && emptyString(info, be.Y) || oldValue(be.Y) && emptyString(info, be.X)) {
				asked = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				negated[ast.Unparen(n.X)] = true
			}
		case *ast.BinaryExpr:
			if n.Op != token.EQL {
				break
			}
			for _, p := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if claimErr(p[0]) && (info.Types[p[1]].IsNil() || redisNil(info, p[1])) {
					asked = true
				}
				if oldValue(p[0]) && emptyString(info, p[1]) {
					asked = true
				}
			}
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(info, n).(*types.Func)
			if negated[n] || fn == nil || fn.Signature().Results().Len() != 1 || !isBool(fn.Signature().Results().At(0).Type()) {
				break
			}
			hasErr, hasNil := false, strings.Contains(fn.Name(), "Nil")
			for _, a := range n.Args {
				hasErr = hasErr || claimErr(a)
				hasNil = hasNil || redisNil(info, a)
			}
			asked = hasErr && hasNil
		case *ast.SwitchStmt:
			if n.Tag == nil || !claimErr(n.Tag) {
				break
			}
			for _, cl := range n.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					asked = asked || info.Types[e].IsNil() || redisNil(info, e)
				}
			}
		}
		return !asked
	})
	return asked
}

func emptyString(info *types.Info, e ast.Expr) bool {
	tv := info.Types[e]
	return tv.Value != nil && tv.Value.ExactString() == `""`
}

// redisNil reports whether e is a Redis client's Nil, the error that
// says a reply was nil: go-redis's redis.Nil, or another client's.
func redisNil(info *types.Info, e ast.Expr) bool {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return false
	}
	obj := info.Uses[id]
	return obj != nil && obj.Name() == "Nil" && obj.Pkg() != nil && strings.Contains(obj.Pkg().Path(), "redis")
}

// pipelineErrs adds to c.errOf the errors of the Exec that sends the
// pipeline a claim was queued on (set := pipe.SetNX(...); _, err :=
// pipe.Exec(ctx)): until Exec answers, the claim's reply is unknown, and
// its failure says, as a SET NX's own error does, that nothing is known
// to be taken.
func (s *scope) pipelineErrs(f *Func, c *Claim) {
	info := s.pass.TypesInfo
	if a, ok := match.Classify(s.pass.Fset, info, c.Call); !ok || !a.Pipelined {
		return
	}
	sel, ok := ast.Unparen(c.Call.Fun).(*ast.SelectorExpr)
	pipe := s.varOf(sel.X)
	if !ok || pipe == nil {
		return
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() < c.Call.End() || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
			return true
		}
		exec, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if es, ok := ast.Unparen(exec.Fun).(*ast.SelectorExpr); !ok || es.Sel.Name != "Exec" || s.varOf(es.X) != pipe {
			return true
		}
		if v := s.varOf(as.Lhs[len(as.Lhs)-1]); v != nil && isError(v.Type()) && v != c.err && s.setOnce(f, v) {
			if c.errOf == nil {
				c.errOf = map[*types.Var]bool{}
			}
			c.errOf[v] = true
		}
		return true
	})
}
