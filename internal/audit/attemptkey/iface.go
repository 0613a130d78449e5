package attemptkey

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// callees returns the functions call may run: its static callee, or, for
// a call through an interface (a relay's publisher port, r.pub.Publish),
// the methods that implement it.
func (c *checker) callees(call *ast.CallExpr) []*types.Func {
	if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil {
		return []*types.Func{fn.Origin()}
	}
	fn, ok := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Signature().Recv() == nil || !types.IsInterface(fn.Signature().Recv().Type()) {
		return nil
	}
	return c.implementations(fn)
}

// implementations returns the methods that implement the interface method
// fn on the types of this package and of the packages it imports, whose
// facts say what they do: the adapter a service wires behind its port.
// A method of a _test.go file is a fake, which production calls never
// reach.
func (c *checker) implementations(fn *types.Func) []*types.Func {
	if impls, done := c.impls[fn]; done {
		return impls
	}
	var impls []*types.Func
	for _, pkg := range append([]*types.Package{c.pass.Pkg}, c.pass.Pkg.Imports()...) {
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || types.IsInterface(named) || named.TypeParams().Len() > 0 {
				continue
			}
			if m := match.Implementation(named, fn); m != nil && !strings.HasSuffix(c.pass.Fset.Position(m.Pos()).Filename, "_test.go") {
				impls = append(impls, m)
			}
		}
	}
	c.impls[fn] = impls
	return impls
}

// callMakes returns the function call runs that makes and sends a key of
// its own, with what it does; for a call through an interface, the first
// implementation that does, named by its type (jsPublisher.Publish).
func (c *checker) callMakes(call *ast.CallExpr) (*types.Func, *made) {
	fn, ok := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if !ok {
		return nil, nil
	}
	for _, impl := range c.callees(call) {
		m := c.makesKey(impl)
		if m == nil {
			continue
		}
		if impl != fn.Origin() {
			m = &made{pos: m.pos, what: "through " + recvName(impl) + "." + impl.Name() + ": " + m.what, only: m.only}
		}
		return fn, m
	}
	return nil, nil
}
