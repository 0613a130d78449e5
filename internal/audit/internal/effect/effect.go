// Package effect computes, for every function, what it does to stored
// records: which table, model or Redis key it reads, writes, claims
// atomically or deletes, from which of its parameters the key comes, and
// which side effects outside the stores it causes (an HTTP request, a
// payment, a message sent). Summaries travel across packages as analysis
// facts, so that alreadyProcessed(id) and markProcessed(id) declared in
// another package are a check and an act without annotations, the way
// printf carries "this function is a wrapper" from package to package.
//
// A call through an interface has no body to summarise. In process, where
// the whole module is loaded, the driver hands the analyzer the summaries
// of every concrete method of the module (see Module), and an interface
// call takes those of the methods that implement it. Under go vet, which
// sees one package and its dependencies, the method's shape stands in: a
// lookup named Get, Exists or IsProcessed is a read of a record named for
// its receiver, keyed by its arguments; Set, Save or MarkProcessed a
// write.
package effect

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// maxEffects bounds a summary: a function that touches more records than
// this is a dispatcher whose effects say little about any one call.
const maxEffects = 32

// Effect is one thing a function does, directly or through its callees.
type Effect struct {
	// Op is what it does to a record; zero for an External effect.
	Op        match.Op
	What      string // SELECT, INSERT, GET, SET, Create, POST, ...
	Record    string // match.Access.Record; "" for an External effect
	Target    string // the table, model or key as written
	Appends   bool
	ForUpdate bool
	// Increments marks an UPDATE that adds to a column: harm when done
	// twice, as an append is.
	Increments bool
	// Params are the indices of the function's parameters the record's
	// key is made from; empty when the key is constant or comes from
	// elsewhere (the receiver, a package variable).
	Params []int
	// ViaReceiver marks a read whose finding a method leaves in its
	// receiver's fields rather than its results.
	ViaReceiver bool
	// External marks a side effect outside the stores the checks follow:
	// an outgoing HTTP request that changes something, a payment, a
	// message published or sent.
	External bool
	// Forward marks SQL the function sends for its caller: the 1-based
	// index of the parameter that holds the SQL text, or the squirrel or
	// goqu builder whose ToSql it calls (exec(ctx, query, args...)). What
	// is the library call that sends it. Which record it touches is read
	// at each call, from the argument given there.
	Forward int
	// Script marks a Lua script the function runs for its caller: the
	// script, its keys and its arguments are the caller's (see
	// match.ScriptForward), read at each call.
	Script *match.ScriptForward
	// Where is the place of the access itself, file:line, for messages.
	Where string
	// Counted marks a write that runs only when a Redis counter the
	// function increments says so (if n := INCR(failures); n >= 5 { SET
	// lock }): the atomic counter decides it, not what a caller read.
	Counted bool
}

// Summary is what a function does. It is exported as a fact for every
// function and method with at least one effect.
type Summary struct {
	Effects []Effect
	// Sets are the fields of its parameters' records the function
	// assigns, as "i.Field" for parameter i (a create given ev that sets
	// ev.IsDuplicate itself, after a lookup of its own, has "1.IsDuplicate"
	// as its second parameter): a flag a caller set and handed to it may
	// come back changed.
	Sets []string
}

// AFact marks Summary as an analysis fact.
func (*Summary) AFact() {}

