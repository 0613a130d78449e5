package attemptkey

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// flow follows values through a function's local variables: a variable
// holds a fresh value (or, for a summary, a parameter) when every value
// assigned to it but a constant default does, or when crypto/rand filled
// it.
type flow struct {
	c    *checker
	vars map[types.Object]*origin
}

func (c *checker) flow(body *ast.BlockStmt, seeds map[types.Object]*origin) *flow {
	f := &flow{c: c, vars: map[types.Object]*origin{}}
	for obj, o := range seeds {
		f.vars[obj] = o
	}
	info := c.pass.TypesInfo
	assigned := map[types.Object][]ast.Expr{}
	assign := func(lhs ast.Expr, rhs ast.Expr) {
		if id, ok := lhs.(*ast.Ident); ok && id.Name != "_" {
			if obj := info.ObjectOf(id); obj != nil {
				assigned[obj] = append(assigned[obj], rhs)
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if buf, what, ok := match.Fills(info, n); ok {
				if s, ok := ast.Unparen(buf).(*ast.SliceExpr); ok {
					buf = s.X
				}
				if id, ok := ast.Unparen(buf).(*ast.Ident); ok && info.Uses[id] != nil {
					f.vars[info.Uses[id]] = &origin{pos: n.Pos(), what: what, param: -1}
				}
			}
		case *ast.AssignStmt:
			switch {
			case n.Tok == token.ADD_ASSIGN: // key += suffix keeps what key held
			case len(n.Lhs) == len(n.Rhs):
				for i := range n.Lhs {
					assign(n.Lhs[i], n.Rhs[i])
				}
			case len(n.Rhs) == 1: // key, err := newKey()
				assign(n.Lhs[0], n.Rhs[0])
				for _, l := range n.Lhs[1:] {
					assign(l, nil)
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					assign(name, n.Values[i])
				}
			}
		case *ast.RangeStmt:
			for _, x := range []ast.Expr{n.Key, n.Value} {
				if x != nil {
					assign(x, nil)
				}
			}
		}
		return true
	})
	for changed := true; changed; {
		changed = false
		for obj, rhs := range assigned {
			if f.vars[obj] != nil {
				continue
			}
			var first *origin
			all := true
			for _, e := range rhs {
				if e != nil && constDefault(info, e) {
					continue // n := 0, a default the fresh value overwrites: if m.DeliveryAttempt != nil { n = *m.DeliveryAttempt }
				}
				o := (*origin)(nil)
				if e != nil {
					o = f.origin(e)
				}
				if o == nil {
					all = false
					break
				}
				if first == nil {
					first = o
				}
			}
			if all && first != nil {
				f.vars[obj] = first
				changed = true
			}
		}
	}
	return f
}

// constDefault reports a constant or nil: a default that says nothing of
// where a variable's other values come from.
func constDefault(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && (tv.Value != nil || tv.IsNil())
}

