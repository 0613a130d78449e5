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
	for n := range info.Scopes {
		if f, ok := n.(*ast.File); ok && f.FileStart <= pos && pos < f.FileEnd {
			path, _ := astutil.PathEnclosingInterval(f, pos, pos)
			return path
		}
	}
	return nil
}

// definition returns the one value a local variable holds where id is
// used: the expression it is declared with, and the index of the variable
// among the declaration's names (for query, args, err := b.ToSql()).
// Appends are the expressions later added to it with +=, in source order,
// so that q := "SELECT ..."; q += " FOR UPDATE" reads whole. A variable
// assigned anywhere with = (or not declared in a function) has no single
// value, and ok is false.
func definition(info *types.Info, id *ast.Ident) (value ast.Expr, index int, appends []ast.Expr, ok bool) {
	v, isVar := info.Uses[id].(*types.Var)
	if !isVar || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil, 0, nil, false
	}
	path := enclosing(info, v.Pos())
	var body ast.Node
	for _, n := range path {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if value == nil && n.Tok == gotoken.DEFINE {
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
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			break
		}
	}
	if !ok || body == nil {
		return nil, 0, nil, false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		as, isAssign := n.(*ast.AssignStmt)
		if !ok || !isAssign || as.Tok == gotoken.DEFINE {
			return ok
		}
		for i, lhs := range as.Lhs {
			if l, isIdent := ast.Unparen(lhs).(*ast.Ident); isIdent && info.Uses[l] == v {
				if as.Tok != gotoken.ADD_ASSIGN || len(as.Rhs) != 1 {
					ok = false
					return false
				}
				appends = append(appends, as.Rhs[i])
			}
		}
		return true
	})
	if !ok {
		return nil, 0, nil, false
	}
	return value, index, appends, true
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