func (s *Summary) String() string {
	var parts []string
	for _, e := range s.Effects {
		if e.Forward > 0 {
			parts = append(parts, fmt.Sprintf("forward %s[%d]", e.What, e.Forward-1))
			continue
		}
		if e.Script != nil {
			parts = append(parts, fmt.Sprintf("script[%d]", e.Script.Script))
			continue
		}
		if e.External {
			parts = append(parts, "external "+e.What)
			if len(e.Params) > 0 {
				parts[len(parts)-1] += fmt.Sprintf(" keyed%v", e.Params)
			}
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s%v", e.Op, e.Record, e.Params))
		if e.Counted {
			parts[len(parts)-1] += " counted"
		}
	}
	return "effects(" + strings.Join(parts, ", ") + ")"
}

// Script is the source of the Lua script an exported package variable
// holds (a go-redis Script made by NewScript, or the script's text), as
// match.KeptVar reads it. It is exported as a fact on the variable, so a
// repository that runs scripts.Claim from another package reads the
// script as it would one of its own.
type Script struct {
	Src  string
	Keys int // redigo's count of keys; -1 where the script does not say
}

// AFact marks Script as an analysis fact.
func (*Script) AFact() {}

func (s *Script) String() string { return fmt.Sprintf("script(%d bytes)", len(s.Src)) }

// Use is an effect as one call in the function being checked performs it.
type Use struct {
	Effect
	// Keys are the caller's expressions the record is picked by: the
	// library call's own key arguments, or the arguments passed for the
	// callee's key parameters.
	Keys []ast.Expr
	// Dest are the expressions a library read stores what it found in.
	Dest []ast.Expr
	// Call is the call in the function being checked.
	Call *ast.CallExpr
	// Callee is the function called when the effect is a callee's; nil
	// for a library call.
	Callee *types.Func
	// Access is the library call's classification; its Call is nil for
	// a callee's effect.
	Access match.Access
	// Shape marks an effect inferred from an interface method's name and
	// arguments, not from any body.
	Shape bool
}

// Analyzer summarises every function of the package, exports the
// summaries as facts, and answers for each call which effects it has.
var Analyzer = &analysis.Analyzer{
	Name:       "idemkiteffect",
	Doc:        "summarises what each function does to stored records (reads, writes, claims, deletes) and which side effects it causes",
	Run:        run,
	FactTypes:  []analysis.Fact{new(Summary), new(Script)},
	ResultType: reflect.TypeFor[*Result](),
}

// Result answers, for the calls of the analysed package, which effects
// they have.
type Result struct {
	// mu guards the memos below once run has returned: the analyzers that
	// require effect run at once on the same package, and each asks Of,
	// SummaryOf and Script, which fill the memos as they go.
	mu      sync.Mutex
	pass    *analysis.Pass
	decls   map[*types.Func]*ast.FuncDecl
	summary map[*types.Func]*Summary // nil while being computed
	// imported are the summaries other packages exported, as read once.
	imported map[*types.Func]*Summary
	uses     map[*ast.CallExpr][]Use
	module   *Module
	skip     bool
}

func run(pass *analysis.Pass) (any, error) {
	r := &Result{
		pass:     pass,
		decls:    map[*types.Func]*ast.FuncDecl{},
		summary:  map[*types.Func]*Summary{},
		imported: map[*types.Func]*Summary{},
		uses:     map[*ast.CallExpr][]Use{},
		module:   lookupModule(pass.Pkg),
		skip:     library(pass),
	}
	if r.skip {
		return r, nil
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					r.decls[fn] = fd
				}
			}
		}
	}
	r.exportScripts()
	for fn := range r.decls {
		if s := r.summarize(fn); len(s.Effects) > 0 {
			pass.ExportObjectFact(fn, s)
		}
	}
	return r, nil
}

// exportScripts exports a Script fact for each exported package variable
// that holds a Lua script.
func (r *Result) exportScripts() {
	scope := r.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		v, ok := scope.Lookup(name).(*types.Var)
		if !ok || !v.Exported() {
			continue
		}
		src, keys, ok := match.KeptVar(r.pass.Fset, r.pass.TypesInfo, v, r.script)
		if ok {
			r.pass.ExportObjectFact(v, &Script{Src: src, Keys: keys})
		}
	}
}

// script reads the Script fact of another package's variable.
func (r *Result) script(v *types.Var) (string, int, bool) {
	var s Script
	if v.Pkg() == nil || v.Pkg() == r.pass.Pkg || !r.pass.ImportObjectFact(v, &s) {
		return "", 0, false
	}
	return s.Src, s.Keys, true
}

// library reports whether the package's own code is not worth
// summarising: the standard library and the libraries match knows, whose
// calls are recognised where they are made.
func library(pass *analysis.Pass) bool {
	if match.LibraryPackage(pass.Pkg) {
		return true
	}
	if len(pass.Files) == 0 {
		return true
	}
	name := pass.Fset.File(pass.Files[0].Pos()).Name()
	return goroot != "" && strings.HasPrefix(filepath.ToSlash(name), goroot+"/")
}

// goroot is where the standard library's sources are, as the go command
// reports them to the analysis.
var goroot = func() string {
	if r := findGOROOT(); r != "" {
		return filepath.ToSlash(filepath.Join(r, "src"))
	}
	return ""
}()

// findGOROOT returns the Go root the standard library is read from. A
// binary built with -trimpath (as a golangci-lint may be) knows none of
// its own, and then every standard package would pass for user code: ask
// the go command, and tell go/build too, whose lookups Stdlib makes.
func findGOROOT() string {
	if build.Default.GOROOT != "" {
		return build.Default.GOROOT
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	build.Default.GOROOT = strings.TrimSpace(string(out))
	return build.Default.GOROOT
}

// Of returns the effects of a call in the analysed package. It is safe
// for concurrent use, as are SummaryOf and Script.
func (r *Result) Of(call *ast.CallExpr) []Use {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.of(call)
}

func (r *Result) of(call *ast.CallExpr) []Use {
	if u, ok := r.uses[call]; ok {
		return u
	}
	u := r.compute(call)
	r.uses[call] = u
	return u
}

// SummaryOf returns what fn does, from its body in this package or from
// the fact its own package exported.
func (r *Result) SummaryOf(fn *types.Func) *Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.summaryOf(fn)
}

func (r *Result) summaryOf(fn *types.Func) *Summary {
	fn = fn.Origin()
	if _, ok := r.decls[fn]; ok {
		return r.summarize(fn)
	}
	if s, ok := r.imported[fn]; ok {
		return s
	}
	var s Summary
	var out *Summary
	if fn.Pkg() != nil && r.pass.ImportObjectFact(fn, &s) {
		out = &s
	}
	r.imported[fn] = out
	return out
}

