package match

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

const goquPath = "github.com/doug-martin/goqu/v9"

// goquVerbs are goqu's datasets and the statements they build.
var goquVerbs = map[string]Verb{"SelectDataset": Select, "InsertDataset": Insert, "UpdateDataset": Update, "DeleteDataset": Delete}

// goquEnds are the dataset and executor methods that send a goqu
// statement, and ToSQL, which hands its text to a call that sends it.
var goquEnds = map[string]bool{
	"ScanStruct": true, "ScanStructs": true, "ScanVal": true, "ScanVals": true, "Count": true,
	"ScanStructContext": true, "ScanStructsContext": true, "ScanValContext": true, "ScanValsContext": true, "CountContext": true,
	"Exec": true, "ExecContext": true, "ToSQL": true,
}

// goquChain reads a goqu chain that call ends:
// goqu.From("t").Where(goqu.Ex{"k": k}).ScanStruct(&v),
// db.Insert("t").Rows(r).OnConflict(goqu.DoNothing()).Executor().Exec(),
// Update("t").Set(goqu.Record{...}).Where(...), Delete("t").
func goquChain(info *types.Info, call *ast.CallExpr, fn *types.Func) (built, bool) {
	recv := fn.Signature().Recv()
	if recv == nil || !goquEnds[fn.Name()] || !(inPackage(fn, goquPath) || inPackage(fn, goquPath+"/exec")) {
		return built{}, false
	}
	x := receiver(call)
	if inPackage(fn, goquPath+"/exec") { // dataset.Executor().Exec()
		if x == nil {
			return built{}, false
		}
		exe, _ := typeutil.Callee(info, x).(*types.Func)
		if exe == nil || exe.Signature().Recv() == nil {
			return built{}, false
		}
		recv = exe.Signature().Recv()
	}
	verb, ok := goquVerbs[typeName(recv.Type())]
	if !ok {
		return built{}, false
	}
	b := built{st: Statement{Verb: verb}}
	if name := fn.Name(); strings.HasPrefix(name, "Scan") {
		b.dest = call.Args
		if strings.HasSuffix(name, "Context") {
			b.dest = call.Args[min(len(call.Args), 1):]
		}
	}
	b.goquLinks(info, x)
	return b, true
}

// goquDataset reads a goqu dataset handed on as a value, to a helper that
// sends it: pg.Insert("holds").Rows(...).
func goquDataset(info *types.Info, e *ast.CallExpr) (built, bool) {
	fn, _ := typeutil.Callee(info, e).(*types.Func)
	if fn == nil || !inPackage(fn, goquPath) {
		return built{}, false
	}
	verb, ok := goquVerbs[typeName(info.TypeOf(e))]
	if !ok {
		return built{}, false
	}
	b := built{st: Statement{Verb: verb}}
	b.goquLinks(info, e)
	return b, true
}

// goquLinks reads the links of a goqu chain from x back to its start.
func (b *built) goquLinks(info *types.Info, x *ast.CallExpr) {
	for ; x != nil; x = receiver(x) {
		link, _ := typeutil.Callee(info, x).(*types.Func)
		if link == nil || !inPackage(link, goquPath) {
			break
		}
		if len(x.Args) == 0 {
			continue
		}
		switch link.Name() {
		case "From", "Into", "Insert", "Update", "Delete":
			if b.st.Table == "" {
				b.st.Table = goquTable(info, x.Args[0])
			}
		case "Where":
			for _, e := range x.Args {
				b.goquWhere(info, e)
			}
		case "ForUpdate":
			b.st.ForUpdate = true
		case "OnConflict":
			b.st.Conditional = true // DoNothing, or DoUpdate: an upsert, as ON CONFLICT is to ParseSQL
		case "Cols":
			b.st.Columns = constStrings(info, x.Args)
		case "Rows", "Vals":
			b.keys = append(b.keys, x.Args...)
			if link.Name() == "Rows" {
				b.st.Columns = literalColumns(info, x.Args[0]) // Rows(goqu.Record{"k": k})
			}
		case "Set":
			b.st.Assigned = append(b.st.Assigned, literalColumns(info, x.Args[0])...)
		}
	}
}

// goquTable returns the table a goqu call names: "t" or goqu.T("t").
func goquTable(info *types.Info, e ast.Expr) string {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if fn, _ := typeutil.Callee(info, call).(*types.Func); fn != nil && inPackage(fn, goquPath) && fn.Name() == "T" && len(call.Args) == 1 {
			e = call.Args[0]
		}
	}
	return constTable(info, e)
}

// goquWhere records a goqu expression: an Ex map whose keys are the
// columns and whose values the keys, or goqu.C("col").Eq(v).
func (b *built) goquWhere(info *types.Info, e ast.Expr) {
	if lit, ok := ast.Unparen(e).(*ast.CompositeLit); ok && typeName(info.TypeOf(lit)) == "Ex" {
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				b.st.Columns = append(b.st.Columns, constStrings(info, []ast.Expr{kv.Key})...)
				b.keys = append(b.keys, kv.Value)
			}
		}
		return
	}
	if eq, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(eq.Args) == 1 {
		if sel, ok := ast.Unparen(eq.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Eq" {
			if col, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok && len(col.Args) == 1 {
				if fn, _ := typeutil.Callee(info, col).(*types.Func); fn != nil && inPackage(fn, goquPath) && fn.Name() == "C" {
					b.st.Columns = append(b.st.Columns, constStrings(info, col.Args)...)
					b.keys = append(b.keys, eq.Args[0])
					return
				}
			}
		}
	}
	b.keys = append(b.keys, e)
}

// goquQuery reads a goqu chain where it is sent.
func goquQuery(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if fn.Name() == "ToSQL" {
		return Access{}, false
	}
	b, ok := goquChain(info, call, fn)
	if !ok {
		return Access{}, false
	}
	return b.access(info, call, fn.Name())
}
