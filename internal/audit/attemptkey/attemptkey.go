package attemptkey

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
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
	Name:      "attemptkey",
	Doc:       report.Doc("attemptkey"),
	URL:       "https://pkg.go.dev/github.com/idemkit/idemkit/internal/audit/attemptkey",
	Requires:  []*analysis.Analyzer{inspect.Analyzer, directive.Analyzer, report.Analyzer},
	Run:       run,
	FactTypes: []analysis.Fact{new(keyFact)},
}

// origin is where a value comes from, as one function sees it.
type origin struct {
	pos   token.Pos // where the fresh value is made in this function: the call that makes or returns it
	what  string    // uuid.NewString, or newKey (uuid.NewString at keys.go:8)
	param int       // the index of the parameter it is, when the function is summarised; -1 otherwise
	// process marks a value made once per process (a package variable, a
	// field its constructor sets, a value a handler closure captures):
	// the same for every attempt in one process, different after a
	// restart or on another replica.
	process bool
	// delivered marks a value the queue makes anew for each delivery (an
	// SQS receipt handle): fresh in a delivery, the same for each attempt
	// of a retry within one.
	delivered bool
	// counter is the loop counter the value is, for an attempt counter.
	counter types.Object
}

// fresh reports a value made fresh where it is used, neither a parameter
// nor made once per process nor per delivery.
func (o *origin) fresh() bool { return o != nil && o.param < 0 && !o.process && !o.delivered }

// sink is where a key is handed to something that deduplicates by it.
type sink struct {
	node  ast.Node
	value ast.Expr
	what  string // SetIdempotencyKey, the Idempotency-Key header, ...
	// only lists the attempts in which a fresh value here is a mistake,
	// for a sink that is also an entity's ID: a message's own ID is a key
	// when a retry or a redelivery sends it again, and the name given to a
	// create when a retry asks again; nil for every kind of attempt.
	only []kind
	// msg is the type of a message literal whose ID this is: a mistake in
	// a delivery only when the literal copies the message delivered (a
	// republish), not when it is a new event of another type.
	msg types.Type
	// lit is the composite literal a field sink belongs to.
	lit *ast.CompositeLit
}

// reach is a sink a parameter reaches, as a summary tells callers.
type reach struct {
	What string // the Idempotency-Key header at client.go:40
	Only []kind // as sink.only
}

// copies reports whether a message literal's sink s is in a delivery of a
// message of its own type, or is no message literal, or is not in a
// delivery.
func copies(s sink, sc *scope) bool {
	if s.msg == nil || sc.kind != delivery {
		return true
	}
	deref := func(t types.Type) types.Type {
		if p, ok := t.(*types.Pointer); ok {
			return p.Elem()
		}
		return t
	}
	return slices.ContainsFunc(sc.msgs, func(t types.Type) bool { return types.Identical(deref(t), deref(s.msg)) })
}

// allowed reports whether a sink restricted to only counts in an attempt
// of kind k.
func allowed(only []kind, k kind) bool {
	return only == nil || slices.Contains(only, k)
}

// made is what a function does when it both makes a fresh key and hands
// it to a sink itself, directly or through the functions it calls: every
// call of it sends a new key.
type made struct {
	pos  token.Pos // where the key is made, or the call that makes it
	what string    // uuid.NewString at send.go:12, reaching SetIdempotencyKey at send.go:14
	only []kind    // the sink's
}

type checker struct {
	pass       *analysis.Pass
	r          *report.Reporter
	dirs       *directive.Directives
	decls      map[*types.Func]*ast.FuncDecl
	returns    map[*types.Func]*origin       // what fresh value a function returns; nil for none
	params     map[*types.Func]map[int]reach // which parameters reach a sink, and which sink
	makes      map[*types.Func]*made         // functions that make a key and send it; nil for none
	minted     map[*types.Func]*minted       // constructors returning a record with a fresh ID; nil for none
	retries    map[*types.Func][]bool        // which func-typed parameters a package function calls in a loop
	roles      map[*ast.FuncDecl]map[*ast.FuncLit]scope
	jobs       map[*types.Func]bool                 // functions a scheduler runs; nil until registered looks
	callbacks  map[*types.Func]bool                 // functions handed over by name as callbacks
	gens       map[types.Object]string              // variables holding an ID library's generator function; nil until generators looks
	activities map[*types.Func]bool                 // functions registered as workflow activities
	handlers   map[*types.Func]bool                 // functions handed by name to a message handler's maker (cqrs.NewEventHandler)
	selfRetry  map[*types.Func]bool                 // whether a function retries by calling itself; nil until retriesItself looks
	process    map[types.Object]*origin             // package variables and fields set once per process to a fresh value
	onces      map[types.Object]*origin             // package variables holding a sync.OnceValue of a fresh value
	held       map[types.Object][]string            // what package variables and fields are set to once, spelled out
	fields     map[*types.Func]map[int][]*types.Var // which fields a function keeps its parameters in
	relays     map[*ast.FuncDecl]*types.Var         // the record a function relays; nil for none
	impls      map[*types.Func][]*types.Func        // the methods that implement an interface method
	wmFields   map[string]bool                      // metadata fields a watermill Deduplicator reads; nil until wmDedupField looks
}

