package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// enclosing returns the syntax around pos, innermost first, found through
// the files info records scopes for: Classify is given a call and not its
// file, yet a query held in a variable or a pipeline opened inside a WATCH
// callback is only known from what surrounds the call. Nil when info
// holds no file at pos.
func enclosing(info *types.Info, pos gotoken.Pos) []ast.Node {
	return enclosingInterval(info, pos, pos)
}

// enclosingInterval returns the syntax around the interval [start, end),
// innermost first: a node given by its Pos and End comes first itself.
func enclosingInterval(info *types.Info, start, end gotoken.Pos) []ast.Node {
	for n := range info.Scopes {
		if f, ok := n.(*ast.File); ok && f.FileStart <= start && start < f.FileEnd {
			path, _ := astutil.PathEnclosingInterval(f, start, end)
			return path
		}
	}
	return nil
}

// scannedInto returns the destinations given to the method called on the
// row call returns, as in db.QueryRow(q, k).Scan(&v) or sqlx's
// StructScan(&v) (a row's methods that take arguments all scan), also
// through a variable (row := db.QueryRow(q, k); row.Scan(&v)), or nil.
func scannedInto(info *types.Info, call *ast.CallExpr) []ast.Expr {
	path := enclosingInterval(info, call.Pos(), call.End())
	if len(path) < 3 || path[0] != call {
		return nil
	}
	if as, ok := path[1].(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
		return scannedVar(info, as.Lhs[0], path[2:])
	}
	sel, ok := path[1].(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	scan, ok := path[2].(*ast.CallExpr)
	if !ok || scan.Fun != sel {
		return nil
	}
	return scan.Args
}

// assignment is a later assignment to a declared variable: q += "...",
// q = db.Rebind(q).
type assignment struct {
	Tok   gotoken.Token
	Value ast.Expr // the value given to the variable, or the one call giving all
}

// definition returns what a local variable is declared with where id is
// used: the expression, the index of the variable among the declaration's
// names (for query, args, err := b.ToSql()), and the assignments made to
// it later in its function, in source order, so that
// q := "SELECT ..."; q += " FOR UPDATE" reads whole. A variable that is a
// parameter, a package variable or declared without a value has no
// definition, and ok is false.
func definition(info *types.Info, id *ast.Ident) (value ast.Expr, index int, later []assignment, ok bool) {
	v, isVar := info.Uses[id].(*types.Var)
	if !isVar || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil, 0, nil, false // a field, or a package variable: any function may assign it
	}
	path := enclosing(info, v.Pos())
	body := innermostFunc(path)
	for _, n := range path {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if value == nil {
				value, index, ok = declared(info, v, n.Lhs, n.Rhs)
			}
		case *ast.ValueSpec:
			if value == nil {
				names := make([]ast.Expr, len(n.Names))
				for i, name := range n.Names {
					names[i] = name
				}
				value, index, ok = declared(info, v, names, n.Values)
			}
		}
	}
	if !ok || body == nil {
		return nil, 0, nil, false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		as, isAssign := n.(*ast.AssignStmt)
		if !isAssign {
			return true
		}
		for i, lhs := range as.Lhs {
			if l, isIdent := ast.Unparen(lhs).(*ast.Ident); isIdent && info.Uses[l] == v {
				a := assignment{Tok: as.Tok, Value: as.Rhs[0]}
				if len(as.Rhs) == len(as.Lhs) {
					a.Value = as.Rhs[i]
				}
				later = append(later, a)
			}
		}
		return true
	})
	return value, index, later, true
}

// packageValue returns what a package variable of the package being
// read is declared with, when nothing in the package assigns it or takes
// its address: var claimSQL = "INSERT ... ON CONFLICT DO NOTHING", a
// statement kept once beside the functions that send it.
func packageValue(info *types.Info, id *ast.Ident) (ast.Expr, bool) {
	v, isVar := info.Uses[id].(*types.Var)
	if !isVar || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil, false
	}
	var value ast.Expr
	for _, n := range enclosing(info, v.Pos()) {
		if spec, ok := n.(*ast.ValueSpec); ok {
			names := make([]ast.Expr, len(spec.Names))
			for i, name := range spec.Names {
				names[i] = name
			}
			if e, index, ok := declared(info, v, names, spec.Values); ok && index == 0 {
				value = e
			}
			break
		}
	}
	if value == nil {
		return nil, false
	}
	changed := false
	for n := range info.Scopes {
		f, ok := n.(*ast.File)
		if !ok || changed {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if l, ok := ast.Unparen(l).(*ast.Ident); ok && info.Uses[l] == v {
						changed = true
					}
				}
			case *ast.UnaryExpr:
				if x, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == gotoken.AND && info.Uses[x] == v {
					changed = true
				}
			}
			return !changed
		})
	}
	return value, !changed
}

// declared finds v among the names of a declaration and returns the value
// it is given: its own, or the one multi-valued call all names share.
func declared(info *types.Info, v *types.Var, names, values []ast.Expr) (ast.Expr, int, bool) {
	for i, name := range names {
		if id, ok := name.(*ast.Ident); ok && info.Defs[id] == v {
			switch {
			case len(values) == len(names):
				return values[i], i, true
			case len(values) == 1:
				return values[0], i, true
			}
		}
	}
	return nil, 0, false
}

// scannedVar returns the arguments of the first method call with
// arguments made on the row variable lhs in the function around it
// (path, innermost first).
func scannedVar(info *types.Info, lhs ast.Expr, path []ast.Node) []ast.Expr {
	id, ok := lhs.(*ast.Ident)
	if !ok {
		return nil
	}
	row := info.ObjectOf(id)
	body := innermostFunc(path)
	if row == nil || body == nil {
		return nil
	}
	var dest []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || dest != nil {
			return dest == nil
		}
		if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
			if x, ok := ast.Unparen(sel.X).(*ast.Ident); ok && info.Uses[x] == row {
				dest = c.Args
			}
		}
		return dest == nil
	})
	return dest
}

// innermostFunc returns the innermost function declaration or literal of
// path (innermost first), or nil.
func innermostFunc(path []ast.Node) ast.Node {
	for _, n := range path {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return n
		}
	}
	return nil
}

// receiverOf returns the expression a method is called on, as in x.m(),
// or nil.
func receiverOf(call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}
