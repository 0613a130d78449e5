package match

import (
	"go/ast"
	"go/types"
)

const sqlxPath = "github.com/jmoiron/sqlx"

// sqlxCalls are the sqlx methods and package functions that send SQL
// text.
var sqlxCalls = map[string]bool{
	"Get": true, "GetContext": true, "Select": true, "SelectContext": true,
	"NamedExec": true, "NamedExecContext": true, "NamedQuery": true, "NamedQueryContext": true,
	"MustExec": true, "MustExecContext": true,
	"Queryx": true, "QueryxContext": true, "QueryRowx": true, "QueryRowxContext": true,
}

// sqlxDest are the sqlx calls that read into a destination given just
// before the SQL text.
var sqlxDest = map[string]bool{"Get": true, "GetContext": true, "Select": true, "SelectContext": true}

// sendsSQL reports whether fn is one of the calls SQL reads.
func sendsSQL(fn *types.Func) bool {
	sig := fn.Signature()
	name := fn.Name()
	pgx := inPackage(fn, "github.com/jackc/pgx/v5/...") || inPackage(fn, "github.com/jackc/pgx/v4/...")
	switch {
	case inPackage(fn, sqlxPath):
		// sqlx's own calls, and database/sql's methods as its interfaces
		// (ExecerContext, ExtContext, QueryerContext) declare them.
		return sqlxCalls[name] || (sqlMethods[name] && sig.Variadic())
	case sig.Recv() == nil:
		return false
	case name == "Queue": // a pgx Batch
		return pgx && sig.Variadic()
	case sqlMethods[name]:
		return sig.Variadic() && (inPackage(fn, "database/sql") || pgx || inPackage(fn, gormPath) || inPackage(fn, bunPath) || types.IsInterface(sig.Recv().Type()))
	case sqlxCalls[name]:
		if !types.IsInterface(sig.Recv().Type()) {
			return false
		}
		if n := sig.Params().Len(); n >= 2 && !sig.Variadic() { // NamedExec(query string, arg any)
			return isEmptyInterface(sig.Params().At(n-1).Type()) && isString(sig.Params().At(n-2).Type())
		}
		return sig.Variadic()
	}
	return false
}

// isEmptyInterface reports whether t is interface{} or any.
func isEmptyInterface(t types.Type) bool {
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.Empty()
}

// isString reports whether t is a string type.
func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// copyFrom reads pgx's CopyFrom(ctx, pgx.Identifier{"schema", "table"},
// columns, rows): rows written into the table with no conflict handling,
// each COPY adding its own.
func copyFrom(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if fn.Name() != "CopyFrom" || len(call.Args) < 4 ||
		!(inPackage(fn, "github.com/jackc/pgx/v5/...") || inPackage(fn, "github.com/jackc/pgx/v4/...")) {
		return Access{}, false
	}
	lit, ok := ast.Unparen(call.Args[1]).(*ast.CompositeLit)
	if !ok || len(lit.Elts) == 0 {
		return Access{}, false
	}
	table, ok := ConstString(info, lit.Elts[len(lit.Elts)-1])
	if !ok {
		return Access{}, false
	}
	return Access{Op: OpWrite, What: "COPY", Record: "sql " + RecordName(table), Target: table,
		Keys: call.Args[3:4], Appends: true, Call: call}, true
}