// classify reads the records call accesses as match does, and a script
// kept in another package's variable as its facts say.
func (r *Result) classify(call *ast.CallExpr) []match.Access {
	if accesses := match.ClassifyAll(r.pass.Fset, r.pass.TypesInfo, call); len(accesses) > 0 {
		return accesses
	}
	if a, ok := match.ScriptAccess(r.pass.Fset, r.pass.TypesInfo, call, r.script); ok {
		return []match.Access{a}
	}
	return nil
}

// calleeSummary returns the function call calls and its summary, when it
// is a function or a concrete method whose summary is known; an
// interface's method has none.
func (r *Result) calleeSummary(call *ast.CallExpr) (*types.Func, *Summary) {
	fn, ok := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Signature().Recv() != nil && types.IsInterface(fn.Signature().Recv().Type()) {
		return nil, nil
	}
	return fn, r.summaryOf(fn)
}

// Script reads a call that runs a Lua script out of match.Redis's sight
// as the command the script amounts to on its key, as Of reads it: a
// script kept in the package (a field, an embedded file) or in another
// package's variable (scripts.Claim.Run), as its facts say, or one given
// to a helper or a wrapper type that runs it for its caller
// (runScript(ctx, s, keys, args...), newScript(rdb, src).Run), read with
// the script the call gives it. The checks that follow a claim read its
// SET NX, DEL or SET from it as from a script in sight.
func (r *Result) Script(call *ast.CallExpr) (match.RedisCall, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	info := r.pass.TypesInfo
	if c, ok := match.ScriptRedis(r.pass.Fset, info, call, r.script); ok {
		return c, true
	}
	if fn, s := r.calleeSummary(call); s != nil {
		for _, e := range s.Effects {
			if e.Script == nil {
				continue
			}
			if c, ok := match.ForwardedRedis(r.pass.Fset, info, call, fn, *e.Script, r.script); ok {
				return c, true
			}
		}
	}
	return match.RedisCall{}, false
}

func (r *Result) compute(call *ast.CallExpr) []Use {
	info := r.pass.TypesInfo
	if accesses := r.classify(call); len(accesses) > 0 {
		uses := make([]Use, len(accesses))
		for i, a := range accesses {
			uses[i] = Use{
				Effect: Effect{Op: a.Op, What: a.What, Record: a.Record, Target: a.Target, Appends: a.Appends,
					ForUpdate: a.ForUpdate, Increments: a.Increments, Where: r.where(call.Pos())},
				Keys: a.Keys, Dest: a.Dest, Call: call, Access: a,
			}
		}
		return uses
	}
	if what, ok := match.External(info, call); ok {
		return []Use{{Effect: Effect{External: true, What: what, Where: r.where(call.Pos())}, Call: call}}
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		// create := s.repo.Create; create(ctx, v): the method's effects.
		if sel := match.MethodValue(info, call); sel != nil {
			direct := *call
			direct.Fun = sel
			uses := r.compute(&direct)
			for i := range uses {
				uses[i].Call = call
				if uses[i].Access.Call == &direct {
					uses[i].Access.Call = call
				}
			}
			return uses
		}
		return nil
	}
	sig := fn.Signature()
	var summaries []*Summary
	if recv := sig.Recv(); recv != nil && types.IsInterface(recv.Type()) {
		summaries = r.module.implementations(fn)
		shape, shaped := shapeOf(info, r.pass.Pkg, call, fn)
		external := false
		for _, s := range summaries {
			for _, e := range s.Effects {
				external = external || e.External
			}
		}
		switch {
		case !shaped:
		case !hasEffects(summaries):
			// No implementation in sight, or none that touches a store the
			// checks know (an in-memory fake, a client they do not
			// recognise): the method's shape says more than nothing.
			if shape.Where == "" {
				shape.Where = r.where(call.Pos())
			}
			return []Use{shape}
		case shape.External && !external:
			summaries = append(summaries, &Summary{Effects: []Effect{shape.Effect}})
		}
	} else if s := r.summaryOf(fn); s != nil {
		summaries = []*Summary{s}
	}
	var uses []Use
	for _, s := range summaries {
		for _, e := range s.Effects {
			if e.Forward > 0 {
				if u, ok := r.forwarded(call, fn, e); ok {
					uses = append(uses, u)
				}
				continue
			}
			if e.Script != nil {
				if a, ok := match.ForwardedScript(r.pass.Fset, info, call, fn, *e.Script, r.script); ok {
					uses = append(uses, Use{
						Effect: Effect{Op: a.Op, What: a.What, Record: a.Record, Target: a.Target, Where: e.Where},
						Keys:   a.Keys, Dest: a.Dest, Call: call, Callee: fn, Access: a,
					})
				}
				continue
			}
			u := Use{Effect: e, Call: call, Callee: fn}
			if strings.Contains(e.Record, match.TypeParamPrefix) {
				u.Effect.Record, u.Effect.Target = instantiate(info, call, fn, e.Record, e.Target)
			}
			for _, i := range e.Params {
				if i < len(call.Args) {
					u.Keys = append(u.Keys, call.Args[i])
				}
			}
			uses = append(uses, u)
		}
	}
	return uses
}