func run(pass *analysis.Pass) (any, error) {
	if stdlib(pass.Files, func(f *ast.File) string { return pass.Fset.File(f.Pos()).Name() }) {
		return nil, nil
	}
	c := &checker{
		pass:    pass,
		r:       report.New(pass),
		dirs:    pass.ResultOf[directive.Analyzer].(*directive.Directives),
		decls:   map[*types.Func]*ast.FuncDecl{},
		returns: map[*types.Func]*origin{},
		params:  map[*types.Func]map[int]reach{},
		makes:   map[*types.Func]*made{},
		minted:  map[*types.Func]*minted{},
		relays:  map[*ast.FuncDecl]*types.Var{},
		impls:   map[*types.Func][]*types.Func{},
		retries: map[*types.Func][]bool{},
		roles:   map[*ast.FuncDecl]map[*ast.FuncLit]scope{},
		process: map[types.Object]*origin{},
		onces:   map[types.Object]*origin{},
		held:    map[types.Object][]string{},
		fields:  map[*types.Func]map[int][]*types.Var{},
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
	c.perProcess(ins, decls)
	for _, decl := range decls {
		if !testFunc(pass.TypesInfo, decl) {
			c.check(decl)
		}
	}
	c.exportFacts(decls)
	return nil, nil
}

// countsItems reports whether a key made from a loop counter sits in a
// literal whose other fields use the counter too: the payload differs
// from turn to turn, so each turn sends another item, not the same one
// again.
func (c *checker) countsItems(s sink, counter types.Object) bool {
	kv, ok := s.node.(*ast.KeyValueExpr)
	if !ok || s.lit == nil {
		return false
	}
	for _, e := range s.lit.Elts {
		other, ok := e.(*ast.KeyValueExpr)
		if !ok || other == kv {
			continue
		}
		used := false
		ast.Inspect(other.Value, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && c.pass.TypesInfo.Uses[id] == counter {
				used = true
			}
			return !used
		})
		if used {
			return true
		}
	}
	return false
}

// testFunc reports a function that takes a *testing.T, B or F: a test
// and its fixtures make fresh records on every run by design, and a loop
// in one that makes several is no retry, whatever the test is named.
func testFunc(info *types.Info, decl *ast.FuncDecl) bool {
	fn, ok := info.Defs[decl.Name].(*types.Func)
	return ok && match.TestSignature(fn.Signature())
}

// check reports the fresh keys of one function that reach a sink inside
// the attempt (a retry, a request, a delivery, a scheduled run) that made
// them, keys made once per process, and calls made inside an attempt to
// functions that make and send a key of their own.
func (c *checker) check(decl *ast.FuncDecl) {
	reported := map[ast.Node]bool{}
	if sinks := c.sinks(decl.Body); len(sinks) > 0 {
		f := c.flow(decl.Body, c.counters(decl))
		for _, s := range sinks {
			o := f.origin(s.value)
			if o == nil || o.param >= 0 || reported[s.value] {
				continue
			}
			if o.process && allowed(s.only, startup) {
				reported[s.value] = true
				c.reportProcess(s, o)
				continue
			}
			sc := c.scopeAt(decl, o.pos)
			if sc != nil && o.delivered && sc.kind != delivery {
				continue
			}
			if o.counter != nil && c.countsItems(s, o.counter) {
				continue // task-%d with its data for task %d: the loop makes one item per turn
			}
			if sc != nil && (sc.kind == request && c.toClient(decl, s) || c.lazyOnce(decl, s, sc) || c.headerOnce(decl, s, sc)) {
				continue // handed to the client, or made once for its record or its request
			}
			if sc != nil && within(sc.node, s.node) && allowed(s.only, sc.kind) && copies(s, sc) {
				reported[s.value] = true
				c.reportAttempt(s.value, sc, fmt.Sprintf("made by %s at %s", o.what, c.where(o.pos)), "reaches "+s.what, o.pos)
				continue
			}
			if outer := c.scopeAt(decl, s.node.Pos()); outer != nil && outer.kind != retry && !within(outer.node, o.pos) && sc == nil && !o.delivered && allowed(s.only, startup) {
				// made once, outside the handler closure that uses it: per process
				reported[s.value] = true
				c.reportProcess(s, &origin{pos: o.pos, what: o.what + " in " + decl.Name.Name})
			}
		}
	}
	c.uniqueContent(decl, reported)
	var sends *sent
	sent := func() *sent {
		if sends == nil {
			sends = c.sendsIn(decl.Body)
		}
		return sends
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || reported[call] {
			return true
		}
		c.retriedRefs(call)
		fn, m := c.callMakes(call)
		if m == nil {
			reported[call] = c.mintedSent(decl, call, sent)
			return true
		}
		if sc := c.scopeAt(decl, call.Pos()); sc != nil && allowed(m.only, sc.kind) {
			reported[call] = true
			c.reportAttempt(call, sc, fmt.Sprintf("made by %s (%s)", fn.Name(), m.what), "", m.pos)
		}
		return true
	})
}

