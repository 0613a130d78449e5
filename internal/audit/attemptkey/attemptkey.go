package attemptkey

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"net/http"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
	"github.com/idemkit/idemkit/internal/audit/internal/report"
)

// Analyzer reports an idempotency key made fresh for each attempt.
var Analyzer = &analysis.Analyzer{
	Name:     "attemptkey",
	Doc:      report.Doc("attemptkey"),
	Requires: []*analysis.Analyzer{inspect.Analyzer, directive.Analyzer, report.Analyzer},
	Run:      run,
}

// origin is where a value comes from, as one function sees it.
type origin struct {
	pos   token.Pos // where the fresh value is made in this function: the call that makes or returns it
	what  string    // uuid.NewString, or newKey (uuid.NewString at keys.go:8)
	param int       // the index of the parameter it is, when the function is summarised; -1 otherwise
}

// sink is where a key is handed to something that deduplicates by it.
type sink struct {
	node  ast.Node
	value ast.Expr
	what  string // SetIdempotencyKey, the Idempotency-Key header, ...
}

type checker struct {
	pass    *analysis.Pass
	r       *report.Reporter
	dirs    *directive.Directives
	decls   map[*types.Func]*ast.FuncDecl
	returns map[*types.Func]*origin        // what fresh value a function returns; nil for none
	params  map[*types.Func]map[int]string // which parameters reach a sink, and which sink
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{
		pass:    pass,
		r:       report.New(pass),
		dirs:    pass.ResultOf[directive.Analyzer].(*directive.Directives),
		decls:   map[*types.Func]*ast.FuncDecl{},
		returns: map[*types.Func]*origin{},
		params:  map[*types.Func]map[int]string{},
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var decls []*ast.FuncDecl
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil)}, func(n ast.Node) {
		decl := n.(*ast.FuncDecl)
		if fn, ok := pass.TypesInfo.Defs[decl.Name].(*types.Func); ok && decl.Body != nil {
			c.decls[fn] = decl
			decls = append(decls, decl)
		}
	})
	for _, decl := range decls {
		c.check(decl)
	}
	return nil, nil
}

// check reports the fresh keys of one function that reach a sink inside
// the retry, or the request handler, that made them.
func (c *checker) check(decl *ast.FuncDecl) {
	sinks := c.sinks(decl.Body)
	if len(sinks) == 0 {
		return // most functions: no need to follow their values
	}
	f := c.flow(decl.Body, nil)
	reported := map[ast.Expr]bool{}
	for _, s := range sinks {
		o := f.origin(s.value)
		if o == nil || o.param >= 0 || reported[s.value] {
			continue
		}
		if scope, what := c.retryScope(decl, o.pos); scope != nil && scope.Pos() <= s.node.Pos() && s.node.End() <= scope.End() {
			reported[s.value] = true
			c.r.Report(analysis.Diagnostic{
				Pos: s.value.Pos(), End: s.value.End(),
				Message: fmt.Sprintf("idempotency key made by %s at %s inside the %s at %s reaches %s: every attempt sends a new key, so no retry is recognised as one; make the key once, before the retries, from the logical action (attemptkey)",
					o.what, c.where(o.pos), what, c.where(scope.Pos()), s.what),
				Related: []analysis.RelatedInformation{{Pos: o.pos, Message: "the key is made here"}, {Pos: scope.Pos(), Message: "on every attempt of this " + what}},
			})
			continue
		}
		if name, ok := c.handler(decl, o.pos); ok {
			reported[s.value] = true
			c.r.Report(analysis.Diagnostic{
				Pos: s.value.Pos(), End: s.value.End(),
				Message: fmt.Sprintf("idempotency key made by %s at %s for each request to %s reaches %s: a retried request sends a new key; take the client's Idempotency-Key header or derive the key from the request's event or message ID (attemptkey)",
					o.what, c.where(o.pos), name, s.what),
				Related: []analysis.RelatedInformation{{Pos: o.pos, Message: "the key is made here, once per request"}},
			})
		}
	}
}

// flow follows values through a function's local variables: a variable
// holds a fresh value (or, for a summary, a parameter) when every value
// assigned to it does.
type flow struct {
	c    *checker
	vars map[types.Object]*origin
}