// instantiate names the record a generic function's effect reaches
// through its type parameter after the type argument of this call:
// Repository[Hold].Create writes holds, not "typeparam_T".
func instantiate(info *types.Info, call *ast.CallExpr, fn *types.Func, record, target string) (string, string) {
	var params *types.TypeParamList
	var args *types.TypeList
	if recv := fn.Signature().Recv(); recv != nil {
		// the callee is the generic method: the receiver's expression has
		// the instance
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return record, target
		}
		t := info.TypeOf(sel.X)
		if s, ok := info.Selections[sel]; ok {
			// A method promoted from an embedded instance (type SwapRepo
			// struct{ Repository[Swap] }) has that instance as receiver.
			if m, ok := s.Obj().(*types.Func); ok && m.Signature().Recv() != nil {
				t = m.Signature().Recv().Type()
			}
		}
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			params, args = n.Origin().TypeParams(), n.TypeArgs()
		}
	} else {
		id, _ := ast.Unparen(call.Fun).(*ast.Ident)
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			id = sel.Sel
		}
		if ix, ok := ast.Unparen(call.Fun).(*ast.IndexExpr); ok {
			id, _ = ast.Unparen(ix.X).(*ast.Ident)
		}
		if id != nil {
			if inst, ok := info.Instances[id]; ok {
				params, args = fn.Origin().Signature().TypeParams(), inst.TypeArgs
			}
		}
	}
	if params == nil || args == nil {
		return record, target
	}
	for i := 0; i < params.Len() && i < args.Len(); i++ {
		name := match.TypeParamPrefix + params.At(i).Obj().Name()
		arg := args.At(i)
		if p, ok := arg.(*types.Pointer); ok {
			arg = p.Elem()
		}
		n, ok := types.Unalias(arg).(*types.Named)
		if !ok {
			continue
		}
		if target == name {
			target = n.Obj().Name()
		}
		if rn := match.RecordName(name); strings.HasSuffix(record, " "+rn) {
			record = strings.TrimSuffix(record, rn) + match.RecordName(n.Obj().Name())
		}
	}
	return record, target
}

// summarize computes fn's summary from its body, closures included.
func (r *Result) summarize(fn *types.Func) *Summary {
	if s, done := r.summary[fn]; done {
		if s == nil {
			return &Summary{} // recursion adds nothing
		}
		return s
	}
	r.summary[fn] = nil
	decl := r.decls[fn]
	params := map[*types.Var]int{}
	sig := fn.Signature()
	for i := range sig.Params().Len() {
		params[sig.Params().At(i)] = i
	}
	defs := Definitions(r.pass.TypesInfo, decl.Body)
	// A function that returns nothing but an error hands no finding to
	// its callers, whatever its return statements hold.
	answers := false
	for i := range sig.Results().Len() {
		answers = answers || !types.Identical(sig.Results().At(i).Type(), types.Universe.Lookup("error").Type())
	}
	keeps := sig.Recv() != nil && setsReceiver(r.pass.TypesInfo, decl.Body, sig.Recv())
	returned := returnedVars(r.pass.TypesInfo, decl.Body, defs, sig.Results())
	s := &Summary{}
	var stmts []ast.Node // the statements enclosing the node being looked at
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil {
			if len(stmts) > 0 {
				stmts = stmts[:len(stmts)-1]
			}
			return false
		}
		stmts = append(stmts, n)
		call, ok := n.(*ast.CallExpr)
		if !ok || len(s.Effects) >= maxEffects {
			return true
		}
		uses := r.of(call)
		if len(uses) == 0 {
			e, ok := r.forwards(call, params, defs)
			if !ok {
				e, ok = r.forwardsScript(call, params, sig.Recv())
			}
			if ok && !slices.ContainsFunc(s.Effects, func(x Effect) bool { return sameEffect(x, e) }) {
				s.Effects = append(s.Effects, e)
			}
		}
		for _, u := range uses {
			e := u.Effect
			if e.Op == match.OpRead && (!answers || !r.readReturned(call, u, stmts, returned)) {
				// p.load(ctx) then p.found: a method that answers only an
				// error may leave what it found in its receiver's fields.
				vars, _ := r.resultVars(u, stmts)
				if answers || !keeps || !decides(r.pass.TypesInfo, decl.Body, vars, sig.Recv()) {
					continue // a read whose finding the function keeps to itself
				}
				e.ViaReceiver = true
			}
			if (e.Op == match.OpWrite || e.Op == match.OpUpdate) && counterGated(r.pass.TypesInfo, defs, call, stmts) {
				e.Counted = true
			}
			e.Params = nil
			for _, k := range u.Keys {
				for _, v := range Roots(r.pass.TypesInfo, defs, k) {
					if i, ok := params[v]; ok && !slices.Contains(e.Params, i) {
						e.Params = append(e.Params, i)
					}
				}
			}
			slices.Sort(e.Params)
			if !slices.ContainsFunc(s.Effects, func(x Effect) bool { return sameEffect(x, e) }) {
				s.Effects = append(s.Effects, e)
			}
		}
		return true
	})
	// Side effects sent under an idempotency key made from parameters
	// are keyed by them: a caller that sends them twice under one key
	// causes them once.
	if slices.ContainsFunc(s.Effects, func(e Effect) bool { return e.External && len(e.Params) == 0 }) {
		if keyed := keyedParams(r.pass.TypesInfo, defs, params, decl.Body); len(keyed) > 0 {
			for i := range s.Effects {
				if s.Effects[i].External && len(s.Effects[i].Params) == 0 {
					s.Effects[i].Params = keyed
				}
			}
		}
	}
	s.Sets = paramFieldsSet(r.pass.TypesInfo, decl.Body, params)
	// A function that reads a record and writes it too settles the
	// question itself (a get-or-create, a check-then-act reported here):
	// its callers see the write, not a check.
	s.Effects = slices.DeleteFunc(s.Effects, func(e Effect) bool {
		return e.Op == match.OpRead && slices.ContainsFunc(s.Effects, func(w Effect) bool {
			return w.Record == e.Record && (w.Op == match.OpWrite || w.Op == match.OpClaim || w.Op == match.OpUpdate || w.Op == match.OpGuarded)
		})
	})
	r.summary[fn] = s
	return s
}

