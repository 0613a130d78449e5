package effect

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Defs maps a function's local variables to the expressions assigned to
// them, wherever in the body: enough to follow key := "seen:" + ev.ID, or
// g := Grant{UserID: u}, back to what the key is made of.
type Defs struct {
	// Values are the expressions assigned to each variable.
	Values map[*types.Var][]ast.Expr
	// Elems maps a range loop's value variable to the collection it
	// walks: the l of `for _, l := range lines`.
	Elems map[*types.Var]ast.Expr
}

// Definitions collects the assignments of body, closures included.
func Definitions(info *types.Info, body ast.Node) Defs {
	defs := Defs{Values: map[*types.Var][]ast.Expr{}, Elems: map[*types.Var]ast.Expr{}}
	add := func(lhs ast.Expr, rhs ast.Expr) {
		for {
			switch x := ast.Unparen(lhs).(type) {
			case *ast.IndexExpr:
				lhs = x.X // refs[i] = l.Ref: refs holds what is stored in it
				continue
			case *ast.SelectorExpr:
				if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
					lhs = x.X // lines[i].OrderID = id: the line is keyed by id
					continue
				}
			}
			break
		}
		id, ok := ast.Unparen(lhs).(*ast.Ident)
		if !ok {
			return
		}
		v, ok := info.ObjectOf(id).(*types.Var)
		if !ok || v.IsField() {
			return
		}
		defs.Values[v] = append(defs.Values[v], rhs)
	}
	// assign pairs the left-hand sides with what they are given: one
	// each, or all from one multi-valued expression.
	assign := func(lhs []ast.Expr, rhs []ast.Expr) {
		for i, l := range lhs {
			switch {
			case len(lhs) == len(rhs):
				add(l, rhs[i])
			case len(rhs) == 1:
				add(l, rhs[0])
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			assign(n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			names := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				names[i] = id
			}
			assign(names, n.Values)
		case *ast.RangeStmt:
			if n.Key != nil {
				add(n.Key, n.X)
			}
			if n.Value != nil {
				add(n.Value, n.X)
				if id, ok := n.Value.(*ast.Ident); ok {
					if v, ok := info.Defs[id].(*types.Var); ok {
						defs.Elems[v] = n.X
					}
				}
			}
		}
		return true
	})
	return defs
}

// maxDepth bounds how far Roots and Atoms follow local definitions.
const maxDepth = 4

// Roots returns the variables e is made from, following local variables
// to what was assigned to them: the parameters a key comes from.
func Roots(info *types.Info, defs Defs, e ast.Expr) []*types.Var {
	var out []*types.Var
	seen := map[*types.Var]bool{}
	var walk func(e ast.Expr, depth int)
	walk = func(e ast.Expr, depth int) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectorExpr:
				if _, ok := info.Selections[n]; !ok {
					return false // a qualified identifier: pkg.Name
				}
			case *ast.Ident:
				v, ok := info.Uses[n].(*types.Var)
				if !ok || v.IsField() || seen[v] {
					return true
				}
				seen[v] = true
				out = append(out, v)
				if depth < maxDepth {
					for _, d := range defs.Values[v] {
						walk(d, depth+1)
					}
				}
			}
			return true
		})
	}
	walk(e, 0)
	return out
}

// Atom is one value a key is made of: a variable, or a field path from
// one (ev.ID, req.Order.ID), or a no-argument method of one (msg.ID()).
type Atom struct {
	Root *types.Var
	Path string // the selectors after the root, as written: ".ID", ".Order.ID", ".ID()"
	// Weak marks an atom every key of a function may share, which
	// identifies no record: a field of the receiver (s.prefix), a package
	// variable, a constant-like configuration value.
	Weak bool
}

