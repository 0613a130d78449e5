package claim

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"
)

// pipelineCallbacks finds the function literals given to a go-redis
// Pipelined or TxPipelined (of a client, or of the *redis.Tx of a
// Watch).
func (s *scope) pipelineCallbacks(ins *inspector.Inspector) {
	ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		fn := callee(s.pass.TypesInfo, call)
		if !goRedis(fn) || fn.Name() != "Pipelined" && fn.Name() != "TxPipelined" {
			return
		}
		for _, a := range call.Args {
			if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
				s.callbacks[lit] = call
			}
		}
	})
}

// queuedClaim returns the claim the callback of call queues when call is
// a Pipelined or TxPipelined, and the callback keeps the claim's command
// in a variable of the function making call:
//
//	var set *redis.BoolCmd
//	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
//		set = p.SetNX(ctx, key, 1, ttl)
//		return nil
//	})
//	if err != nil || !set.Val() { ... }
//
// The command is answered when call returns, so the claim is followed
// from there. A command kept nowhere is answered to no one: it claims
// nothing this function can test.
func (s *scope) queuedClaim(call *ast.CallExpr) *Claim {
	var lit *ast.FuncLit
	for _, a := range call.Args {
		if l, ok := ast.Unparen(a).(*ast.FuncLit); ok && s.callbacks[l] == call {
			lit = l
		}
	}
	if lit == nil {
		return nil
	}
	var found *Claim
	inspectBody(lit.Body, func(inner *ast.CallExpr) {
		if found != nil {
			return
		}
		c := s.classify(inner)
		if c == nil || c.Via != Redis {
			return
		}
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || found != nil || len(as.Lhs) != len(as.Rhs) {
				return found == nil
			}
			for i, r := range as.Rhs {
				v := s.varOf(as.Lhs[i])
				if ast.Unparen(r) != inner || v == nil || (lit.Pos() <= v.Pos() && v.Pos() < lit.End()) {
					continue
				}
				c.queued, c.captured = call, v
				found = c
			}
			return found == nil
		})
	})
	return found
}

// queuedResults marks the variable a pipeline callback kept the claim's
// command in as the claim's result, and the error of the Pipelined or
// TxPipelined call as one saying its outcome is unknown: until the
// pipeline answers, nothing is known to be taken.
func (s *scope) queuedResults(f *Func, c *Claim) {
	if c.queued == nil {
		return
	}
	c.held[c.captured], c.own[c.captured] = true, true
	for _, t := range s.targets(c.Stmt, func(rhs ast.Expr) bool { return ast.Unparen(rhs) == c.queued }) {
		if isError(t.Type()) && s.setOnce(f, t) {
			if c.errOf == nil {
				c.errOf = map[*types.Var]bool{}
			}
			c.errOf[t] = true
		}
	}
}