// paramFieldsSet returns the fields of parameters' records that body
// assigns (p.F = x, p.F++), as "i.F".
func paramFieldsSet(info *types.Info, body *ast.BlockStmt, params map[*types.Var]int) []string {
	var sets []string
	add := func(e ast.Expr) {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return
		}
		if s, ok := info.Selections[sel]; !ok || s.Kind() != types.FieldVal {
			return
		}
		x := ast.Unparen(sel.X)
		if star, ok := x.(*ast.StarExpr); ok {
			x = ast.Unparen(star.X)
		}
		id, ok := x.(*ast.Ident)
		if !ok {
			return
		}
		v, ok := info.Uses[id].(*types.Var)
		if i, isParam := params[v]; ok && isParam {
			if set := fmt.Sprintf("%d.%s", i, sel.Sel.Name); !slices.Contains(sets, set) {
				sets = append(sets, set)
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				add(l)
			}
		case *ast.IncDecStmt:
			add(n.X)
		}
		return true
	})
	slices.Sort(sets)
	return sets
}

// SetsField reports whether the function call calls assigns field of the
// record it is given as argument arg, or may: for a call through an
// interface, whether one of the module's methods that implement it does.
func (r *Result) SetsField(call *ast.CallExpr, arg int, field string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn, ok := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
	if !ok {
		return false
	}
	var summaries []*Summary
	if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
		summaries = r.module.implementations(fn)
	} else if s := r.summaryOf(fn); s != nil {
		summaries = []*Summary{s}
	}
	set := fmt.Sprintf("%d.%s", arg, field)
	return slices.ContainsFunc(summaries, func(s *Summary) bool { return slices.Contains(s.Sets, set) })
}

// counterGated reports whether call runs only under an if whose
// condition reads the value a Redis INCR returned in the same function:
// a lockout or a limit set when a counter reaches its threshold. stmts
// are the nodes enclosing call, outermost first.
func counterGated(info *types.Info, defs Defs, call *ast.CallExpr, stmts []ast.Node) bool {
	for _, n := range stmts {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || call.Pos() < ifs.Body.Pos() || ifs.Body.End() < call.End() {
			continue
		}
		gated := false
		ast.Inspect(ifs.Cond, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok || gated {
				return !gated
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok {
				return true
			}
			for _, d := range defs.Values[v] {
				ast.Inspect(d, func(y ast.Node) bool {
					if c, ok := y.(*ast.CallExpr); ok {
						if rc, ok := match.Redis(info, c); ok && rc.Op == match.RedisIncr {
							gated = true
						}
					}
					return !gated
				})
			}
			return !gated
		})
		if gated {
			return true
		}
	}
	return false
}

// readReturned reports whether what the read u found reaches one of the
// function's results other than an error: a found flag, a count, the
// record. stmts are the nodes enclosing call, outermost first.
func (r *Result) readReturned(call *ast.CallExpr, u Use, stmts []ast.Node, returned map[*types.Var]bool) bool {
	vars, inReturn := r.resultVars(u, stmts)
	return inReturn || slices.ContainsFunc(vars, func(v *types.Var) bool { return returned[v] })
}