func (c *checker) flow(body *ast.BlockStmt, seeds map[types.Object]*origin) *flow {
	f := &flow{c: c, vars: map[types.Object]*origin{}}
	for obj, o := range seeds {
		f.vars[obj] = o
	}
	assigned := map[types.Object][]ast.Expr{}
	assign := func(lhs ast.Expr, rhs ast.Expr) {
		if id, ok := lhs.(*ast.Ident); ok && id.Name != "_" {
			if obj := c.pass.TypesInfo.ObjectOf(id); obj != nil {
				assigned[obj] = append(assigned[obj], rhs)
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
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

// origin returns where the value of e comes from, when it is fresh or
// holds a summarised parameter. A composite literal is an entity, not a
// key, and a time truncated to a slot is the same for every attempt in
// it: neither carries freshness.
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
		case *ast.CallExpr:
			if truncated(info, n) {
				return false
			}
			if what, ok := match.Fresh(info, n); ok {
				found = &origin{pos: n.Pos(), what: what, param: -1}
				return false
			}
			if fn := typeutil.StaticCallee(info, n); fn != nil {
				if o := f.c.returnsFresh(fn.Origin()); o != nil {
					found = &origin{pos: n.Pos(), what: fmt.Sprintf("%s (%s at %s)", fn.Name(), o.what, f.c.where(o.pos)), param: -1}
					return false
				}
			}
		case *ast.Ident:
			if o := f.vars[info.Uses[n]]; o != nil {
				found = o
				return false
			}
		}
		return true
	})
	return found
}

// truncated reports a time.Time's Truncate or Round: a slot, such as a
// cron job's scheduled hour.
func truncated(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "Truncate" || fn.Name() == "Round") && fn.Signature().Recv() != nil
}

// returnsFresh returns the fresh value a package function returns on
// every path that returns a value that is not constant.
func (c *checker) returnsFresh(fn *types.Func) *origin {
	if o, done := c.returns[fn]; done {
		return o
	}
	decl := c.decls[fn]
	if decl == nil || fn.Signature().Results().Len() == 0 {
		return nil
	}
	c.returns[fn] = nil // recursion adds nothing
	f := c.flow(decl.Body, nil)
	var result *origin
	fresh := true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
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
		result = nil
	}
	c.returns[fn] = result
	return result
}

// paramSinks returns the parameters of a package function that reach a
// sink inside it, with the sink.
func (c *checker) paramSinks(fn *types.Func) map[int]string {
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
	out := map[int]string{}
	for _, s := range sinks {
		if o := f.origin(s.value); o != nil && o.param >= 0 {
			if _, ok := out[o.param]; !ok {
				out[o.param] = fmt.Sprintf("%s at %s", s.what, c.where(s.node.Pos()))
			}
		}
	}
	c.params[fn] = out
	return out
}

// sinks returns the places in body where a key is handed over.
func (c *checker) sinks(body *ast.BlockStmt) []sink {
	info := c.pass.TypesInfo
	var out []sink
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			out = append(out, c.callSinks(n)...)
		case *ast.CompositeLit:
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && keyField(info.Uses[id]) {
						out = append(out, sink{node: kv, value: kv.Value, what: id.Name})
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				break
			}
			for i, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && keyField(info.Uses[sel.Sel]) {
					out = append(out, sink{node: n, value: n.Rhs[i], what: sel.Sel.Name})
				}
			}
		}
		return true
	})
	return out
}

// keyField reports a struct field named for an idempotency or dedup key:
// stripe's IdempotencyKey, SQS's MessageDeduplicationId.
func keyField(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.IsField() && match.KeyName(v.Name())
}

// callSinks returns the arguments of call that are handed over as keys.
func (c *checker) callSinks(call *ast.CallExpr) []sink {
	info := c.pass.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return nil
	}
	if s, ok := requestHeader(info, fn, call); ok {
		return []sink{s}
	}
	if r, ok := match.Redis(info, call); ok && r.Op != match.RedisDel && match.DedupName(types.ExprString(r.Key)) {
		return []sink{{node: call, value: r.Key, what: "the Redis key of " + r.Method}}
	}
	var out []sink
	sig := fn.Signature()
	claim := c.dirs.Of(fn)&directive.Claim != 0
	summary := map[int]string{}
	if c.decls[fn.Origin()] != nil {
		summary = c.paramSinks(fn.Origin())
	}
	for i, arg := range call.Args {
		if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
			break
		}
		p := sig.Params().At(i).Name()
		switch {
		case match.KeyName(fn.Name()):
			out = append(out, sink{node: call, value: arg, what: fn.Name()})
		case match.KeyName(p):
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name())})
		case claim && p == "key":
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the key of %s, an //idemkit:claim", fn.Name())})
		case summary[i] != "":
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("%s, whose %s parameter reaches %s", fn.Name(), p, summary[i])})
		}
	}
	return out
}

