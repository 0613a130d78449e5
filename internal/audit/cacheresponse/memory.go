package cacheresponse

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// memWrite is a store into a record kept in process memory: m[key] = v on
// a map shared between goroutines, a sync.Map's Store, Swap or
// LoadOrStore, or an in-memory cache library's Set or Add.
type memWrite struct {
	record string // "map d.replies", "syncmap d.entries", "cache go-cache d.replies"
	target string // the map or cache as written: d.replies
	key    string // the key as written
	at     ast.Node
	value  ast.Expr
	what   string // map store, Store, LoadOrStore
}

// memStatus reports a store that completes a key kept in process memory
// with a record that holds no response: the function first put an entry
// under the key in the same map (an in-progress mark, in the critical
// section of its check, or with LoadOrStore), and later stores one whose
// type has a field for the body but which sets none (&reply{at:
// time.Now()}), so a repeat finds the key done and has nothing to answer
// with.
func (a *checker) memStatus(f *claim.Func) {
	writes := a.memWrites(f.Body)
	for i, w := range writes {
		var first *memWrite
		for j := range i {
			if writes[j].record == w.record && writes[j].key == w.key {
				first = &writes[j]
				break
			}
		}
		if first == nil {
			continue
		}
		lit, _ := a.literal(w.value)
		s := structOf(a.info.TypeOf(w.value))
		if lit == nil || s == nil || !hasBodyField(s) || !a.empty(w.value, lit) || a.inProgress(w.value) || a.progressFlag(lit) {
			continue
		}
		target := w.target
		a.r.Report(analysis.Diagnostic{
			Pos: w.at.Pos(), End: w.at.End(),
			Message: fmt.Sprintf("%s of %s under %s stores %s %s: it marks the key put there by the %s at %s completed without the response, so a retry cannot get back what this call answered; store the status and the body in the entry (cacheresponse)",
				w.what, target, w.key, emptiness(lit), types.ExprString(lit.Type), first.what, a.where(first.at.Pos())),
			Related: []analysis.RelatedInformation{{Pos: first.at.Pos(), End: first.at.End(), Message: "the entry put under the key first"}},
		})
	}
}

// memWrites returns body's stores into in-memory records, in source
// order; function literals are functions of their own.
func (a *checker) memWrites(body *ast.BlockStmt) []memWrite {
	var out []memWrite
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if u, ok := effect.MapAccess(a.info, l, match.OpWrite); ok {
					out = append(out, memWrite{record: u.Record, target: u.Target, key: types.ExprString(u.Keys[0]), at: n, value: n.Rhs[i], what: u.What})
				}
			}
		case *ast.CallExpr:
			acc, ok := match.Classify(a.pass.Fset, a.info, n)
			if !ok || !strings.HasPrefix(acc.Record, "syncmap ") && !strings.HasPrefix(acc.Record, "cache ") || len(n.Args) < 2 || acc.Op != match.OpWrite && acc.Op != match.OpClaim {
				return true
			}
			out = append(out, memWrite{record: acc.Record, target: acc.Target, key: types.ExprString(n.Args[0]), at: n, value: n.Args[1], what: acc.What})
		}
		return true
	})
	return out
}

// progressFlag reports whether a struct literal sets a field named for
// work under way (running, pending, inFlight) to true: an in-progress
// entry, not a completion.
func (a *checker) progressFlag(lit *ast.CompositeLit) bool {
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, ok := kv.Key.(*ast.Ident)
		if !ok || !match.InProgress(id.Name) {
			continue
		}
		if tv := a.info.Types[kv.Value]; tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value) {
			return true
		}
	}
	return false
}