// resultVars returns the variables the statement holding a read assigns
// or fills (Scan(&v), its destinations), and whether the read sits in a
// return statement. stmts are the nodes enclosing the read, outermost
// first.
func (r *Result) resultVars(u Use, stmts []ast.Node) (vars []*types.Var, inReturn bool) {
	info := r.pass.TypesInfo
	var stmt ast.Node
	for i := len(stmts) - 1; i >= 0 && stmt == nil; i-- {
		switch n := stmts[i].(type) {
		case *ast.ReturnStmt:
			return nil, true
		case *ast.FuncLit:
			return nil, false
		case ast.Stmt:
			stmt = n
		}
	}
	mark := func(e ast.Expr) {
		if v := RootVar(info, e); v != nil {
			vars = append(vars, v)
		}
	}
	if as, ok := stmt.(*ast.AssignStmt); ok {
		for _, l := range as.Lhs {
			mark(l)
		}
	}
	if stmt != nil {
		ast.Inspect(stmt, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for _, l := range x.Names {
					mark(l)
				}
			case *ast.UnaryExpr:
				if x.Op == token.AND {
					mark(x.X)
				}
			}
			return true
		})
	}
	for _, d := range u.Dest {
		mark(d)
	}
	return vars, false
}

// decides reports whether a condition of body (an if, a switch tag or
// case) or a value stored in a field of recv mentions one of vars: what
// the read found steers the function or is kept in its receiver.
func decides(info *types.Info, body *ast.BlockStmt, vars []*types.Var, recv *types.Var) bool {
	found := false
	mentions := func(e ast.Node) {
		if e == nil {
			return
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && slices.Contains(vars, v) {
					found = true
				}
			}
			return !found
		})
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			mentions(n.Cond)
		case *ast.SwitchStmt:
			mentions(n.Tag)
		case *ast.CaseClause:
			for _, e := range n.List {
				mentions(e)
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if _, isSel := ast.Unparen(l).(*ast.SelectorExpr); isSel && RootVar(info, l) == recv && i < len(n.Rhs) {
					mentions(n.Rhs[i])
				}
			}
		}
		return !found
	})
	return found
}

// setsReceiver reports whether body assigns a field of recv.
func setsReceiver(info *types.Info, body *ast.BlockStmt, recv *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if _, isSel := ast.Unparen(l).(*ast.SelectorExpr); isSel && RootVar(info, l) == recv {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// returnedVars returns the variables whose values flow into the
// function's results, errors aside: those its return statements mention,
// and, backwards through assignments, those they were computed from.
// operands splits a condition joined by || and && into its tests.
func operands(cond ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(cond).(*ast.BinaryExpr); ok && (b.Op == token.LOR || b.Op == token.LAND) {
		return append(operands(b.X), operands(b.Y)...)
	}
	return []ast.Expr{cond}
}

func returnedVars(info *types.Info, body *ast.BlockStmt, defs Defs, results *types.Tuple) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	errType := types.Universe.Lookup("error").Type()
	var add func(e ast.Expr, depth int)
	add = func(e ast.Expr, depth int) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.Ident:
				v, ok := info.Uses[n].(*types.Var)
				if !ok || v.IsField() || out[v] {
					return true
				}
				if types.Identical(v.Type(), errType) {
					// An error returned as itself is no finding; one
					// turned into a result (return err == nil) is.
					if depth == 0 && !errorExpr(info, e) {
						out[v] = true
					}
					return true
				}
				out[v] = true
				if depth < maxDepth {
					for _, d := range defs.Values[v] {
						add(d, depth+1)
					}
				}
			}
			return true
		})
	}
	answersErrors := false
	for i := range results.Len() {
		answersErrors = answersErrors || types.Identical(results.At(i).Type(), errType)
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, e := range n.Results {
				add(e, 0)
			}
		case *ast.IfStmt:
			if !answersIn(info, n.Body) {
				break
			}
			// Each test of the condition counts alone: in
			// if err != nil || n == 0 { return false }, err's.
			for _, c := range operands(n.Cond) {
				// if errors.Is(err, sql.ErrNoRows) { return false, nil }: the
				// answer comes from whether the read found a row.
				if v := notFoundTest(info, c); v != nil {
					out[v] = true
				}
				// if err != nil { return nil, false } in a function with no
				// error to return: every failure, a missing record among
				// them, is answered as "not found".
				if v := nilTest(info, c); v != nil && !answersErrors {
					out[v] = true
				}
			}
		}
		return true
	})
	// A result filled through a pointer (row.Scan(&exists)) comes from
	// the value the call is made on.
	for range maxDepth {
		before := len(out)
		ast.Inspect(body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			for _, a := range call.Args {
				if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
					if v := RootVar(info, u.X); v != nil && out[v] {
						add(sel.X, 1)
					}
				}
			}
			return true
		})
		if len(out) == before {
			break
		}
	}
	for i := range results.Len() { // named results, which a bare return returns
		if v := results.At(i); v.Name() != "" && !out[v] && !types.Identical(v.Type(), errType) {
			out[v] = true
			for _, d := range defs.Values[v] {
				add(d, 1)
			}
		}
	}
	return out
}

// MapAccess reads m[k] as an access to the record the map keeps: a read,
// or with op OpWrite the store of an assignment's left-hand side. A map
// of a local variable is no shared record.
func MapAccess(info *types.Info, e ast.Expr, op match.Op) (Use, bool) {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return Use{}, false
	}
	if _, ok := info.TypeOf(ix.X).Underlying().(*types.Map); !ok {
		return Use{}, false
	}
	if !sharedMap(info, ix.X) {
		return Use{}, false
	}
	what := "map read"
	if op == match.OpWrite {
		what = "map store"
	}
	target := types.ExprString(ix.X)
	return Use{Effect: Effect{Op: op, What: what, Record: "map " + target, Target: target}, Keys: []ast.Expr{ix.Index}}, true
}

