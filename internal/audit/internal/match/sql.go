package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// SQLCall is a call that sends SQL text to a database.
type SQLCall struct {
	Method string   // Exec, QueryRowContext, ...
	Query  ast.Expr // the argument holding the SQL text
	// Text is the SQL when Query is a constant (a literal, a named
	// constant such as sqlc generates); Const says whether it is.
	Text  string
	Const bool
	// Built marks SQL text that is not one constant but was read from its
	// constant parts: a fmt.Sprintf or a concatenation of constants and
	// variables (each variable a hole that names no table or column), a
	// query held in a variable, sqlx's Rebind and In, a query builder's
	// ToSql. Statement reads the text so assembled.
	Built bool
	built Statement
	// Keys are what a built statement is picked by beyond the call's own
	// arguments: the variables spliced into its text, the values of a
	// builder's Where.
	Keys []ast.Expr
	// Dest are the destinations a call that reads into them names before
	// its SQL: sqlx's Get and Select.
	Dest []ast.Expr
}

// Statement classifies the call's SQL text; a call whose text is not
// constant is VerbOther.
func (c SQLCall) Statement() Statement {
	if c.Built {
		return c.built
	}
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
// pgx v5's and v4's Conn, Tx and pgxpool.Pool, or of any interface with
// such a method (the DBTX interface sqlc generates, a repository's own);
// a pgx Batch's Queue; gorm's Exec; sqlx's Get, Select, NamedExec, MustExec, Queryx and
// QueryRowx (with or without Context, as methods of its DB and Tx, of an
// interface, or as its package functions). The SQL text is the first
// string parameter, followed by variadic arguments (or, for the Named
// calls, the struct or map that holds them).
func SQL(info *types.Info, call *ast.CallExpr) (SQLCall, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || !sendsSQL(fn.Origin()) {
		return SQLCall{}, false
	}
	fn = fn.Origin()
	sig := fn.Signature()
	for i := range sig.Params().Len() - 1 {
		if b, ok := sig.Params().At(i).Type().(*types.Basic); ok && b.Kind() == types.String {
			if i >= len(call.Args) {
				return SQLCall{}, false
			}
			c := sqlCall(info, fn.Name(), call.Args[i])
			if sqlxDest[fn.Name()] && i > 0 && isEmptyInterface(sig.Params().At(i-1).Type()) {
				c.Dest = call.Args[i-1 : i]
			}
			return c, true
		}
	}
	return SQLCall{}, false
}

// heldText returns the text of a query that is constant though not a Go
// constant: a variable, local or of the package, set once to constant
// text or to a concatenation of such and never assigned again
// (var claimSQL = "INSERT ... " + "ON CONFLICT DO NOTHING"; q := claimSQL).
func heldText(info *types.Info, e ast.Expr, depth int) (string, bool) {
	if s, ok := ConstString(info, e); ok || depth == 0 {
		return s, ok
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if e.Op != gotoken.ADD {
			return "", false
		}
		x, ok := heldText(info, e.X, depth-1)
		if !ok {
			return "", false
		}
		y, ok := heldText(info, e.Y, depth-1)
		return x + y, ok
	case *ast.Ident:
		if v, index, later, ok := definition(info, e); ok && index == 0 && len(later) == 0 {
			return heldText(info, v, depth-1)
		}
		if v, ok := packageValue(info, e); ok {
			return heldText(info, v, depth-1)
		}
	}
	return "", false
}

// sqlCall reads the SQL text of query, given to method.
func sqlCall(info *types.Info, method string, query ast.Expr) SQLCall {
	c := SQLCall{Method: method, Query: query}
	c.Text, c.Const = heldText(info, query, maxSkeletonDepth)
	if !c.Const {
		c.built, c.Keys, c.Built = builtQuery(info, query)
	}
	return c
}
