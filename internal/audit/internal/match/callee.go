package match

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// method returns the method call calls, statically or through an
// interface, in its generic origin; nil for a function or a call that is
// not a method call.
func method(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Signature().Recv() == nil {
		return nil
	}
	return fn.Origin()
}

// inPackage reports whether fn is declared in the package path or, when
// path ends in "/...", anywhere under it.
func inPackage(fn *types.Func, path string) bool {
	if fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	if prefix, ok := strings.CutSuffix(path, "/..."); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	return p == path
}

// ConstString returns the value of e when it is a constant string: a
// literal, a named constant, or a constant expression of them.
func ConstString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// Implementation returns the method by which n, or a pointer to n,
// implements the interface method fn, in its generic origin; nil when
// neither implements fn's interface.
func Implementation(n *types.Named, fn *types.Func) *types.Func {
	iface, ok := fn.Signature().Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var t types.Type = n
	if !types.Implements(t, iface) {
		if t = types.NewPointer(n); !types.Implements(t, iface) {
			return nil
		}
	}
	m, _, _ := types.LookupFieldOrMethod(t, false, fn.Pkg(), fn.Name())
	impl, ok := m.(*types.Func)
	if !ok {
		return nil
	}
	return impl.Origin()
}

// ChainNext reports whether fn is a web framework's call of the rest of
// a middleware's chain, the handler it wraps: gin's Context.Next, fiber's
// Ctx.Next. Like http.Handler's ServeHTTP, it runs work out of sight.
func ChainNext(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Name() != "Next" || fn.Signature().Recv() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return p == "github.com/gin-gonic/gin" || strings.HasPrefix(p, "github.com/gofiber/fiber/")
}

// NameIdent returns the identifier an expression names: the selected
// name of a selector (context.Canceled's Canceled, x.f's f), or the
// identifier itself; nil for anything else.
func NameIdent(e ast.Expr) *ast.Ident {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.Ident:
		return e
	}
	return nil
}