// sharedMap reports whether the map m may be used by several goroutines at
// once: a package variable, or a field of a struct that also holds a
// mutex, which says its owner expects concurrent callers. A map of the
// function's own, or of a value built per request, is no shared record.
func sharedMap(info *types.Info, m ast.Expr) bool {
	root := RootVar(info, m)
	if root == nil {
		return false
	}
	if root.Pkg() != nil && root.Parent() == root.Pkg().Scope() {
		return true
	}
	sel, ok := ast.Unparen(m).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	t := info.TypeOf(sel.X)
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if n, ok := types.Unalias(st.Field(i).Type()).(*types.Named); ok && n.Obj().Pkg() != nil &&
			n.Obj().Pkg().Path() == "sync" && (n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex") {
			return true
		}
	}
	return false
}

// RootVar returns the variable e names, or the one whose field, element
// or address e is: i in i.ID, &i.ID, rows[0].ID.
func RootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.ObjectOf(x).(*types.Var)
			return v
		case *ast.SelectorExpr:
			if _, ok := info.Selections[x]; !ok {
				return nil // a qualified identifier, pkg.Name
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func hasEffects(ss []*Summary) bool {
	for _, s := range ss {
		if len(s.Effects) > 0 {
			return true
		}
	}
	return false
}

func sameEffect(a, b Effect) bool {
	return a.Op == b.Op && a.Forward == b.Forward && (a.Script == nil) == (b.Script == nil) && a.What == b.What && a.Record == b.Record && a.External == b.External && a.ViaReceiver == b.ViaReceiver &&
		a.Where == b.Where && slices.Equal(a.Params, b.Params)
}

// where names a position as file:line, the file by its base name.
func (r *Result) where(pos token.Pos) string {
	p := r.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// errorExpr reports whether e is of type error.
func errorExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Type != nil && types.Identical(tv.Type, types.Universe.Lookup("error").Type())
}

// nilTest returns the error variable cond compares with nil: err != nil,
// err == nil.
func nilTest(info *types.Info, cond ast.Expr) *types.Var {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.EQL && c.Op != token.NEQ {
		return nil
	}
	x, y := c.X, c.Y
	if isNilExpr(info, x) {
		x, y = y, x
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || !isNilExpr(info, y) {
		return nil
	}
	if v, ok := info.Uses[id].(*types.Var); ok && types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
		return v
	}
	return nil
}

// notFoundTest returns the error variable cond tests against a "no such
// record" sentinel: errors.Is(err, sql.ErrNoRows), err == redis.Nil,
// errors.Is(err, gorm.ErrRecordNotFound), or such a test negated.
func notFoundTest(info *types.Info, cond ast.Expr) *types.Var {
	cond = ast.Unparen(cond)
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		cond = ast.Unparen(u.X)
	}
	var errArg, target ast.Expr
	switch c := cond.(type) {
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(info, c).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "Is" || len(c.Args) != 2 {
			return nil
		}
		errArg, target = c.Args[0], c.Args[1]
	case *ast.BinaryExpr:
		if c.Op != token.EQL && c.Op != token.NEQ {
			return nil
		}
		errArg, target = c.X, c.Y
	default:
		return nil
	}
	id, ok := ast.Unparen(errArg).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
		return nil
	}
	var name string
	switch t := ast.Unparen(target).(type) {
	case *ast.SelectorExpr:
		name = t.Sel.Name
	case *ast.Ident:
		name = t.Name
	default:
		return nil
	}
	switch o := info.Uses[match.NameIdent(target)].(type) {
	case *types.Var, *types.Const:
		if o.Pkg() == nil || o.Parent() != o.Pkg().Scope() {
			return nil // a package-level sentinel, not a local
		}
	default:
		return nil
	}
	if match.NotFoundName(name) {
		return v
	}
	return nil
}