// origin returns where the value of e comes from, when it is fresh, made
// once per process, or holds a summarised parameter. A composite literal
// is an entity, not a key, and a time turned into its slot is the same for
// every attempt in it: neither carries freshness.
func (f *flow) origin(e ast.Expr) *origin {
	info := f.c.pass.TypesInfo
	var found *origin
	ast.Inspect(e, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CompositeLit, *ast.FuncLit:
			return false
		case *ast.BinaryExpr:
			if f.slot(n) {
				return false
			}
		case *ast.CallExpr:
			if match.Slot(info, n) {
				return false
			}
			if what, ok := freshCall(info, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if what, ok := f.c.generated(n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if what, ok := attemptNumber(info, f.c.pass.Pkg, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if what, ok := countHeader(info, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if o := f.c.onces[info.Uses[id]]; o != nil {
					found = o
					return false
				}
			}
			if fn := typeutil.StaticCallee(info, n); fn != nil {
				if o := f.c.returnsFresh(fn.Origin()); o != nil {
					found = &origin{pos: n.Pos(), what: fmt.Sprintf("%s (%s at %s)", fn.Name(), o.what, f.c.where(o.pos)), param: -1, process: o.process, delivered: o.delivered}
					return false
				}
				if k := f.c.fact(fn.Origin()); k != nil && k.Returns != "" {
					found = &origin{pos: n.Pos(), what: fmt.Sprintf("%s.%s (%s)", fn.Pkg().Name(), fn.Name(), k.Returns), param: -1, process: k.Process}
					return false
				}
			}
		case *ast.IndexExpr:
			if what, ok := countEntry(info, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
		case *ast.SelectorExpr:
			if what, ok := attemptNumber(info, f.c.pass.Pkg, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if what, ok := match.PerDelivery(info, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1, delivered: true}
				return false
			}
			if o := f.c.process[info.Uses[n.Sel]]; o != nil && f.c.ownField(n) {
				found = o
				return false
			}
		case *ast.Ident:
			if v, ok := info.Uses[n].(*types.Var); ok && !v.IsField() && f.c.process[v] != nil {
				found = f.c.process[v] // a variable set once; a field is its selector's
				return false
			}
			if o := f.vars[info.Uses[n]]; o != nil {
				found = o
				return false
			}
		}
		return true
	})
	return found
}

// perSecond is how many of each Unix reading's units make a second.
var perSecond = map[string]int64{"Unix": 1, "UnixMilli": 1e3, "UnixMicro": 1e6, "UnixNano": 1e9}

// slot reports a clock reading divided by a constant of an hour or more
// (time.Now().Unix() / 3600): the number of its hour, a schedule slot, as
// match.Slot's Truncate is. Only a reading itself is divided, so that a
// chain of quotients costs no more than one walk.
func (f *flow) slot(b *ast.BinaryExpr) bool {
	if b.Op != token.QUO {
		return false
	}
	tv, ok := f.c.pass.TypesInfo.Types[b.Y]
	if !ok || tv.Value == nil {
		return false
	}
	d, ok := constant.Int64Val(constant.ToInt(tv.Value))
	call, isCall := ast.Unparen(b.X).(*ast.CallExpr) // a reading, not a quotient: origin is not asked twice of one subtree
	if !ok || !isCall {
		return false
	}
	unit := int64(1)
	if sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr); isSel && perSecond[sel.Sel.Name] != 0 {
		unit = perSecond[sel.Sel.Name]
	}
	if d/unit < 3600 {
		return false
	}
	o := f.origin(call)
	return o != nil && strings.HasPrefix(o.what, "time.Now")
}

// returnsFresh returns the fresh value a package function returns on
// every path that returns a value that is not constant.
func (c *checker) returnsFresh(fn *types.Func) *origin {
	if o, done := c.returns[fn]; done {
		return o
	}
	decl := c.decls[fn]
	if decl == nil || fn.Signature().Results().Len() == 0 || !keyType(fn.Signature().Results().At(0).Type()) {
		return nil
	}
	c.returns[fn] = nil // recursion adds nothing
	o := c.litReturns(decl.Body)
	c.returns[fn] = o
	return o
}

// keyType reports a type a key can have: not an error or a bool, which a
// function returns about a key it was given.
func keyType(t types.Type) bool {
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsBoolean != 0 {
		return false
	}
	return !types.Identical(t, types.Universe.Lookup("error").Type())
}

// litReturns returns the fresh value a function body returns on every
// path that returns a value that is not constant.
func (c *checker) litReturns(body *ast.BlockStmt) *origin {
	f := c.flow(body, nil)
	var result *origin
	fresh := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				fresh = false
				return false
			}
			e := n.Results[0]
			if tv, ok := c.pass.TypesInfo.Types[e]; ok && (tv.Value != nil || tv.IsNil()) {
				return false // "" on an error path
			}
			o := f.origin(e)
			if o == nil || o.param >= 0 {
				fresh = false
			} else if result == nil {
				result = o
			}
		}
		return true
	})
	if !fresh {
		return nil
	}
	return result
}

// paramSinks returns the parameters of a package function that reach a
// sink inside it, with the sink.
func (c *checker) paramSinks(fn *types.Func) map[int]reach {
	if s, done := c.params[fn]; done {
		return s
	}
	c.params[fn] = nil // recursion adds nothing
	decl := c.decls[fn]
	sinks := c.sinks(decl.Body)
	if len(sinks) == 0 {
		return nil
	}
	seeds := map[types.Object]*origin{}
	params := fn.Signature().Params()
	for i := range params.Len() {
		seeds[params.At(i)] = &origin{param: i}
	}
	f := c.flow(decl.Body, seeds)
	out := map[int]reach{}
	for _, s := range sinks {
		if o := f.origin(s.value); o != nil && o.param >= 0 {
			if _, ok := out[o.param]; !ok {
				out[o.param] = reach{What: fmt.Sprintf("%s at %s", s.what, c.where(s.node.Pos())), Only: s.only}
			}
		}
	}
	c.params[fn] = out
	return out
}

// makesKey returns what a package function does when it makes a fresh key
// and hands it to a sink itself, or calls a function that does, outside
// any attempt of its own (those are reported where they are): each call of
// it sends a new key, so a caller that calls it once per attempt has the
// bug without a fresh value in sight.
func (c *checker) makesKey(fn *types.Func) *made {
	if m, done := c.makes[fn]; done {
		return m
	}
	decl := c.decls[fn]
	if decl == nil {
		if k := c.fact(fn); k != nil && k.Makes != "" {
			return &made{what: k.Makes, only: k.MakesOnly} // made in another package: no position here
		}
		return nil
	}
	c.makes[fn] = nil // recursion adds nothing
	var m *made
	if sinks := c.sinks(decl.Body); len(sinks) > 0 {
		f := c.flow(decl.Body, nil)
		for _, s := range sinks {
			if o := f.origin(s.value); o.fresh() && c.scopeAt(decl, o.pos) == nil && !c.lazyOnce(decl, s, nil) {
				m = &made{pos: o.pos, what: fmt.Sprintf("%s at %s, reaching %s at %s", o.what, c.where(o.pos), s.what, c.where(s.node.Pos())), only: s.only}
				if s.msg != nil {
					m.only = []kind{retry, relay} // which message a caller delivers is not known here
				}
				break
			}
		}
	}
	if m == nil {
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || m != nil {
				return m == nil
			}
			if callee, inner := c.callMakes(call); inner != nil && c.scopeAt(decl, call.Pos()) == nil {
				m = &made{pos: call.Pos(), what: fmt.Sprintf("through %s: %s", callee.Name(), inner.what), only: inner.only}
			}
			return true
		})
	}
	c.makes[fn] = m
	return m
}
