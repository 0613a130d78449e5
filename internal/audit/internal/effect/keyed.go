package effect

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// idemKeys returns the values body sends as an idempotency key to
// another service: stripe-go's SetIdempotencyKey(k) or IdempotencyKey
// field, a request builder's SetHeader("Idempotency-Key", k), an
// outgoing header set to it, any field named for such a key. A side
// effect sent with one is deduplicated by its receiver: done twice under
// the same key, it happens once.
func idemKeys(info *types.Info, body ast.Node) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch name := sel.Sel.Name; {
			case len(n.Args) == 1 && match.KeyName(name) && len(match.Words(name)) > 1 && match.Words(name)[0] == "set":
				out = append(out, n.Args[0]) // params.SetIdempotencyKey(k)
			case len(n.Args) == 2 && (name == "Set" || name == "Add" || name == "SetHeader"):
				if h, ok := match.ConstString(info, n.Args[0]); ok && match.KeyName(h) {
					out = append(out, n.Args[1]) // req.Header.Set("Idempotency-Key", k)
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && match.KeyName(id.Name) {
				out = append(out, n.Value) // &stripe.PaymentIntentParams{Params: stripe.Params{IdempotencyKey: ...}}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if sel, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && match.KeyName(sel.Sel.Name) && i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) {
					out = append(out, n.Rhs[i]) // params.IdempotencyKey = stripe.String(k)
				}
			}
		}
		return true
	})
	return out
}

// keyedParams returns the indices of the parameters the idempotency keys
// body sends are made from.
func keyedParams(info *types.Info, defs Defs, params map[*types.Var]int, body ast.Node) []int {
	var out []int
	for _, k := range idemKeys(info, body) {
		for _, v := range Roots(info, defs, k) {
			if i, ok := params[v]; ok && !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	slices.Sort(out)
	return out
}