// Atoms returns the values a key expression is made of, following local
// variables to their definitions and a local composite literal's field
// to the value it was given. recv is the enclosing method's receiver, whose
// fields are Weak atoms. A local assigned a call's result is made of the
// call's arguments when the call builds a value (fmt, strings, a
// conversion, or a constructor for which lookup, when given, says false),
// not when it looks one up: the rows a batch query returns are not keyed
// by the batch.
func Atoms(info *types.Info, defs Defs, recv *types.Var, lookup func(*ast.CallExpr) bool, e ast.Expr) []Atom {
	var out []Atom
	seen := map[Atom]bool{}
	addAtom := func(a Atom) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	var walk func(e ast.Expr, depth int)
	walk = func(e ast.Expr, depth int) {
		e = ast.Unparen(e)
		if tv, ok := info.Types[e]; ok && tv.Value != nil {
			return // a constant
		}
		if root, path, ok := selectorPath(info, e); ok {
			a := Atom{Root: root, Path: path, Weak: root == recv || isPackageVar(root)}
			addAtom(a)
			if coll, ok := defs.Elems[root]; ok {
				// An element of a collection: l.Ref in two loops over
				// lines is the same lines[].Ref.
				if croot, cpath, ok := selectorPath(info, ast.Unparen(coll)); ok {
					addAtom(Atom{Root: croot, Path: cpath + "[]" + path, Weak: croot == recv || isPackageVar(croot)})
				}
			}
			if depth < maxDepth && !a.Weak {
				for _, d := range defs.Values[root] {
					if path == "" {
						walk(d, depth+1)
					} else if v := fieldValue(d, strings.TrimPrefix(path, ".")); v != nil {
						walk(v, depth+1)
					} else if _, ok := ast.Unparen(d).(*ast.CallExpr); ok {
						walk(d, depth+1) // v := newVoucher(code); v.Code
					}
				}
			}
			return
		}
		switch e := e.(type) {
		case *ast.CallExpr:
			if depth > 0 && !builds(info, e) && (lookup == nil || lookup(e)) {
				return // a local's value looked up by a call is not the call's arguments
			}
			if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok {
				if _, isMethod := info.Selections[sel]; isMethod {
					walk(sel.X, depth)
				}
			}
			for _, a := range e.Args {
				walk(a, depth)
			}
		case *ast.BinaryExpr:
			walk(e.X, depth)
			walk(e.Y, depth)
		case *ast.UnaryExpr:
			walk(e.X, depth)
		case *ast.StarExpr:
			walk(e.X, depth)
		case *ast.IndexExpr:
			walk(e.X, depth)
			walk(e.Index, depth)
		case *ast.CompositeLit:
			for _, elt := range e.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					walk(kv.Value, depth)
				} else {
					walk(elt, depth)
				}
			}
		case *ast.SliceExpr:
			walk(e.X, depth)
		case *ast.TypeAssertExpr:
			walk(e.X, depth)
		}
	}
	walk(e, 0)
	return out
}

// builds reports whether call only builds a value from its arguments, as
// a key is built: a conversion, or a function of fmt, strings, strconv,
// path or bytes. A local variable assigned such a call is made of the
// arguments; one assigned a lookup's result is not.
func builds(info *types.Info, call *ast.CallExpr) bool {
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "fmt", "strings", "strconv", "path", "bytes", "path/filepath":
		return true
	}
	return false
}

// selectorPath reads e as a variable followed by field selections and
// at most one final no-argument method call: v, v.f.g, v.ID().
func selectorPath(info *types.Info, e ast.Expr) (*types.Var, string, bool) {
	path := ""
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil, "", false
		}
		if s, ok := info.Selections[sel]; !ok || s.Kind() != types.MethodVal {
			return nil, "", false
		}
		path = "." + sel.Sel.Name + "()"
		e = ast.Unparen(sel.X)
	}
	for {
		switch x := e.(type) {
		case *ast.Ident:
			v, ok := info.Uses[x].(*types.Var)
			if !ok || v.IsField() {
				return nil, "", false
			}
			return v, path, true
		case *ast.SelectorExpr:
			s, ok := info.Selections[x]
			if !ok || s.Kind() != types.FieldVal {
				return nil, "", false
			}
			path = "." + x.Sel.Name + path
			e = ast.Unparen(x.X)
		case *ast.StarExpr:
			e = ast.Unparen(x.X)
		default:
			return nil, "", false
		}
	}
}

// fieldValue returns the value a composite literal (or its address)
// gives the field named first in path, or nil.
func fieldValue(def ast.Expr, path string) ast.Expr {
	name, _, _ := strings.Cut(path, ".")
	def = ast.Unparen(def)
	if u, ok := def.(*ast.UnaryExpr); ok {
		def = ast.Unparen(u.X)
	}
	lit, ok := def.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value
			}
		}
	}
	return nil
}

func isPackageVar(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
}

// SameKey reports whether two keys pick the same record: they share a
// value that is not Weak (a struct and one of its fields count as
// shared), or, when neither has one, they are written the same.
func SameKey(a, b []Atom, ea, eb []ast.Expr) bool {
	strong := func(as []Atom) bool {
		for _, x := range as {
			if !x.Weak {
				return true
			}
		}
		return false
	}
	if strong(a) && strong(b) {
		for _, x := range a {
			for _, y := range b {
				if !x.Weak && !y.Weak && x.Root == y.Root && (prefix(x.Path, y.Path) || prefix(y.Path, x.Path)) {
					return true
				}
			}
		}
		return false
	}
	if strong(a) || strong(b) {
		return false
	}
	return exprsString(ea) == exprsString(eb)
}

// prefix reports whether the field path p selects q or a value holding
// it: a whole struct passed as the key holds every field of it.
func prefix(p, q string) bool {
	return p == q || strings.HasPrefix(q, p+".")
}

func exprsString(es []ast.Expr) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, types.ExprString(e))
	}
	return strings.Join(parts, ",")
}
