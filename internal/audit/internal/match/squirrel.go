package match

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

const squirrelPath = "github.com/Masterminds/squirrel"

// squirrelVerbs are squirrel's builder types and the statements they
// build.
var squirrelVerbs = map[string]Verb{"SelectBuilder": Select, "InsertBuilder": Insert, "UpdateBuilder": Update, "DeleteBuilder": Delete}

// squirrelEnds are the methods that send a squirrel statement, and
// ToSql, which hands its text to a call that sends it.
var squirrelEnds = map[string]bool{
	"Exec": true, "ExecContext": true, "Query": true, "QueryContext": true,
	"QueryRow": true, "QueryRowContext": true, "Scan": true, "ScanContext": true, "ToSql": true,
}

// squirrelChain reads a squirrel chain that call ends:
// sq.Select("id").From("t").Where(sq.Eq{"k": k}).RunWith(db).QueryRow(),
// sq.Insert("t").Columns("k").Values(k).Suffix("ON CONFLICT DO NOTHING"),
// sq.Update("t").Set("status", s).Where(...), sq.Delete("t").
func squirrelChain(info *types.Info, call *ast.CallExpr, fn *types.Func) (built, bool) {
	recv := fn.Signature().Recv()
	if !inPackage(fn, squirrelPath) || recv == nil || !squirrelEnds[fn.Name()] {
		return built{}, false
	}
	verb, ok := squirrelVerbs[typeName(recv.Type())]
	if !ok {
		return built{}, false
	}
	b := built{st: Statement{Verb: verb}}
	switch fn.Name() {
	case "Scan":
		b.dest = call.Args
	case "ScanContext":
		b.dest = call.Args[min(len(call.Args), 1):]
	}
	b.squirrelLinks(info, receiver(call), verb)
	return b, true
}

// squirrelBuilder reads a squirrel builder handed on as a value, to a
// helper that sends it: sq.Insert("holds").Columns(...).Values(...).
func squirrelBuilder(info *types.Info, e *ast.CallExpr) (built, bool) {
	fn, _ := typeutil.Callee(info, e).(*types.Func)
	if fn == nil || !inPackage(fn, squirrelPath) {
		return built{}, false
	}
	verb, ok := squirrelVerbs[typeName(info.TypeOf(e))]
	if !ok {
		return built{}, false
	}
	b := built{st: Statement{Verb: verb}}
	b.squirrelLinks(info, e, verb)
	return b, true
}

// squirrelLinks reads the links of a squirrel chain from x back to its
// start.
func (b *built) squirrelLinks(info *types.Info, x *ast.CallExpr, verb Verb) {
	for ; x != nil; x = receiver(x) {
		link, _ := typeutil.Callee(info, x).(*types.Func)
		if link == nil || !inPackage(link, squirrelPath) {
			break
		}
		if len(x.Args) == 0 {
			continue
		}
		switch link.Name() {
		case "From", "Into", "Table", "Insert", "Update", "Delete", "Replace":
			if b.st.Table == "" { // Insert("").Into("t"): the last one named
				b.st.Table = constTable(info, x.Args[0])
			}
		case "Where":
			b.squirrelWhere(info, x.Args[0], x.Args[1:])
		case "Columns":
			if verb == Insert {
				b.st.Columns = constStrings(info, x.Args)
			}
		case "Values":
			b.keys = append(b.keys, x.Args...)
		case "Set":
			b.st.Assigned = append(b.st.Assigned, constStrings(info, x.Args[:1])...)
		case "SetMap":
			if verb == Insert { // the columns and values of an INSERT
				b.st.Columns = literalColumns(info, x.Args[0])
			} else {
				b.st.Assigned = append(b.st.Assigned, literalColumns(info, x.Args[0])...)
			}
			b.keys = append(b.keys, x.Args[0])
		case "Suffix":
			b.st.Conditional = b.st.Conditional || verb == Insert && conflictClause(info, x.Args[0])
			if s, ok := ConstString(info, x.Args[0]); ok && verb == Select {
				b.st.ForUpdate = b.st.ForUpdate || ParseSQL("SELECT 1 FROM t "+s).ForUpdate
			}
		case "Options":
			for _, o := range constStrings(info, x.Args) {
				b.st.Conditional = b.st.Conditional || strings.EqualFold(o, "IGNORE")
			}
		}
	}
}

// squirrelWhere records a squirrel predicate: a condition with its
// arguments, or an Eq map whose keys are the columns and whose values the
// keys; And lists them.
func (b *built) squirrelWhere(info *types.Info, pred ast.Expr, args []ast.Expr) {
	lit, ok := ast.Unparen(pred).(*ast.CompositeLit)
	if !ok {
		b.where(info, pred, args)
		return
	}
	switch typeName(info.TypeOf(lit)) {
	case "Eq":
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				b.st.Columns = append(b.st.Columns, constStrings(info, []ast.Expr{kv.Key})...)
				b.keys = append(b.keys, kv.Value)
			}
		}
	case "And":
		for _, elt := range lit.Elts {
			b.squirrelWhere(info, elt, nil)
		}
	default:
		b.keys = append(b.keys, pred)
	}
}

// constStrings returns the constant strings among es.
func constStrings(info *types.Info, es []ast.Expr) []string {
	var out []string
	for _, e := range es {
		if s, ok := ConstString(info, e); ok {
			out = append(out, s)
		}
	}
	return out
}

// squirrelQuery reads a squirrel chain where it is sent.
func squirrelQuery(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if fn.Name() == "ToSql" {
		return Access{}, false
	}
	b, ok := squirrelChain(info, call, fn)
	if !ok {
		return Access{}, false
	}
	return b.access(info, call, fn.Name())
}
