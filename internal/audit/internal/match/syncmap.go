package match

import (
	"go/ast"
	"go/types"
)

// syncMapOps are what sync.Map's methods do to the entry of their key.
var syncMapOps = map[string]Op{
	"Load": OpRead, "Store": OpWrite, "Swap": OpWrite,
	"LoadOrStore":    OpClaim, // stores only an absent key, and its loaded result says which
	"CompareAndSwap": OpGuarded,
	"LoadAndDelete":  OpDelete, "Delete": OpDelete, "CompareAndDelete": OpDelete,
}

// syncMap reads a sync.Map method call (Map is the one type of package
// sync with these methods): a dedup cache in memory, whose record is the
// map as written ("syncmap s.seen") and whose key is the first argument.
func syncMap(_ *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	op, ok := syncMapOps[fn.Name()]
	if !ok || !inPackage(fn, "sync") || len(call.Args) == 0 {
		return Access{}, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return Access{}, false
	}
	m := types.ExprString(sel.X)
	return Access{Op: op, What: fn.Name(), Record: "syncmap " + m, Target: m, Keys: call.Args[:1], Call: call}, true
}