// retriedRefs reports a function handed by name to a retry helper
// (backoff.Retry(w.send, b)) that makes and sends a key of its own.
func (c *checker) retriedRefs(call *ast.CallExpr) {
	info := c.pass.TypesInfo
	helper, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return
	}
	for i, arg := range call.Args {
		fn := funcRef(info, arg)
		if fn == nil || !c.retried(call, helper, i) {
			continue
		}
		if m := c.makesKey(fn.Origin()); m != nil && allowed(m.only, retry) {
			sc := &scope{node: call, kind: retry, what: "call of " + helper.Name()}
			c.reportAttempt(arg, sc, fmt.Sprintf("made by %s (%s)", fn.Name(), m.what), "", m.pos)
		}
	}
}

// funcRef returns the function or method e names (send, w.send); nil for
// another expression.
func funcRef(info *types.Info, e ast.Expr) *types.Func {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// reportAttempt reports a key made anew in each attempt of sc.
func (c *checker) reportAttempt(at ast.Node, sc *scope, made, reaches string, pos token.Pos) {
	if !pos.IsValid() {
		pos = at.Pos() // made in another package
	}
	msg := fmt.Sprintf("idempotency key %s inside the %s at %s", made, sc.what, c.where(sc.node.Pos()))
	if reaches != "" {
		msg += " " + reaches
	}
	switch sc.kind {
	case retry:
		if sc.call {
			msg += ": it runs for each attempt of the call, so every retry above it sends a new key and none is recognised as one; have the caller make the key once for the logical action and pass it down (in the request, its context or the call's metadata) (attemptkey)"
			break
		}
		msg += ": every attempt sends a new key, so no retry is recognised as one; make the key once, before the retries, from the logical action (attemptkey)"
	case request:
		name := sc.what
		if _, ok := sc.node.(*ast.FuncLit); ok {
			name += " at " + c.where(sc.node.Pos())
		}
		msg = fmt.Sprintf("idempotency key %s for each request to %s", made, name)
		if reaches != "" {
			msg += " " + reaches
		}
		msg += ": a retried request sends a new key; take the client's Idempotency-Key header or derive the key from the request's event or message ID (attemptkey)"
	case delivery:
		msg += ": a redelivered message gets a new key, so it is processed again; derive the key from the message's own ID (attemptkey)"
	case scheduled:
		msg += ": a retried or overlapping run sends a new key; derive the key from the job's name and its scheduled slot (attemptkey)"
	case relay:
		msg += ": a record whose send was not confirmed, or not marked, is sent again by the next pass under a new ID, so the receiver cannot drop the copy; derive the ID from the record (its event ID, or an ID written with it) (attemptkey)"
	}
	c.r.Report(analysis.Diagnostic{
		Pos: at.Pos(), End: at.End(), Message: msg,
		Related: []analysis.RelatedInformation{{Pos: pos, Message: "the key is made here"}, {Pos: sc.node.Pos(), Message: "once for each attempt of this " + sc.what}},
	})
}

// reportProcess reports a key built from a value made once per process.
func (c *checker) reportProcess(s sink, o *origin) {
	c.r.Report(analysis.Diagnostic{
		Pos: s.value.Pos(), End: s.value.End(),
		Message: fmt.Sprintf("idempotency key built from %s at %s, made once per process, reaches %s: a restart or another replica makes a different one, so a retry or redelivery there is not recognised; build the key from the message's or operation's own ID alone (attemptkey)",
			o.what, c.where(o.pos), s.what),
		Related: []analysis.RelatedInformation{{Pos: o.pos, Message: "made once per process here"}},
	})
}

// within reports whether pos, or all of node, lies inside outer.
func within(outer ast.Node, inner any) bool {
	switch x := inner.(type) {
	case token.Pos:
		return outer.Pos() <= x && x < outer.End()
	case ast.Node:
		return outer.Pos() <= x.Pos() && x.End() <= outer.End()
	}
	return false
}

// where names a position as file:line, the file by its base name.
func (c *checker) where(pos token.Pos) string {
	p := c.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}