// requestHeader reports req.Header.Set or Add of an Idempotency-Key (or
// another key-named) header on an outgoing *http.Request; a response's
// header echoing a key is no sink.
func requestHeader(info *types.Info, fn *types.Func, call *ast.CallExpr) (sink, bool) {
	if fn.Pkg() == nil || fn.Pkg().Path() != "net/http" || (fn.Name() != "Set" && fn.Name() != "Add") || len(call.Args) != 2 {
		return sink{}, false
	}
	name, ok := match.ConstString(info, call.Args[0])
	if !ok || !match.KeyName(name) {
		return sink{}, false
	}
	recv, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return sink{}, false
	}
	header, ok := ast.Unparen(recv.X).(*ast.SelectorExpr)
	if !ok || header.Sel.Name != "Header" || !isRequest(info.TypeOf(header.X)) {
		return sink{}, false
	}
	return sink{node: call, value: call.Args[1], what: "the " + http.CanonicalHeaderKey(name) + " header"}, true
}

func isRequest(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Request"
}

// retryScope returns the innermost retry around pos in decl, and what to
// call it: a for loop that does not walk a collection, a range over a
// count, or a function literal handed to a retry or backoff helper.
func (c *checker) retryScope(decl *ast.FuncDecl, pos token.Pos) (ast.Node, string) {
	info := c.pass.TypesInfo
	var scope ast.Node
	var what string
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || n.End() <= pos {
			return n == nil
		}
		switch n := n.(type) {
		case *ast.ForStmt:
			if !walksCollection(n.Cond) {
				scope, what = n, "retry loop"
			}
		case *ast.RangeStmt:
			if t, ok := info.TypeOf(n.X).Underlying().(*types.Basic); ok && t.Info()&types.IsInteger != 0 {
				scope, what = n, "retry loop"
			}
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(info, n).(*types.Func)
			if !ok || !retrying(fn) {
				break
			}
			for _, arg := range n.Args {
				if lit, ok := arg.(*ast.FuncLit); ok && lit.Pos() <= pos && pos < lit.End() {
					scope, what = lit, "function retried by "+fn.Name()
				}
			}
		}
		return true
	})
	return scope, what
}

// walksCollection reports a loop condition i < len(x): a loop over items,
// each of which may rightly get its own key.
func walksCollection(cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(b.Y).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "len"
}

// retrying reports a function named, or in a package named, for retries:
// retry.Do, backoff.Retry, RetryNotify, WithAttempts.
func retrying(fn *types.Func) bool {
	names := match.Words(fn.Name())
	if fn.Pkg() != nil {
		names = append(names, match.Words(fn.Pkg().Name())...)
	}
	return slices.ContainsFunc(names, func(w string) bool {
		return w == "retry" || w == "retries" || w == "backoff" || w == "attempt" || w == "attempts"
	})
}

// handler reports whether the innermost function around pos in decl is an
// HTTP handler (it takes an http.ResponseWriter and an *http.Request), and
// names it.
func (c *checker) handler(decl *ast.FuncDecl, pos token.Pos) (string, bool) {
	info := c.pass.TypesInfo
	name := decl.Name.Name
	sig, _ := info.Defs[decl.Name].Type().(*types.Signature)
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || n.End() <= pos {
			return n == nil
		}
		if lit, ok := n.(*ast.FuncLit); ok {
			sig, _ = info.TypeOf(lit).(*types.Signature)
			name = "the handler at " + c.where(lit.Pos())
		}
		return true
	})
	if sig == nil {
		return "", false
	}
	var writer, request bool
	for p := range sig.Params().Variables() {
		t := p.Type()
		writer = writer || types.TypeString(t, nil) == "net/http.ResponseWriter"
		request = request || (isPointer(t) && isRequest(t))
	}
	return name, writer && request
}

func isPointer(t types.Type) bool {
	_, ok := t.(*types.Pointer)
	return ok
}

// where names a position as file:line, the file by its base name.
func (c *checker) where(pos token.Pos) string {
	p := c.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}
