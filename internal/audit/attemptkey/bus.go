package attemptkey

import (
	"go/ast"
	"go/types"
)

// inProcess reports a subscribe of the package that only keeps the
// handlers it is given (appends them to a list, puts them in a map or a
// field) for the package's own Publish to call: an in-process event bus.
// Its subscribers run once for each publish, inside the publisher's call,
// and nothing holds an event to deliver it again, so a subscriber is no
// consumer of deliveries. A subscribe that hands a handler to another call
// (a broker client's, a wrapper's) is one. A subscribe of another
// package says so in its fact.
func (c *checker) inProcess(fn *types.Func) bool {
	decl := c.decls[fn.Origin()]
	if decl == nil {
		k := c.fact(fn.Origin())
		return k != nil && k.Keeps
	}
	info := c.pass.TypesInfo
	handlers := map[types.Object]bool{}
	for p := range fn.Origin().Signature().Params().Variables() {
		if _, ok := p.Type().Underlying().(*types.Signature); ok {
			handlers[p] = true
		}
	}
	if len(handlers) == 0 {
		return false
	}
	kept, passed := false, false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			builtin := false
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				_, builtin = info.Uses[id].(*types.Builtin)
			}
			for _, a := range n.Args {
				if id, ok := ast.Unparen(a).(*ast.Ident); ok && handlers[info.Uses[id]] {
					if builtin {
						kept = true // append(b.subs[topic], fn)
					} else {
						passed = true
					}
				}
			}
		case *ast.AssignStmt:
			for _, r := range n.Rhs {
				if id, ok := ast.Unparen(r).(*ast.Ident); ok && handlers[info.Uses[id]] {
					kept = true // b.handler = fn, b.subs[topic] = fn
				}
			}
		}
		return true
	})
	return kept && !passed
}
