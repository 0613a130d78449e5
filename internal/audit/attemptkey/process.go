package attemptkey

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// perProcess finds the package variables and struct fields that hold a
// value made fresh once per process: a package variable initialised with
// one (or with a sync.OnceValue of one), and a variable or field set to
// one in a constructor, an init function or a sync.Once. A key built from
// such a value (a dedup prefix stamped with the start time) is stable
// within one process and differs on every replica and after a restart.
func (c *checker) perProcess(ins *inspector.Inspector, decls []*ast.FuncDecl) {
	info := c.pass.TypesInfo
	empty := &flow{c: c, vars: map[types.Object]*origin{}}
	ins.Preorder([]ast.Node{(*ast.GenDecl)(nil)}, func(n ast.Node) {
		gd := n.(*ast.GenDecl)
		if gd.Tok != token.VAR {
			return
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				obj, ok := info.Defs[name].(*types.Var)
				if !ok || obj.Parent() != c.pass.Pkg.Scope() || i >= len(vs.Values) {
					continue
				}
				c.held[obj] = append(c.held[obj], types.ExprString(vs.Values[i]))
				if o := once(info, vs.Values[i]); o != nil {
					if r := c.litReturns(o.Body); r.fresh() {
						c.onces[obj] = c.perProcessOrigin(r, "the sync.OnceValue "+name.Name)
					}
				} else if o := empty.origin(vs.Values[i]); o.fresh() {
					c.process[obj] = c.perProcessOrigin(o, "the package variable "+name.Name)
				}
			}
		}
	})
	for _, decl := range decls {
		name := strings.ToLower(decl.Name.Name)
		setup := strings.HasPrefix(name, "new") || strings.HasPrefix(name, "init") || strings.HasPrefix(name, "setup") || strings.HasPrefix(name, "start") || name == "main"
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && onceDo(info, call) {
				if lit, ok := call.Args[0].(*ast.FuncLit); ok {
					c.setsOnce(c.flow(lit.Body, nil), lit.Body, true)
				}
				return false
			}
			return true
		})
		if setup {
			c.setsOnce(c.flow(decl.Body, nil), decl.Body, false)
		}
	}
	// What the functions return was looked at before the fields were known.
	clear(c.returns)
}

// setsOnce records the package variables and fields body sets to a fresh
// value, knowing body runs once per process; with locals, the local
// variables too, which a sync.Once's function sets for the closures that
// share them.
func (c *checker) setsOnce(f *flow, body *ast.BlockStmt, locals bool) {
	info := c.pass.TypesInfo
	set := func(obj types.Object, e ast.Expr) {
		v, ok := obj.(*types.Var)
		if !ok || !v.IsField() && v.Parent() != c.pass.Pkg.Scope() && !locals {
			return // a constructor's local variable
		}
		c.held[obj] = append(c.held[obj], types.ExprString(e))
		if v.IsField() && strings.EqualFold(v.Name(), "id") {
			return // an entity's own ID
		}
		if o := f.origin(e); o.fresh() {
			c.process[obj] = c.perProcessOrigin(o, fmt.Sprintf("%s, set once", v.Name()))
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				break
			}
			for i, l := range n.Lhs {
				switch l := l.(type) {
				case *ast.SelectorExpr:
					set(info.Uses[l.Sel], n.Rhs[i])
				case *ast.Ident:
					set(info.Uses[l], n.Rhs[i])
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				set(info.Uses[id], n.Value)
			}
		case *ast.CallExpr: // NewConsumer(rdb, prefix): what the constructor keeps
			fn := typeutil.StaticCallee(info, n)
			if fn == nil {
				break
			}
			for i, fields := range c.fieldParams(fn.Origin()) {
				if i >= len(n.Args) {
					continue
				}
				for _, field := range fields {
					c.held[field] = append(c.held[field], types.ExprString(n.Args[i]))                // not text's: held feeds text
					if o := f.origin(n.Args[i]); o != nil && !strings.EqualFold(field.Name(), "id") { // fresh, or itself once per process
						c.process[field] = c.perProcessOrigin(o, fmt.Sprintf("%s, set once by %s", field.Name(), fn.Name()))
					}
				}
			}
		}
		return true
	})
}

// fieldParams returns, for each parameter of a package function, the
// fields it stores the parameter in: a constructor's NewConsumer(rdb,
// prefix) keeps prefix in Consumer.prefix.
func (c *checker) fieldParams(fn *types.Func) map[int][]*types.Var {
	if m, done := c.fields[fn]; done {
		return m
	}
	c.fields[fn] = nil
	decl := c.decls[fn]
	if decl == nil {
		return nil
	}
	info := c.pass.TypesInfo
	seeds := map[types.Object]*origin{}
	params := fn.Signature().Params()
	for i := range params.Len() {
		seeds[params.At(i)] = &origin{param: i}
	}
	f := c.flow(decl.Body, seeds)
	out := map[int][]*types.Var{}
	keep := func(obj types.Object, e ast.Expr) {
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			if o := f.origin(e); o != nil && o.param >= 0 {
				out[o.param] = append(out[o.param], v)
			}
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok {
						keep(info.Uses[sel.Sel], n.Rhs[i])
					}
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				keep(info.Uses[id], n.Value)
			}
		}
		return true
	})
	c.fields[fn] = out
	return out
}

// perProcessOrigin marks o as made once per process, naming where it is
// kept.
func (c *checker) perProcessOrigin(o *origin, held string) *origin {
	return &origin{pos: o.pos, what: fmt.Sprintf("%s (%s)", o.what, held), param: -1, process: true}
}

// ownField reports a selector on a method's receiver (c.prefix): a field
// of the long-lived value the method belongs to, rather than of an entity
// passed in.
func (c *checker) ownField(sel *ast.SelectorExpr) bool {
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
	return ok && v.Kind() == types.RecvVar
}

// once returns the function literal of sync.OnceValue(func() T {...}) or
// sync.OnceValues.
func once(info *types.Info, e ast.Expr) *ast.FuncLit {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "sync" || !strings.HasPrefix(fn.Name(), "OnceValue") {
		return nil
	}
	lit, _ := call.Args[0].(*ast.FuncLit)
	return lit
}

// onceDo reports (*sync.Once).Do.
func onceDo(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Name() == "Do" && len(call.Args) == 1 && isNamed(recvType(fn), "sync", "Once")
}

// recvType returns fn's receiver type; nil for a function.
func recvType(fn *types.Func) types.Type {
	if r := fn.Signature().Recv(); r != nil {
		return r.Type()
	}
	return nil
}
