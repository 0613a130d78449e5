package match

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// jetPath is go-jet's module: a type-safe SQL builder whose statements
// name their table and columns through the Go values it generates for
// the schema (table.Payments.IdempotencyKey), not in text.
const jetPath = "github.com/go-jet/jet/v2"

// jetVerbs are go-jet's statement types and the statements they build,
// the same for its postgres, mysql and sqlite packages.
var jetVerbs = map[string]Verb{"SelectStatement": Select, "InsertStatement": Insert, "UpdateStatement": Update, "DeleteStatement": Delete}

// jetEnds are the statement methods that send it.
var jetEnds = map[string]bool{"Query": true, "QueryContext": true, "Exec": true, "ExecContext": true}

// jetCompare are the column methods that compare a column with a value
// for equality, as a key lookup does.
var jetCompare = []string{"EQ", "IS_NOT_DISTINCT_FROM", "IN"}

func inJet(fn *types.Func) bool { return fn != nil && inPackage(fn, jetPath+"/...") }

// jet reads a go-jet statement where it is sent:
// SELECT(t.AllColumns).FROM(t).WHERE(t.Key.EQ(String(k))).QueryContext(ctx, db, &dest),
// t.INSERT(t.Key, t.Status).VALUES(k, "done").ON_CONFLICT(t.Key).DO_NOTHING().ExecContext(ctx, db),
// t.UPDATE(t.Status).SET(String("paid")).WHERE(...), t.DELETE().WHERE(...),
// also through a variable holding the statement (stmt := ...;
// stmt.ExecContext(ctx, db)). The record is the table value's name
// (table.ProcessedEvents: processed_events); the keys are the values its
// WHERE compares, or those an INSERT's VALUES or MODEL gives.
func jet(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !inJet(fn) || !jetEnds[fn.Name()] {
		return Access{}, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return Access{}, false
	}
	verb, ok := jetVerb(info.TypeOf(sel.X))
	if !ok {
		return Access{}, false
	}
	b := built{st: Statement{Verb: verb}}
	for _, x := range jetChain(info, sel.X) {
		link, _ := typeutil.Callee(info, x).(*types.Func)
		if !inJet(link) {
			continue
		}
		switch name := link.Name(); name {
		case "FROM":
			if len(x.Args) > 0 && b.st.Table == "" {
				b.st.Table = jetTable(x.Args[0])
			}
		case "INSERT", "UPDATE", "DELETE", "SELECT":
			if s, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && link.Signature().Recv() != nil {
				b.st.Table = jetTable(s.X) // table.Payments.INSERT(...)
			}
			if name == "UPDATE" && link.Signature().Recv() != nil {
				for _, col := range x.Args {
					if c := jetColumn(col); c != "" {
						b.st.Assigned = append(b.st.Assigned, c)
					}
				}
			}
		case "WHERE":
			if len(x.Args) > 0 {
				b.jetWhere(info, x.Args[0])
			}
		case "VALUES", "MODEL", "SET":
			for _, v := range x.Args {
				if verb == Insert {
					b.keys = append(b.keys, v)
				}
			}
		case "DO_NOTHING":
			b.st.Conditional = true
		case "FOR":
			b.st.ForUpdate = true
		}
	}
	if b.st.Table == "" {
		return Access{}, false
	}
	if verb == Select && strings.HasPrefix(fn.Name(), "Query") && len(call.Args) > 0 {
		b.dest = call.Args[len(call.Args)-1:]
	}
	return b.access(info, call, fn.Name())
}

// jetVerb reads the statement a go-jet statement type builds.
func jetVerb(t types.Type) (Verb, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), jetPath+"/") {
		return 0, false
	}
	v, ok := jetVerbs[n.Obj().Name()]
	return v, ok
}

// jetChain returns the calls of the chain that builds statement e, from
// the one nearest the send back to its root, through local variables
// that hold a statement on the way (stmt := t.UPDATE(...); stmt.WHERE(...)).
func jetChain(info *types.Info, e ast.Expr) []*ast.CallExpr {
	var out []*ast.CallExpr
	for depth := 0; depth < 32; depth++ {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			out = append(out, x)
			s, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok {
				return out
			}
			e = s.X
		case *ast.Ident:
			v, _, _, ok := definition(info, x)
			if !ok {
				return out
			}
			e = v
		default:
			return out
		}
	}
	return out
}

// jetTable names the table a generated table value is:
// table.ProcessedEvents, or ProcessedEvents dot-imported; "" otherwise.
func jetTable(e ast.Expr) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return strings.Join(Words(x.Sel.Name), "_")
	case *ast.Ident:
		return strings.Join(Words(x.Name), "_")
	case *ast.CallExpr: // t.INNER_JOIN(...): the first table
		if s, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			return jetTable(s.X)
		}
	}
	return ""
}

// jetColumn names the column a generated column value is:
// table.Payments.IdempotencyKey is idempotency_key.
func jetColumn(e ast.Expr) string {
	if s, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		if _, ok := ast.Unparen(s.X).(*ast.SelectorExpr); ok {
			return strings.Join(Words(s.Sel.Name), "_")
		}
		if _, ok := ast.Unparen(s.X).(*ast.Ident); ok {
			return strings.Join(Words(s.Sel.Name), "_")
		}
	}
	return ""
}

// jetWhere records what a WHERE condition compares: the columns a
// comparison method is called on (t.Status.EQ(...)), and the values given
// to it that are not go-jet expressions themselves (String(k): k).
func (b *built) jetWhere(info *types.Info, cond ast.Expr) {
	ast.Inspect(cond, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		if !inJet(fn) {
			return true
		}
		if s, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && slices.Contains(jetCompare, s.Sel.Name) {
			if c := jetColumn(s.X); c != "" {
				b.st.Columns = append(b.st.Columns, c)
			}
		}
		for _, a := range call.Args {
			if t := info.TypeOf(a); t != nil && !jetType(t) && info.Types[a].Value == nil {
				b.keys = append(b.keys, a)
			}
		}
		return true
	})
}

// jetType reports whether t is one of go-jet's own types (an
// expression, a column).
func jetType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && strings.HasPrefix(n.Obj().Pkg().Path(), jetPath+"/")
}
