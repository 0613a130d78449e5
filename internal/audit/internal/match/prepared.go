package match

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// prepares are the calls that prepare a statement from SQL text, on
// database/sql's DB, Tx and Conn and on sqlx's.
var prepares = map[string]bool{"Prepare": true, "PrepareContext": true, "Preparex": true, "PreparexContext": true}

// prepared reads the Exec, Query or QueryRow of a statement prepared in
// the same function: stmt, err := db.Prepare(sql) then stmt.Exec(k), also
// as tx.Stmt(stmt).Exec(k) and through sqlx's Stmt. The SQL is the
// prepared text; the keys are the arguments given where it runs.
func prepared(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	recv := fn.Signature().Recv()
	if !inPackage(fn, "database/sql") || recv == nil || typeName(recv.Type()) != "Stmt" || !sqlMethods[fn.Name()] {
		return Access{}, false
	}
	stmt := ast.Unparen(receiverOf(call))
	if wrap, ok := stmt.(*ast.CallExpr); ok && len(wrap.Args) > 0 { // tx.Stmt(stmt), tx.StmtContext(ctx, stmt)
		if m := method(info, wrap); m != nil && inPackage(m, "database/sql") && (m.Name() == "Stmt" || m.Name() == "StmtContext") {
			stmt = ast.Unparen(wrap.Args[len(wrap.Args)-1])
		}
	}
	id, ok := stmt.(*ast.Ident)
	if !ok {
		return Access{}, false
	}
	v, index, later, ok := definition(info, id)
	if !ok || index != 0 || len(later) > 0 {
		return Access{}, false
	}
	prep, ok := ast.Unparen(v).(*ast.CallExpr)
	if !ok || len(prep.Args) == 0 {
		return Access{}, false
	}
	pfn, _ := typeutil.Callee(info, prep).(*types.Func)
	if pfn == nil || !prepares[pfn.Name()] || !(inPackage(pfn, "database/sql") || inPackage(pfn, sqlxPath)) {
		return Access{}, false
	}
	a, ok := sqlAccess(info, call, sqlCall(info, pfn.Name(), prep.Args[len(prep.Args)-1]))
	if !ok {
		return Access{}, false
	}
	args := call.Args
	if len(args) > 0 && IsContext(info.TypeOf(args[0])) {
		args = args[1:]
	}
	a.Keys = append(args[:len(args):len(args)], a.Keys...)
	return a, true
}

// IsContext reports whether t is context.Context.
func IsContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Context" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context"
}

// TestSignature reports a test, benchmark or fuzz function, or a
// subtest's literal: one taking a *testing.T, B or F. Tests drive stores
// and handlers to see what they do; the checks leave them alone.
func TestSignature(sig *types.Signature) bool {
	for p := range sig.Params().Variables() {
		t, ok := p.Type().(*types.Pointer)
		if !ok {
			continue
		}
		if n, ok := types.Unalias(t.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" {
			switch n.Obj().Name() {
			case "T", "B", "F":
				return true
			}
		}
	}
	return false
}
