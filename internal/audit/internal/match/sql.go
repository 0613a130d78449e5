package match

import (
	"go/ast"
	"go/types"
)

// SQLCall is a call that sends SQL text to a database.
type SQLCall struct {
	Method string   // Exec, QueryRowContext, ...
	Query  ast.Expr // the argument holding the SQL text
	// Text is the SQL when Query is a constant (a literal, a named
	// constant such as sqlc generates); Const says whether it is.
	Text  string
	Const bool
}

// Statement classifies the call's SQL text; a call whose text is not
// constant is VerbOther.
func (c SQLCall) Statement() Statement {
	if !c.Const {
		return Statement{}
	}
	return ParseSQL(c.Text)
}

var sqlMethods = map[string]bool{
	"Query": true, "QueryContext": true,
	"QueryRow": true, "QueryRowContext": true,
	"Exec": true, "ExecContext": true,
}

// SQL reports whether call sends SQL text: a Query, QueryRow or Exec
// (with or without Context) method of database/sql's DB, Tx and Conn, of
// pgx v5's Conn, Tx and pgxpool.Pool, or of any interface with such a
// method (the DBTX interface sqlc generates, a repository's own). The SQL
// text is the method's first string parameter, followed by variadic
// arguments.
func SQL(info *types.Info, call *ast.CallExpr) (SQLCall, bool) {
	fn := method(info, call)
	if fn == nil || !sqlMethods[fn.Name()] {
		return SQLCall{}, false
	}
	recv := fn.Signature().Recv().Type()
	if !inPackage(fn, "database/sql") && !inPackage(fn, "github.com/jackc/pgx/v5/...") && !types.IsInterface(recv) {
		return SQLCall{}, false
	}
	sig := fn.Signature()
	if !sig.Variadic() {
		return SQLCall{}, false
	}
	for i := range sig.Params().Len() - 1 {
		if b, ok := sig.Params().At(i).Type().(*types.Basic); ok && b.Kind() == types.String {
			if i >= len(call.Args) {
				return SQLCall{}, false
			}
			c := SQLCall{Method: fn.Name(), Query: call.Args[i]}
			c.Text, c.Const = ConstString(info, c.Query)
			return c, true
		}
	}
	return SQLCall{}, false
}