// answersIn reports whether body returns a result that is not an error.
func answersIn(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, e := range n.Results {
				if !errorExpr(info, e) && !isNilExpr(info, e) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func isNilExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// forwarded reads the SQL a helper fn sends for its caller (the effect e,
// a Forward) from the argument call gives it.
func (r *Result) forwarded(call *ast.CallExpr, fn *types.Func, e Effect) (Use, bool) {
	if e.Forward > len(call.Args) {
		return Use{}, false
	}
	a, ok := match.Forwarded(r.pass.TypesInfo, call, e.What, call.Args[e.Forward-1])
	if !ok {
		return Use{}, false
	}
	return Use{
		Effect: Effect{Op: a.Op, What: a.What, Record: a.Record, Target: a.Target, Appends: a.Appends,
			ForUpdate: a.ForUpdate, Increments: a.Increments, Where: e.Where},
		Keys: a.Keys, Dest: a.Dest, Call: call, Callee: fn, Access: a,
	}, true
}

// forwards reports whether call sends SQL that the function being
// summarised got from its caller, in the parameter of the given index:
// a library call given a parameter's text or the text of a parameter's
// ToSql, or a helper that forwards an argument made from one. The effect
// it returns says so; callers read the SQL where they give it.
func (r *Result) forwards(call *ast.CallExpr, params map[*types.Var]int, defs Defs) (Effect, bool) {
	info := r.pass.TypesInfo
	param := func(q ast.Expr) (int, bool) {
		q = ast.Unparen(q)
		id, ok := q.(*ast.Ident)
		if !ok {
			return 0, false
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok {
			return 0, false
		}
		if i, ok := params[v]; ok {
			return i, true
		}
		// query, args, err := q.ToSQL()
		if vals := defs.Values[v]; len(vals) == 1 {
			if c, ok := ast.Unparen(vals[0]).(*ast.CallExpr); ok {
				if x, ok := match.Builder(info, c); ok {
					if rv := RootVar(info, x); rv != nil {
						i, ok := params[rv]
						return i, ok
					}
				}
			}
		}
		return 0, false
	}
	if c, ok := match.SQL(info, call); ok { // not classified: its text names no table here
		if i, ok := param(c.Query); ok {
			return Effect{Forward: i + 1, What: c.Method, Where: r.where(call.Pos())}, true
		}
		return Effect{}, false
	}
	_, s := r.calleeSummary(call)
	if s == nil {
		return Effect{}, false
	}
	for _, e := range s.Effects {
		if e.Forward == 0 || e.Forward > len(call.Args) {
			continue
		}
		if i, ok := param(call.Args[e.Forward-1]); ok {
			return Effect{Forward: i + 1, What: e.What, Where: e.Where}, true
		}
	}
	return Effect{}, false
}

// forwardsScript reports whether call runs a Lua script that the function
// being summarised got from its caller (see match.ForwardsScript), itself
// or through a helper that does: runScript(ctx, s, keys, args...) given
// its own parameters. The effect says where the caller gives each part.
func (r *Result) forwardsScript(call *ast.CallExpr, params map[*types.Var]int, recv *types.Var) (Effect, bool) {
	info := r.pass.TypesInfo
	if f, ok := match.ForwardsScript(info, call, params, recv); ok {
		return Effect{Script: &f, What: "script", Where: r.where(call.Pos())}, true
	}
	_, s := r.calleeSummary(call)
	if s == nil {
		return Effect{}, false
	}
	// paramOf maps an expression of the call to the summarised
	// function's own parameter, -1 for its receiver, -2 for neither;
	// param maps what call gives the helper's parameter i (-1: its
	// receiver) so.
	paramOf := func(e ast.Expr) int {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return -2
		}
		v, _ := info.Uses[id].(*types.Var)
		if j, ok := params[v]; ok && v != nil {
			return j
		}
		if recv != nil && v == recv {
			return -1
		}
		return -2
	}
	param := func(i int) int {
		switch {
		case i == -1:
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				return paramOf(sel.X)
			}
		case i >= 0 && i < len(call.Args):
			return paramOf(call.Args[i])
		}
		return -2
	}
	for _, e := range s.Effects {
		if e.Script == nil {
			continue
		}
		in, out := *e.Script, *e.Script
		if out.Script = param(in.Script); out.Script == -2 || out.Script == -1 && out.Field == "" {
			continue
		}
		out.KeyParams = nil
		keys := in.KeyParams
		if in.Keys >= 0 {
			out.Keys = param(in.Keys)
			if out.Keys < 0 {
				// run(ctx, s, []string{key}, ...): the keys of the call's own
				// slice, each a parameter
				out.Keys, keys = -1, nil
				if in.Keys >= len(call.Args) {
					continue
				}
				lit, ok := ast.Unparen(call.Args[in.Keys]).(*ast.CompositeLit)
				if !ok || len(lit.Elts) == 0 {
					continue
				}
				for _, elt := range lit.Elts {
					out.KeyParams = append(out.KeyParams, paramOf(elt))
				}
			}
		}
		for _, k := range keys {
			out.KeyParams = append(out.KeyParams, param(k))
		}
		if slices.ContainsFunc(out.KeyParams, func(k int) bool { return k < 0 }) {
			continue
		}
		out.Args, out.Spread = nil, false
		for n, a := range in.Args {
			switch {
			case in.Spread && n == len(in.Args)-1 && call.Ellipsis.IsValid():
				p := param(a)
				out.Args = append(out.Args, max(p, -1))
				out.Spread = p >= 0
			case in.Spread && n == len(in.Args)-1:
				for j := a; j < len(call.Args); j++ {
					out.Args = append(out.Args, max(param(j), -1))
				}
			case a >= 0:
				out.Args = append(out.Args, max(param(a), -1))
			default:
				out.Args = append(out.Args, -1)
			}
		}
		return Effect{Script: &out, What: e.What, Where: e.Where}, true
	}
	return Effect{}, false
}
