package checkthenact

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
	"github.com/idemkit/idemkit/internal/audit/internal/report"
)

// Analyzer reports a record read and then written as two steps.
var Analyzer = &analysis.Analyzer{
	Name:     "checkthenact",
	Doc:      report.Doc("checkthenact"),
	URL:      "https://pkg.go.dev/github.com/idemkit/idemkit/internal/audit/checkthenact",
	Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, effect.Analyzer, report.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{
		pass: pass,
		r:    report.New(pass),
		cfgs: pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs),
		eff:  pass.ResultOf[effect.Analyzer].(*effect.Result),
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	watched := map[*ast.FuncLit]bool{}
	ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		c.firstOrCreate(call)
		if watch(pass.TypesInfo, call) || underLock(pass.TypesInfo, call) {
			for _, a := range call.Args {
				if lit, ok := a.(*ast.FuncLit); ok {
					watched[lit] = true
				}
			}
		}
	})
	c.underCallersLock = c.callersLocked(ins, watched)
	generated := map[*token.File]bool{}
	for _, f := range pass.Files {
		if ast.IsGenerated(f) {
			generated[pass.Fset.File(f.Pos())] = true
		}
	}
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		if strings.HasSuffix(pass.Fset.File(n.Pos()).Name(), "_test.go") {
			return // tests call in turn what production calls concurrently
		}
		if generated[pass.Fset.File(n.Pos())] {
			return // a generator's code (sqlboiler's insert cache): no one edits it, what it does is read where it is called
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn, ok := pass.TypesInfo.Defs[n.Name].(*types.Func)
			if !ok || n.Body == nil {
				return
			}
			var recv *types.Var
			if r := fn.Signature().Recv(); r != nil {
				recv = r
			}
			c.unit(n.Body, c.cfgs.FuncDecl(n), recv, c.underCallersLock[fn])
		case *ast.FuncLit:
			if !watched[n] {
				c.unit(n.Body, c.cfgs.FuncLit(n), nil, false)
			}
		}
	})
	return nil, nil
}

// underLock reports whether call runs the function it is given under a
// lock: executeWithLock(ctx, key, func(ctx) ...), mu.WithLock(fn),
// WithAdvisoryLock(ctx, tx, id, fn). A read and a write inside the
// callback are one step to every other caller taking the same lock.
func underLock(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return false
	}
	ws := match.Words(fn.Name())
	return slices.ContainsFunc(ws, func(w string) bool {
		return w == "lock" || w == "locked" || w == "locking" || w == "mutex" || w == "exclusive"
	}) &&
		!slices.Contains(ws, "unlock") && !slices.Contains(ws, "try")
}

// watch reports whether call is go-redis's Watch, whose callback runs
// as an optimistic transaction: a read and a write inside it are safe.
func watch(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Name() != "Watch" {
		return false
	}
	p := fn.Pkg().Path()
	return strings.HasPrefix(p, "github.com/redis/go-redis/") || strings.HasPrefix(p, "github.com/go-redis/redis/")
}

type checker struct {
	pass *analysis.Pass
	r    *report.Reporter
	cfgs *ctrlflow.CFGs
	eff  *effect.Result
	// underCallersLock are the unexported functions of the package that
	// are called, and every time under a lock their caller holds.
	underCallersLock map[*types.Func]bool
}

// event is one effect of a call in the function being checked.
type event struct {
	use effect.Use
	// at is the call, or the map index expression, that performs it.
	at    ast.Expr
	block *cfg.Block
	node  ast.Node // the node of the control-flow graph that holds the call
	atoms []effect.Atom
}

// fn is the function being checked.
type fn struct {
	*checker
	body   *ast.BlockStmt
	g      *cfg.CFG
	recv   *types.Var
	defs   effect.Defs
	events []*event
	// locked are the spans of source in which the function holds a lock
	// or a claim that makes its reads and writes one step: a mutex until
	// its Unlock, an advisory lock, a SET NX or a FOR UPDATE on a parent
	// row until the function returns.
	locked  []span
	unlocks []unlock
	// serializable marks a function that runs a SERIALIZABLE transaction.
	serializable bool
	tags         map[ast.Expr]ast.Expr       // case expressions to their switch's tag
	gateTaint    *taint                      // the taint of the read gate is looking at
	flags        map[flagOf]bool             // presenceFlag's answers, asked once per gate and pair
	preds        map[*cfg.Block][]*cfg.Block // each block's predecessors, for reachingDefs
	// flight is the key of the singleflight Do that runs this function,
	// when one does; flightKnown says it has been looked for.
	flight      ast.Expr
	flightKnown bool
	failures    map[ast.Expr]*ast.BlockStmt // failureBody's answers
}

// add records e with the values its key is made of.
func (f *fn) add(e *event) {
	for _, k := range e.use.Keys {
		e.atoms = append(e.atoms, effect.Atoms(f.pass.TypesInfo, f.defs, f.recv, f.lookup, k)...)
	}
	f.events = append(f.events, e)
}

// lookup reports whether call reads a store, or might: its result is
// found, not built from its arguments. So is the result of a call that
// adds a record (an INSERT, a Create): the new record's token or ID, made
// by the call (issue(ctx, user) returning a fresh refresh token), not the
// arguments it was made for. A call with no effects (a
// constructor such as newOrder(req)) builds one record from them; a call
// that returns a list of records (plan(ctx, entry) returning the events
// an entry owes, each with a key of its own) makes each record's key as
// it likes, so the list is not keyed by what the call was given.
func (f *fn) lookup(call *ast.CallExpr) bool {
	if _, ok := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func); !ok {
		return true
	}
	if records(f.pass.TypesInfo.TypeOf(call)) {
		return true
	}
	for _, u := range f.eff.Of(call) {
		if u.Op == match.OpRead || u.Op == match.OpWrite && u.Appends {
			return true
		}
	}
	return false
}

// records reports whether t, or the first of a tuple, is a slice, array
// or map of structs (or pointers to structs): a list of records.
func records(t types.Type) bool {
	if tup, ok := t.(*types.Tuple); ok {
		if tup.Len() == 0 {
			return false
		}
		t = tup.At(0).Type()
	}
	var elem types.Type
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		elem = u.Elem()
	default:
		return false
	}
	if p, ok := types.Unalias(elem).Underlying().(*types.Pointer); ok {
		elem = p.Elem()
	}
	_, ok := types.Unalias(elem).Underlying().(*types.Struct)
	return ok
}

// unit pairs the reads and writes of one function body.
func (c *checker) unit(body *ast.BlockStmt, g *cfg.CFG, recv *types.Var, callerLocked bool) {
	if g == nil {
		return
	}
	f := c.newFn(body, g, recv)
	if callerLocked {
		f.locked = append(f.locked, span{from: body.Pos()})
	}
	if !slices.ContainsFunc(f.events, func(e *event) bool { return e.use.Op == match.OpRead || loadsValue(e) }) {
		return
	}
	f.locks()
	reported := map[ast.Expr]bool{}
	for _, rd := range f.events {
		loaded := loadsValue(rd)
		if rd.use.Op != match.OpRead && !loaded || f.serializable {
			continue
		}
		var t *taint
		for _, w := range f.events {
			switch w.use.Op {
			case match.OpWrite, match.OpUpdate, match.OpClaim, match.OpGuarded:
			default:
				continue
			}
			if reported[w.at] || w.at == rd.at || w.use.Record == "" || !sameRecord(rd.use.Record, w.use.Record) || f.covered(rd, w) ||
				rd.use.Access.InWatch && w.use.Access.InWatch || // a WATCH transaction: EXEC fails when the key changed

				!effect.SameKey(rd.atoms, w.atoms, rd.use.Keys, w.use.Keys) || f.checkedAgain(rd, w) {
				continue
			}
			if t == nil {
				t = f.taint(rd)
				if loaded {
					t = f.loadedTaint(rd)
				}
			}
			if loaded && !f.derived(rd, w) {
				continue // a completion stored over the claim: not made from what was loaded
			}
			if rd.use.Record != w.use.Record && !f.fieldChecked(t, w.use.Record[len(rd.use.Record)+1:]) {
				continue // a hash read whole, and a field written that nothing checked
			}
			if f.claimedBetween(rd, w) || inMemory(rd.use.Record) && f.inFlight(rd) {
				continue
			}
			if f.pair(rd, w, t) {
				reported[w.at] = true
			}
		}
	}
}

// newFn gathers the effects of one function body: the reads, writes and
// claims of its calls and of its map accesses, in its control-flow graph.
func (c *checker) newFn(body *ast.BlockStmt, g *cfg.CFG, recv *types.Var) *fn {
	f := &fn{checker: c, body: body, g: g, recv: recv, defs: effect.Definitions(c.pass.TypesInfo, body)}
	stores := map[ast.Expr]bool{}     // map index expressions written to
	queued := map[*ast.FuncLit]bool{} // callbacks of Pipelined and TxPipelined, run where they are passed
	for _, b := range g.Blocks {
		if !b.Live {
			continue
		}
		for _, n := range b.Nodes {
			ast.Inspect(n, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.FuncLit:
					// Its own unit, except a pipeline's callback: its commands
					// are sent here, after what this function read (a MULTI
					// without WATCH does not make a read and a write one step).
					return queued[x]
				case *ast.CallExpr:
					if pipelines(c.pass.TypesInfo, x) {
						for _, a := range x.Args {
							if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
								queued[lit] = true
							}
						}
					}
					for _, u := range c.eff.Of(x) {
						f.add(&event{use: u, at: x, block: b, node: n})
					}
				case *ast.AssignStmt:
					for _, l := range x.Lhs {
						if u, ok := effect.MapAccess(c.pass.TypesInfo, l, match.OpWrite); ok {
							f.add(&event{use: u, at: l, block: b, node: n})
							stores[ast.Unparen(l)] = true
						}
					}
				case *ast.IndexExpr:
					if stores[x] {
						return true
					}
					if u, ok := effect.MapAccess(c.pass.TypesInfo, x, match.OpRead); ok {
						f.add(&event{use: u, at: x, block: b, node: n})
					}
				}
				return true
			})
		}
	}
	return f
}

// sameRecord reports whether a write to record w changes what a read of
// record rd found: the same record, or a field of the hash rd read whole
// (HGETALL, then an HSET of its status field).
func sameRecord(rd, w string) bool {
	return rd == w || strings.HasPrefix(rd, "redis hash ") && strings.Count(rd, " ") == 2 && strings.HasPrefix(w, rd+" ")
}

// claimedBetween reports whether a claim of w's record under w's key
// comes after rd, before any work, and decides whether w runs: the read
// is a fast path for duplicates, and the claim, not the read, lets one
// caller through (GET; SET NX "running"; the work; SET "done"). An
// INSERT whose unique violation is handled as "already taken" claims, and
// so does a guarded UPDATE (SET status = 'processing' WHERE status =
// 'pending') whose row count decides.
func (f *fn) claimedBetween(rd, w *event) bool {
	return slices.ContainsFunc(f.events, func(c *event) bool {
		if c == w || c.use.Record != w.use.Record || c.at.Pos() <= rd.at.Pos() || c.at.Pos() >= w.at.Pos() ||
			!(c.use.Op == match.OpClaim || c.use.Op == match.OpGuarded || c.use.Op == match.OpWrite && c.use.Appends && f.duplicateHandled(c)) ||
			!effect.SameKey(c.atoms, w.atoms, c.use.Keys, w.use.Keys) || f.callsBetween(rd, c) {
			return false
		}
		return f.claimGates(c, w, f.taint(c))
	})
}

// inFlight reports whether the function is the one a singleflight
// Group's Do or DoChan runs for rd's key: in one process, the calls with
// that key share one run, and the next finds what it stored, so a lookup
// and a store of a record in process memory are one step there.
func (f *fn) inFlight(rd *event) bool {
	key := f.flightKey()
	return key != nil && effect.SameKey(rd.atoms, effect.Atoms(f.pass.TypesInfo, f.defs, f.recv, f.lookup, key), rd.use.Keys, []ast.Expr{key})
}

// flightKey returns the key of the singleflight Do or DoChan call whose
// function literal this function is, or nil; it looks once.
func (f *fn) flightKey() ast.Expr {
	if f.flightKnown {
		return f.flight
	}
	f.flightKnown = true
	for _, file := range f.pass.Files {
		if file.Pos() > f.body.Pos() || f.body.End() > file.End() {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if f.flight != nil || n == nil || n.Pos() > f.body.Pos() || n.End() < f.body.End() {
				return false // outside the literal's ancestors
			}
			if !ok || len(call.Args) != 2 {
				return true
			}
			if lit, ok := ast.Unparen(call.Args[1]).(*ast.FuncLit); ok && lit.Body == f.body {
				if fn, ok := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func); ok && fn.Pkg() != nil &&
					fn.Pkg().Path() == "golang.org/x/sync/singleflight" && (fn.Name() == "Do" || fn.Name() == "DoChan") {
					f.flight = call.Args[0]
				}
			}
			return true
		})
	}
	return f.flight
}

// addedDecides reports whether w is a write whose reply says whether it
// added (SADD's count, HSET's, INCR's new value) and that reply decides
// whether work after it runs: SADD used as the claim, the read before it
// a fast path.
func (f *fn) addedDecides(w *event) bool {
	if !w.use.Access.ReportsAdded {
		return false
	}
	t := f.taint(w)
	return slices.ContainsFunc(f.events, func(s *event) bool {
		return s != w && s.at.Pos() > w.at.End() && f.claimGates(w, s, t)
	})
}

// callsBetween reports whether anything but a store access, a builtin, a
// conversion or a pure standard-library call runs between rd and c: work
// done before the claim, which every caller that passed rd does.
func (f *fn) callsBetween(rd, c *event) bool {
	info := f.pass.TypesInfo
	access := map[ast.Node]bool{}
	for _, e := range f.events {
		access[e.at] = true
	}
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= rd.at.End() || n.Pos() >= c.at.Pos() {
			return !found && n != nil && n.Pos() < c.at.Pos()
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || access[call] {
			return true
		}
		if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
			return true
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		switch {
		case ok && fn.Pkg() != nil && (pureStd(fn.Pkg().Path()) || fn.Pkg().Path() == "errors" || fn.Pkg().Path() == "time" || fn.Pkg().Path() == "context"):
		case ok && fn.Name() == "Error" && fn.Signature().Recv() != nil:
		case ok && (match.LibraryPackage(fn.Pkg()) || fn.Pkg() != nil && fn.Pkg().Path() == "database/sql") && fn.Signature().Recv() != nil && replyReader(fn):
			// a store command's Result, Err or Val
		default:
			found = f.onPathTo(call, c)
		}
		return !found
	})
	return found
}

// onPathTo reports whether call can run before c: it is in c's block, or
// in one from which c's can be reached. A call on a path that returns
// first (the replay a fast-path GET writes out) is not between them.
func (f *fn) onPathTo(call *ast.CallExpr, c *event) bool {
	bs := f.blocksOf(call)
	if len(bs) == 0 || c.block == nil {
		return true
	}
	return slices.ContainsFunc(bs, func(b *cfg.Block) bool { return b == c.block || f.reaches(b, c.block, nil) })
}

// replyReader reports whether fn, a method of a store library, only reads
// a command's reply (Result, Err, Val, Scan, Decode, RowsAffected).
func replyReader(fn *types.Func) bool {
	switch fn.Name() {
	case "Result", "Err", "Val", "Bool", "Int", "Int64", "Bytes", "String", "Scan", "Decode", "All", "Next", "RowsAffected", "LastInsertId":
		return true
	}
	return false
}

// fieldChecked reports whether the function looks at field in what a
// whole-hash read found: m["status"] of the map HGETALL returned, or
// r.Status of the struct it was scanned into. A hash read whole and one
// field written are a check and its write only when the check is of
// that field; a profile read for its email, and a "welcomed" flag set
// after the email, are not.
func (f *fn) fieldChecked(t *taint, field string) bool {
	want := strings.Join(match.Words(field), "_")
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			if k, ok := match.ConstString(f.pass.TypesInfo, n.Index); ok && k == field && f.mentions(n.X, t) {
				found = true
			}
		case *ast.SelectorExpr:
			if strings.Join(match.Words(n.Sel.Name), "_") == want && f.mentions(n.X, t) {
				found = true
			}
		}
		return !found
	})
	return found
}

// checkedAgain reports whether, after rd, the function reads the same
// record under the same key again inside a lock it holds until w, and
// that second read decides whether w runs: double-checked locking. The
// first read is a fast path (a map under RLock, a cache before a store's
// Lock, a SETNX of a lock key, an advisory lock or a redsync Mutex); the
// second check and the write are one step to every caller taking the
// same lock.
func (f *fn) checkedAgain(rd, w *event) bool {
	return slices.ContainsFunc(f.events, func(again *event) bool {
		return again != rd && again.use.Op == match.OpRead && again.use.Record == rd.use.Record &&
			again.at.Pos() > rd.at.Pos() && again.at.Pos() < w.at.Pos() && f.covered(again, w) &&
			effect.SameKey(rd.atoms, again.atoms, rd.use.Keys, again.use.Keys) && f.decides(again, w)
	})
}

// decides reports whether what rd found decides whether w runs.
func (f *fn) decides(rd, w *event) bool {
	gate, _ := f.gate(rd, w, f.taint(rd))
	return gate != nil
}

// pair reports w when rd's result decides whether it runs and the two
// can interleave with a concurrent retry's.
func (f *fn) pair(rd, w *event, t *taint) bool {
	if w.use.Counted {
		return false // a counter the callee increments decides the write
	}
	gate, side := f.gate(rd, w, t)
	if gate == nil {
		return f.flagged(rd, w, t) // written whatever was found, perhaps with the answer in it
	}
	if f.onlyWhenPresent(rd, w, t) {
		return false
	}
	if rd.use.ForUpdate && (w.use.Op == match.OpUpdate || w.use.Op == match.OpGuarded) {
		return false // the row exists and is locked until the transaction ends
	}
	atomic := w.use.Op == match.OpClaim || w.use.Op == match.OpGuarded || f.duplicateHandled(w) || f.addedDecides(w) || f.rereadOnError(w)
	between := f.sideEffect(rd, w, gate, side, true)
	var late *lateLock
	var opaque *ast.CallExpr // work out of sight between, for the advice
	switch {
	case atomic:
		if between == nil {
			return false
		}
	case w.use.Appends:
	case inMemory(w.use.Record) && f.derived(rd, w):
		// the loaded list with one more ID: of two callers that both
		// pass the check, one's addition is lost, as with an append
	default:
		if f.sideEffect(rd, w, gate, side, false) == nil && match.SafeMethodsOnly(f.pass.TypesInfo, f.body, w.at) {
			return false // a cache of what GET requests read: two misses serve the read twice
		}
		late = f.lockedLate(rd, w, gate, side)
		looked := false // opaque is looked for once, for the test or for the advice
		unseen := func() *ast.CallExpr {
			if !looked {
				opaque, looked = f.opaqueCall(rd, w, side, gate), true
			}
			return opaque
		}
		if late == nil && f.sideEffect(rd, w, gate, side, false) == nil && !f.dedupNamed(rd, w) &&
			!(f.marker(w) && unseen() != nil) && !(f.foreignValue(w) && !f.cacheHit(gate, side, t)) &&
			!(inMemory(w.use.Record) && f.handsOut(w) != nil) {
			return false
		}
		if late == nil {
			unseen()
		}
	}
	f.report(rd, w, between, atomic, late, opaque, f.fieldTest(gate, w, t))
	return true
}

// fieldTest returns the condition of gate when it tests what a found
// record holds (trip.ReservedSeats > 0, a status), through its fields
// alone, rather than whether the record was found, and w updates that
// record: two concurrent callers
// both read the same record, both pass the test and both write it, so
// one's write is lost (or made from a stale read); nil otherwise.
func (f *fn) fieldTest(gate *cfg.Block, w *event, t *taint) ast.Expr {
	if w.use.Op != match.OpUpdate || gate == nil {
		return nil
	}
	cond, ok := gate.Nodes[len(gate.Nodes)-1].(ast.Expr)
	if !ok {
		return nil
	}
	info := f.pass.TypesInfo
	fields, bare := false, false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if notFoundName(x) {
				bare = true // a comparison with a "no such record" sentinel
			}
			if v := effect.RootVar(info, x.X); v != nil && t.vars[v] {
				if fv, ok := info.Uses[x.Sel].(*types.Var); ok {
					if types.Identical(fv.Type(), types.Universe.Lookup("error").Type()) {
						bare = true // a query's Error: whether it found the record
					}
					fields = true
					return false
				}
			}
		case *ast.Ident:
			if v, ok := info.Uses[x].(*types.Var); ok && t.vars[v] || notFoundName(x) {
				bare = true // the record itself, or the lookup's error: presence
			}
		}
		return true
	})
	if !fields || bare {
		return nil
	}
	return cond
}

// lateLock is a lock taken after the check it should guard, and the work
// it was meant to keep to one caller.
type lateLock struct {
	lock ast.Expr
	work *ast.CallExpr
}

// lockedLate finds a lock taken on w's side of the gate, after the check
// and before w (a mutex, a store's Lock or TryLock, a redsync Mutex, an
// advisory lock, a SET NX of a lock key), with work the analysis cannot
// see between it and w: the wrapped http.Handler, a callback. The lock is
// still held at w, but it guards nothing: a retry whose check ran before
// this caller's write, and whose lock comes after this caller's release,
// does the work again. checkedAgain has already ruled out a second check
// under the lock.
func (f *fn) lockedLate(rd, w *event, gate, side *cfg.Block) *lateLock {
	var locks []span
	for _, s := range f.locked {
		if s.at != nil {
			locks = append(locks, s)
		}
	}
	for _, e := range f.events {
		if e.use.Op == match.OpClaim && e.use.Record != w.use.Record {
			locks = append(locks, span{from: e.at.Pos(), at: e.at}) // SET NX of a lock key, not of the record
		}
	}
	// The last lock before the work: LockContext, not the NewMutex before it.
	slices.SortFunc(locks, func(a, b span) int { return cmp.Compare(b.from, a.from) })
	for _, l := range locks {
		if l.from <= rd.at.Pos() || f.released(l, w) ||
			!slices.ContainsFunc(f.blocksOf(l.at), func(b *cfg.Block) bool { return f.before(b, l.at, w, gate, side) }) {
			continue
		}
		if work := f.unseenWork(w, l.at, gate, side); work != nil {
			return &lateLock{lock: l.at, work: work}
		}
	}
	return nil
}

// released reports whether the mutex l is unlocked on the way from its
// Lock to w: a lock given back before the write guards neither.
func (f *fn) released(l span, w *event) bool {
	return slices.ContainsFunc(f.unlocks, func(u unlock) bool {
		if u.mu != l.mu || u.at.Pos() < l.from {
			return false
		}
		afterLock := slices.ContainsFunc(f.blocksOf(l.at), func(b *cfg.Block) bool {
			return b == u.block || f.reaches(b, u.block, nil)
		})
		beforeWrite := (u.block == w.block && u.at.Pos() < w.at.Pos()) || f.reaches(u.block, w.block, nil)
		return afterLock && beforeWrite
	})
}

// before reports whether x, in block b, runs on w's side of the gate and
// before w.
func (f *fn) before(b *cfg.Block, x ast.Node, w *event, gate, side *cfg.Block) bool {
	if !b.Live || !(b == side || f.reaches(side, b, gate)) {
		return false
	}
	if b == w.block {
		return x.End() <= w.at.Pos()
	}
	return f.reaches(b, w.block, gate)
}

// unseenWork returns a call after the lock and before w whose work the
// analysis cannot see and that does not load what w stores: a function
// value called (a callback), or an interface's method (a wrapped
// http.Handler's ServeHTTP, a message handler's Handle) other than a
// logger's.
func (f *fn) unseenWork(w *event, lock ast.Expr, gate, side *cfg.Block) *ast.CallExpr {
	var found *ast.CallExpr
	for _, b := range f.g.Blocks {
		if found != nil || !b.Live || !(b == side || f.reaches(side, b, gate)) {
			continue
		}
		for _, n := range b.Nodes {
			ast.Inspect(n, func(x ast.Node) bool {
				switch x.(type) {
				case *ast.FuncLit, *ast.DeferStmt:
					return false // runs elsewhere, or at the return
				}
				if found != nil {
					return false
				}
				call, ok := x.(*ast.CallExpr)
				if !ok || call.Pos() <= lock.End() || contains(w.at, call) || !f.before(b, call, w, gate, side) {
					return true
				}
				if f.opaque(call) && !f.loads(call, w) {
					found = call
				}
				return found == nil
			})
		}
	}
	return found
}

// opaque reports whether call runs work out of the analysis' sight: a
// function value, or an interface's method with no known effect on a
// record. Of the standard library's interfaces only http.Handler's
// ServeHTTP runs work; a logger's methods run none.
func (f *fn) opaque(call *ast.CallExpr) bool {
	info := f.pass.TypesInfo
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return false
	}
	if slices.ContainsFunc(f.eff.Of(call), func(u effect.Use) bool { return !u.External }) {
		return false // a read, a write or a claim: paired on its own
	}
	switch fn := typeutil.Callee(info, call).(type) {
	case *types.Var:
		return true
	case *types.Func:
		recv := fn.Signature().Recv()
		if recv != nil && match.ChainNext(fn) {
			return true
		}
		if recv == nil || !types.IsInterface(recv.Type()) || fn.Pkg() == nil {
			return false
		}
		if effect.Stdlib(fn.Pkg().Path()) {
			return fn.Pkg().Path() == "net/http" && fn.Name() == "ServeHTTP"
		}
		return !slices.ContainsFunc(match.Words(fn.Name()), func(w string) bool { return slices.Contains(logWords, w) })
	}
	return false
}

// logWords name a logger's, tracer's or meter's methods.
var logWords = []string{"debug", "info", "warn", "warning", "error", "errorf", "log", "logf", "print", "printf", "println", "trace", "fatal", "with"}

// loads reports whether call is a cache fill's loader: given w's key
// itself, it returns what w stores, which is the same whoever loads it.
// A handler given the key (handle(ctx, id)) returns no more than an error
// and is work.
func (f *fn) loads(call *ast.CallExpr, w *event) bool {
	info := f.pass.TypesInfo
	given := slices.ContainsFunc(call.Args, func(a ast.Expr) bool {
		atoms := effect.Atoms(info, f.defs, f.recv, f.lookup, a)
		return len(atoms) > 0 && !slices.ContainsFunc(atoms, func(x effect.Atom) bool {
			return !x.Weak && !slices.Contains(w.atoms, x)
		})
	})
	v := f.stored(w)
	if !given || v == nil {
		return false
	}
	if contains(v, call) {
		return true
	}
	return slices.ContainsFunc(effect.Roots(info, f.defs, v), func(r *types.Var) bool {
		return slices.ContainsFunc(f.defs.Values[r], func(d ast.Expr) bool { return ast.Unparen(d) == call })
	})
}

// marker reports whether w stores a mark rather than a value: a constant,
// true, an empty struct, the time. A mark stored under a key whose
// presence was checked records that something was done.
func (f *fn) marker(w *event) bool {
	v := f.stored(w)
	if v == nil {
		return false
	}
	info := f.pass.TypesInfo
	if tv, ok := info.Types[v]; ok && tv.Value != nil {
		return true
	}
	if lit, ok := ast.Unparen(v).(*ast.CompositeLit); ok && len(lit.Elts) == 0 {
		return true
	}
	for e := ast.Unparen(v); ; {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		if ok && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "Now" {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
			return false
		}
		e = ast.Unparen(sel.X) // time.Now().Unix(), time.Now().UTC()
	}
}

// stored returns the value w writes: the right-hand side of a map store,
// or the argument after the key in a call.
func (f *fn) stored(w *event) ast.Expr {
	if as, ok := w.node.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
		for i, l := range as.Lhs {
			if ast.Unparen(l) == w.at {
				return as.Rhs[i]
			}
		}
	}
	call, ok := w.at.(*ast.CallExpr)
	if !ok || len(w.use.Keys) == 0 {
		return nil
	}
	// The value follows the key, or a hash's field: HSET key field value.
	at := -1
	for i, a := range call.Args {
		if slices.Contains(w.use.Keys, a) {
			at = i
		}
	}
	if at >= 0 && at+1 < len(call.Args) {
		return call.Args[at+1]
	}
	return nil
}

// opaqueCall returns a call on w's side of the gate to a function value,
// or to a method of an interface the module declares (moduleWork), whose
// work the analysis cannot see: a callback or a processor the check
// guards; nil when there is none.
func (f *fn) opaqueCall(rd, w *event, side, gate *cfg.Block) *ast.CallExpr {
	info := f.pass.TypesInfo
	var found *ast.CallExpr
	for _, b := range f.g.Blocks {
		if !b.Live || !(b == side || f.reaches(side, b, gate)) {
			continue
		}
		for _, n := range b.Nodes {
			ast.Inspect(n, func(x ast.Node) bool {
				switch x.(type) {
				case *ast.FuncLit, *ast.DeferStmt:
					return false // runs elsewhere, or at the return: a span's end
				}
				call, ok := x.(*ast.CallExpr)
				if found != nil {
					return false
				}
				if !ok || ast.Expr(call) == w.at || ast.Expr(call) == rd.at {
					return found == nil
				}
				if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
					return found == nil
				}
				if _, ok := typeutil.Callee(info, call).(*types.Var); ok || f.moduleWork(call) {
					found = call
				}
				return found == nil
			})
		}
	}
	return found
}

// moduleWork reports whether call runs work behind an interface declared
// in the module being analysed: a consumer's Processor, a job's Handler,
// whose implementations the team writes and whose effects the analysis
// does not see. A dependency's interface (a Redis client, a broker) is
// not: its calls are often idempotent themselves (asynq's SADD of a
// queue's name under a memo of published queues). Nor are a method that
// reads (Get, Load, Find, Is, Len, String) or one of a logger, a meter or
// a tracer, named by the method or by its interface (Metrics.Inc,
// Tracer.Start).
func (f *fn) moduleWork(call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Pkg() == nil || effect.Stdlib(fn.Pkg().Path()) || !effect.OwnInterface(f.pass.Pkg, fn) {
		return false
	}
	recv := fn.Signature().Recv()
	if recv == nil || !types.IsInterface(recv.Type()) {
		return false
	}
	if slices.ContainsFunc(f.eff.Of(call), func(u effect.Use) bool { return !u.External }) {
		return false // a read, a write or a claim: paired on its own
	}
	ws := match.Words(fn.Name())
	if len(ws) == 0 || slices.Contains(readWords, ws[0]) ||
		slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(logWords, w) || slices.Contains(meterWords, w) }) {
		return false
	}
	if n, ok := types.Unalias(recv.Type()).(*types.Named); ok {
		return !slices.ContainsFunc(match.Words(n.Obj().Name()), func(w string) bool { return slices.Contains(instrumentWords, w) })
	}
	return true
}

// readWords begin the names of methods that read or describe rather than
// act: getters, lookups, predicates, conversions.
var readWords = []string{"get", "load", "find", "lookup", "fetch", "read", "list", "query", "count", "exists", "contains",
	"is", "has", "can", "should", "len", "size", "string", "name", "key", "id", "peek", "check", "validate", "parse",
	"marshal", "unmarshal", "encode", "decode", "format", "clone", "copy", "equal", "compare", "now", "since"}

// meterWords name a meter's or a tracer's methods.
var meterWords = []string{"inc", "incr", "increment", "dec", "observe", "gauge", "histogram", "counter", "span", "metric", "metrics", "measure", "timing", "elapsed"}

// instrumentWords name the interfaces of loggers, meters and tracers.
var instrumentWords = []string{"logger", "log", "metrics", "metric", "meter", "tracer", "telemetry", "stats", "statsd", "recorder", "observer", "instrumentation", "monitor", "reporter"}

// dedupNamed reports whether the record or its key is named for the
// records that tell a repeated operation from a new one, which makes an
// overwrite after a check a dedup mark even where the work it guards is
// out of sight.
func (f *fn) dedupNamed(rd, w *event) bool {
	if match.DedupName(w.use.Target) || match.DedupName(rd.use.Target) {
		return true
	}
	for _, k := range append(slices.Clone(rd.use.Keys), w.use.Keys...) {
		if match.KeyColumn(types.ExprString(k)) || match.DedupName(match.KeyShape(f.pass.TypesInfo, k)) {
			return true
		}
	}
	return false
}

// taint is what a read found: the variables that hold its results, and
// the condition it is itself part of.
type taint struct {
	vars map[*types.Var]bool
	cond ast.Node // the read's node when it is a condition
}

// taint follows rd's results through the function: the variables its
// statement assigns, its destinations (Scan(&v), First(&v)), and every
// variable assigned from those, flow-insensitively.
func (f *fn) taint(rd *event) *taint {
	info := f.pass.TypesInfo
	t := &taint{vars: map[*types.Var]bool{}}
	if _, ok := rd.node.(ast.Expr); ok {
		t.cond = rd.node
	}
	mark := func(e ast.Expr) {
		if v := effect.RootVar(info, e); v != nil {
			t.vars[v] = true
		}
	}
	targets := func(n ast.Node) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				mark(l)
			}
		case *ast.ValueSpec:
			for _, l := range n.Names {
				mark(l)
			}
		case *ast.DeclStmt:
			if gd, ok := n.Decl.(*ast.GenDecl); ok {
				for _, s := range gd.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, l := range vs.Names {
							mark(l)
						}
					}
				}
			}
		}
		ast.Inspect(n, func(x ast.Node) bool {
			if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
				mark(u.X)
			}
			return true
		})
	}
	targets(rd.node)
	for _, d := range rd.use.Dest {
		mark(d)
	}
	if call, ok := rd.at.(*ast.CallExpr); ok && rd.use.ViaReceiver {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			mark(sel.X) // p.load(ctx) leaves what it found in p
		}
	}
	f.spread(t, rd, targets)
	return t
}

// loadedTaint is the taint of what a sync.Map's LoadOrStore loaded: the
// variable its first result is assigned to, not its loaded flag, which
// is the claim's answer.
func (f *fn) loadedTaint(rd *event) *taint {
	info := f.pass.TypesInfo
	t := &taint{vars: map[*types.Var]bool{}}
	as, ok := rd.node.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != rd.at {
		return t
	}
	if v := effect.RootVar(info, as.Lhs[0]); v != nil {
		t.vars[v] = true
	}
	f.spread(t, rd, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if v := effect.RootVar(info, l); v != nil {
					t.vars[v] = true
				}
			}
		case *ast.DeclStmt:
			if gd, ok := n.Decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok {
						for _, l := range vs.Names {
							if v := effect.RootVar(info, l); v != nil {
								t.vars[v] = true
							}
						}
					}
				}
			}
		}
	})
	return t
}

// loadsValue reports whether rd is a sync.Map's LoadOrStore whose loaded
// value is kept: a read of the entry as much as a claim of its key. A
// check of what the entry holds (an ID in a list, a state) and a Store
// of a value made from it are two steps again.
func loadsValue(rd *event) bool {
	if rd.use.Op != match.OpClaim || rd.use.What != "LoadOrStore" || !strings.HasPrefix(rd.use.Record, "syncmap ") {
		return false
	}
	as, ok := rd.node.(*ast.AssignStmt)
	if !ok || len(as.Lhs) == 0 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != rd.at {
		return false
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	return !ok || id.Name != "_"
}

// spread grows t, flow-insensitively, with every variable assigned from
// one of its variables; targets marks the variables a statement assigns.
func (f *fn) spread(t *taint, rd *event, targets func(ast.Node)) {
	for range 4 {
		grew := false
		ast.Inspect(f.body, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.AssignStmt, *ast.ExprStmt, *ast.DeclStmt:
			default:
				return true
			}
			if n == rd.node || !f.mentions(n, t) {
				return true
			}
			before := len(t.vars)
			errs := map[*types.Var]bool{}
			for v := range t.vars {
				errs[v] = true
			}
			targets(n)
			// The error of a later call given what the read found says
			// that call failed, not what the read found; and err is one
			// variable reused by every call after it.
			for v := range t.vars {
				if !errs[v] && types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
					delete(t.vars, v)
				}
			}
			grew = grew || len(t.vars) > before
			return true
		})
		if !grew {
			break
		}
	}
}

// mentions reports whether n uses a variable of t, outside the left-hand
// side of an assignment.
func (f *fn) mentions(n ast.Node, t *taint) bool {
	if as, ok := n.(*ast.AssignStmt); ok {
		return slices.ContainsFunc(as.Rhs, func(e ast.Expr) bool { return f.mentions(e, t) })
	}
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			if v, ok := f.pass.TypesInfo.Uses[id].(*types.Var); ok && t.vars[v] {
				found = true
			}
		}
		return !found
	})
	return found
}

// gate returns the condition that decides, from what rd found, whether w
// runs, and the successor of its block on w's side; nil when none does.
// A condition on the read's error alone (err != nil) decides only when
// w lies on its failing side: `if err != nil { return err }` before a
// write says nothing about whether the record exists.
func (f *fn) gate(rd, w *event, t *taint) (*cfg.Block, *cfg.Block) {
	return f.gateOn(rd, w, t, false)
}

// claimGates reports whether a condition on what claim c answered (SET
// NX's boolean, an INSERT's rows affected), t its taint, decides whether
// w runs: one side goes on to w, the other leaves without it.
func (f *fn) claimGates(c, w *event, t *taint) bool {
	b, _ := f.gateOn(c, w, t, true)
	return b != nil
}

// gateOn is gate, reading what rd answered as a lookup's result, or, with
// answer, as a claim's: then neither side counts as "found", since a
// claim's count of 0 and a lookup's mean opposite things.
func (f *fn) gateOn(rd, w *event, t *taint, answer bool) (*cfg.Block, *cfg.Block) {
	f.gateTaint = t
	defer func() { f.gateTaint = nil }()
	for _, b := range f.g.Blocks {
		if !b.Live || len(b.Succs) != 2 || len(b.Nodes) == 0 {
			continue
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok {
			continue
		}
		if tag := f.caseTag(cond); cond != t.cond && !f.mentions(cond, t) && (tag == nil || !(f.mentions(tag, t) || contains(tag, rd.at))) {
			continue
		}
		if b != rd.block && !f.reaches(rd.block, b, nil) {
			continue
		}
		if f.staleErr(cond, t, rd) {
			continue
		}
		errSide, errOnly := f.errorSide(cond, t, b)
		present := -1
		if !answer {
			present = f.presentSide(cond, t)
		}
		for i, s := range b.Succs {
			other := b.Succs[1-i]
			if errOnly && s != errSide {
				continue
			}
			if present == i {
				continue // written when the read found the record: an extension, not a creation
			}
			if f.reachesNode(s, w, b) && f.escapes(other, w.block, b) && !(errOnly && f.reachesNode(other, w, b)) {
				return b, s
			}
		}
	}
	return nil, nil
}

// presenceFlag reports whether v is a flag set by hand from what the read
// found: assigned true or false inside an if (or a case) whose condition
// reads the read's result, as found = false is when its error says
// nothing was found. Its name says which way round it is (presentSide).
func (f *fn) presenceFlag(v *types.Var, t *taint) bool {
	key := flagOf{v, t}
	if flag, ok := f.flags[key]; ok {
		return flag
	}
	if f.flags == nil {
		f.flags = map[flagOf]bool{}
	}
	info := f.pass.TypesInfo
	flag := false
	defer func() { f.flags[key] = flag }()
	ast.PreorderStack(f.body, nil, func(n ast.Node, stack []ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if flag || !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return !flag
		}
		if id, ok := as.Lhs[0].(*ast.Ident); !ok || info.ObjectOf(id) != v {
			return true
		}
		if c, ok := ast.Unparen(as.Rhs[0]).(*ast.Ident); !ok || (c.Name != "true" && c.Name != "false") {
			return true
		}
		for _, a := range stack {
			switch a := a.(type) {
			case *ast.IfStmt:
				if f.mentions(a.Cond, t) {
					flag = true
				}
			case *ast.CaseClause:
				for _, e := range a.List {
					if f.mentions(e, t) {
						flag = true
					}
				}
			}
		}
		return true
	})
	return flag
}

// flagOf is a variable and the read whose answer it may stand for.
type flagOf struct {
	v *types.Var
	t *taint
}

// onlyWhenPresent reports whether w runs only on paths where rd found the
// record: with every branch that goes on when the record was found cut
// (the side presentSide names), w cannot be reached from rd. A write there
// extends or replaces what was found, as an appended history row does
// when a flag such as found reached it through found && ..., rather than
// creating what two callers both missed.
func (f *fn) onlyWhenPresent(rd, w *event, t *taint) bool {
	if rd.block == w.block {
		return false
	}
	cut := map[*cfg.Block]*cfg.Block{} // a condition's block -> its successor that means found
	for _, b := range f.g.Blocks {
		if !b.Live || len(b.Succs) != 2 || len(b.Nodes) == 0 {
			continue
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok || !f.mentions(cond, t) {
			continue
		}
		if i := f.presentSide(cond, t); i >= 0 {
			cut[b] = b.Succs[i]
		}
	}
	if len(cut) == 0 {
		return false
	}
	seen := map[*cfg.Block]bool{rd.block: true}
	stack := []*cfg.Block{rd.block}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range x.Succs {
			if s == cut[x] || seen[s] {
				continue
			}
			if s == w.block {
				return false
			}
			seen[s] = true
			stack = append(stack, s)
		}
	}
	return true
}

// contains reports whether the node outer holds inner.
func contains(outer ast.Node, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

// caseTag returns the tag of the switch whose case expression cond is:
// the control-flow graph has `case "done":` for `switch status`.
func (f *fn) caseTag(cond ast.Expr) ast.Expr {
	if f.tags == nil {
		f.tags = map[ast.Expr]ast.Expr{}
		ast.Inspect(f.body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok || sw.Tag == nil {
				return true
			}
			for _, cc := range sw.Body.List {
				for _, e := range cc.(*ast.CaseClause).List {
					f.tags[e] = sw.Tag
				}
			}
			return true
		})
	}
	return f.tags[cond]
}

// errorSide reads a condition that compares only error results of the
// read with nil, and returns the successor on which the error is set.
func (f *fn) errorSide(cond ast.Expr, t *taint, b *cfg.Block) (*cfg.Block, bool) {
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || (be.Op != token.EQL && be.Op != token.NEQ) {
		return nil, false
	}
	x, y := ast.Unparen(be.X), ast.Unparen(be.Y)
	if isNil(f.pass.TypesInfo, x) {
		x, y = y, x
	}
	if !isNil(f.pass.TypesInfo, y) {
		return nil, false
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return nil, false
	}
	v, ok := f.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || !t.vars[v] || !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
		return nil, false
	}
	if be.Op == token.NEQ {
		return b.Succs[0], true
	}
	return b.Succs[1], true
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// reaches reports whether to is reachable from from's successors without
// passing through avoid.
func (f *fn) reaches(from, to, avoid *cfg.Block) bool {
	seen := map[*cfg.Block]bool{}
	stack := slices.Clone(from.Succs)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if seen[x] || x == avoid {
			continue
		}
		seen[x] = true
		stack = append(stack, x.Succs...)
	}
	return false
}

// reachesNode reports whether e's call is reachable from block s (itself
// included) without passing through avoid.
func (f *fn) reachesNode(s *cfg.Block, e *event, avoid *cfg.Block) bool {
	return s == e.block || f.reaches(s, e.block, avoid)
}

// escapes reports whether from s control can leave the function, or come
// back to the condition cond (the next turn of a loop), without passing
// through the block w.
func (f *fn) escapes(s, w, cond *cfg.Block) bool {
	seen := map[*cfg.Block]bool{}
	stack := []*cfg.Block{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == cond {
			return true
		}
		if seen[x] || x == w {
			continue
		}
		seen[x] = true
		if len(x.Succs) == 0 {
			return true
		}
		if ok := f.unrelatedErrCheck(x); ok >= 0 {
			// if err != nil { return err } of another call: a failure
			// of that call, not a way around w the read decides.
			stack = append(stack, x.Succs[ok])
			continue
		}
		stack = append(stack, x.Succs...)
	}
	return false
}

// unrelatedErrCheck returns, for a block ending in a comparison of an
// error variable with nil that the read being paired has not tainted, the
// index of the successor on which the error is nil; -1 otherwise.
func (f *fn) unrelatedErrCheck(b *cfg.Block) int {
	if f.gateTaint == nil || len(b.Succs) != 2 || len(b.Nodes) == 0 {
		return -1
	}
	cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
	if !ok {
		return -1
	}
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || (be.Op != token.EQL && be.Op != token.NEQ) {
		return -1
	}
	x, y := ast.Unparen(be.X), ast.Unparen(be.Y)
	if isNil(f.pass.TypesInfo, x) {
		x, y = y, x
	}
	id, ok := x.(*ast.Ident)
	if !ok || !isNil(f.pass.TypesInfo, y) {
		return -1
	}
	v, ok := f.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || f.gateTaint.vars[v] || !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
		return -1
	}
	if be.Op == token.NEQ {
		return 1
	}
	return 0
}

// sideEffect returns an effect on w's side of the gate other than the
// read and the write themselves: an External one, or an appending write
// to another record. With between, only one that can run before w.
func (f *fn) sideEffect(rd, w *event, gate, side *cfg.Block, between bool) *event {
	for _, s := range f.events {
		if s.at == w.at || s.at == rd.at {
			continue
		}
		// Work that does harm when done twice: an External effect, or a
		// write that adds to another record (an INSERT, an UPDATE that adds
		// to a column). Overwrites (SET, SADD, an
		// UPDATE) done twice leave what once leaves.
		if !s.use.External && !(s.use.Op == match.OpUpdate && s.use.Increments && s.use.Record != w.use.Record) &&
			(s.use.Op != match.OpWrite || !s.use.Appends || s.use.Shape && !f.outwardCreate(rd, w, s) || s.use.Record == w.use.Record) {
			continue
		}
		if s.use.External && len(s.use.Keys) > 0 && effect.SameKey(rd.atoms, s.atoms, rd.use.Keys, s.use.Keys) {
			continue // sent under an idempotency key made from the key checked: its receiver runs it once
		}
		if f.onFailureOf(s, w) {
			continue // w undoes what was recorded for s when s failed: a rollback, not the act
		}
		if !f.reachesNode(side, s, gate) {
			continue
		}
		if between {
			if s.block == w.block {
				if s.at.Pos() >= w.at.Pos() {
					continue
				}
			} else if !f.reaches(s.block, w.block, gate) {
				continue
			}
		}
		return s
	}
	return nil
}

// onFailureOf reports whether w runs where s's call failed (see
// failureBody): it handles s's failure (a mark taken back, a status set
// to failed), and s did not happen.
func (f *fn) onFailureOf(s, w *event) bool {
	body := f.failureBody(s.at)
	return body != nil && contains(body, w.at)
}

// outwardCreate reports whether s, a create inferred from an interface
// method's name (CreatePayment, CreateCharge, CreateMessage), makes
// something outside the stores that rd and w keep: it goes through
// another receiver than theirs, one that is no store (s.psp, s.gateway,
// h.mailer, not s.repo or s.orders' OrderRepository), and neither it nor
// w is given a transaction or runs in a callback, as writes one
// transaction keeps together are. A payment created twice is two
// payments; a repository's second row is its own business.
func (f *fn) outwardCreate(rd, w, s *event) bool {
	if s.use.Target == "" || s.use.Target == rd.use.Target || s.use.Target == w.use.Target || s.use.Callee == nil {
		return false
	}
	if storeWord(s.use.Target) || storeWord(s.use.Callee.Name()) {
		return false
	}
	if recv := s.use.Callee.Signature().Recv(); recv != nil {
		if n, ok := types.Unalias(recv.Type()).(*types.Named); ok && storeWord(n.Obj().Name()) {
			return false
		}
	}
	for _, e := range []*event{s, w} {
		call, ok := ast.Unparen(e.at).(*ast.CallExpr)
		if !ok {
			return false
		}
		if slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return txLike(f.pass.TypesInfo.TypeOf(a)) }) {
			return false
		}
	}
	inLit := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit.Pos() <= s.at.Pos() && s.at.End() <= lit.End() {
			inLit = true
		}
		return !inLit
	})
	return !inLit
}

// storeWords name a store: a receiver, an interface or a method with one
// of them in its name keeps records rather than acting on the world.
var storeWords = []string{"repo", "repository", "repositories", "store", "storage", "dao", "db", "database", "table",
	"queries", "querier", "cache", "tx", "transaction", "model", "models", "ledger", "record", "records"}

func storeWord(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(storeWords, w) })
}

// txLike reports whether t is a transaction handle (*sql.Tx, pgx.Tx,
// a module's Tx or Transaction type), by its type's name.
func txLike(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	ws := match.Words(n.Obj().Name())
	return slices.Contains(ws, "tx") || slices.Contains(ws, "transaction") || slices.Contains(ws, "txn")
}

// span is a lock taken at from: a mutex (mu) is given back by its
// Unlock calls, anything else when the function returns. at is the call
// that takes it; nil for a caller's lock and for WATCH, which excludes
// no one.
type span struct {
	from token.Pos
	mu   string
	at   ast.Expr
}

// unlock is a mutex's Unlock, not deferred, and where it runs.
type unlock struct {
	at    *ast.CallExpr
	mu    string
	block *cfg.Block
}

// covered reports whether one lock is held across both rd and w: taken
// before the read, and not given back on the way from the read to the
// write (an Unlock on an early return does not count).
func (f *fn) covered(rd, w *event) bool {
	return slices.ContainsFunc(f.locked, func(s span) bool {
		if s.from >= rd.at.Pos() {
			return false
		}
		for _, u := range f.unlocks {
			if u.mu != s.mu || u.at.Pos() < s.from {
				continue
			}
			afterRead := (u.block == rd.block && u.at.Pos() > rd.at.Pos()) || f.reaches(rd.block, u.block, nil)
			beforeWrite := (u.block == w.block && u.at.Pos() < w.at.Pos()) || f.reaches(u.block, w.block, nil)
			if afterRead && beforeWrite {
				return false
			}
		}
		return true
	})
}

// locks finds where the function holds a lock that makes its reads and
// writes one step, and whether it runs SERIALIZABLE.
func (f *fn) locks() {
	info := f.pass.TypesInfo
	for _, e := range f.events {
		switch {
		case e.use.Op == match.OpClaim && slices.ContainsFunc(f.events, func(x *event) bool {
			return x.use.Op == match.OpRead && x.use.Record != e.use.Record && x.at.Pos() > e.at.Pos()
		}):
			f.locked = append(f.locked, span{from: e.at.Pos(), at: e.at}) // a claim or lock on another record first
		case e.use.Op == match.OpRead && e.use.ForUpdate && slices.ContainsFunc(f.events, func(x *event) bool {
			return x.use.Op == match.OpRead && x.use.Record != e.use.Record && x.at.Pos() > e.at.Pos()
		}):
			f.locked = append(f.locked, span{from: e.at.Pos(), at: e.at}) // the parent row locked first
		}
	}
	type mutexCall struct {
		call     *ast.CallExpr
		lock     bool
		deferred bool
		mu       string
	}
	var mutexes []mutexCall
	var releases []*ast.CallExpr
	deferred := map[*ast.CallExpr]bool{}
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			deferred[n.Call] = true
		case *ast.CallExpr:
			if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "sync" {
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
					switch fn.Name() {
					case "Lock", "Unlock":
						mutexes = append(mutexes, mutexCall{n, fn.Name() == "Lock", deferred[n], types.ExprString(sel.X)})
					}
				}
			}
			if watchCommand(info, n) {
				f.locked = append(f.locked, span{from: n.Pos()}) // an optimistic transaction
			}
			if acquiresLock(info, n) {
				f.locked = append(f.locked, span{from: n.Pos(), mu: f.releaseVar(n), at: n}) // a lock helper: acquireLocks(ctx, keys)
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 0 && !deferred[n] {
				if v, ok := info.Uses[id].(*types.Var); ok {
					if _, isFunc := v.Type().Underlying().(*types.Signature); isFunc {
						releases = append(releases, n) // unlock(): maybe the release a lock helper returned
					}
				}
			}
			if c, ok := match.SQL(info, n); ok && c.Const && advisory.MatchString(c.Text) {
				f.locked = append(f.locked, span{from: n.Pos(), at: n})
			}
			if sqlSerializable(info, n) {
				f.serializable = true
			}
		case *ast.Ident:
			if n.Name == "LevelSerializable" || n.Name == "Serializable" {
				if _, ok := info.Uses[n].(*types.Const); ok {
					f.serializable = true
				}
			}
		}
		return true
	})
	for _, r := range releases {
		mu := "release " + types.ExprString(r.Fun)
		for _, b := range f.blocksOf(r) {
			f.unlocks = append(f.unlocks, unlock{at: r, mu: mu, block: b})
		}
	}
	for _, m := range mutexes {
		if m.lock {
			f.locked = append(f.locked, span{from: m.call.Pos(), mu: m.mu, at: m.call})
			continue
		}
		if m.deferred {
			continue
		}
		for _, b := range f.blocksOf(m.call) {
			f.unlocks = append(f.unlocks, unlock{at: m.call, mu: m.mu, block: b})
		}
	}
}

// blocksOf returns the blocks of the control-flow graph whose nodes hold x.
func (f *fn) blocksOf(x ast.Node) []*cfg.Block {
	var out []*cfg.Block
	for _, b := range f.g.Blocks {
		if slices.ContainsFunc(b.Nodes, func(n ast.Node) bool { return contains(n, x) }) {
			out = append(out, b)
		}
	}
	return out
}

// watchCommand reports whether call sends Redis's WATCH by name, as
// redigo's Do("WATCH", key) does: the MULTI/EXEC that follows fails if
// the key changed since, which makes the check and the act one step.
func watchCommand(info *types.Info, call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if v, ok := match.ConstString(info, a); ok {
			return strings.EqualFold(v, "WATCH")
		}
	}
	return false
}

var advisory = regexp.MustCompile(`(?i)\bpg_(try_)?advisory_(xact_)?lock|\bGET_LOCK\s*\(`)

func sqlSerializable(info *types.Info, call *ast.CallExpr) bool {
	c, ok := match.SQL(info, call)
	return ok && c.Const && strings.Contains(strings.ToUpper(c.Text), "SERIALIZABLE")
}

// duplicateHandled reports whether the function, after an appending
// write, tells a unique-constraint violation from other errors: the
// constraint, not the check, decides, so a retry fails cleanly.
func (f *fn) duplicateHandled(w *event) bool {
	return f.duplicateHandledBut(w, nil)
}

// duplicateHandledBut is duplicateHandled, reading no name of an object
// aside says: a lookup's own answer (isDuplicate) or a flag that carries
// it (ev.IsDuplicate) tells nothing about the write's error.
func (f *fn) duplicateHandledBut(w *event, aside func(types.Object) bool) bool {
	if !w.use.Appends {
		return false
	}
	info := f.pass.TypesInfo
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() < w.at.Pos() {
			return !found
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if strings.Contains(n.Value, "23505") || strings.Contains(strings.ToLower(n.Value), "duplicate key") ||
				strings.Contains(n.Value, "1062") {
				found = true
			}
		case *ast.Ident:
			if obj := info.Uses[n]; obj != nil && uniqueWord(obj.Name()) && (aside == nil || !aside(obj)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// rereadOnError reports whether, when the appending write w fails, the
// function reads the record it tried to add, by the same key: the
// "fallback check" after a First that found nothing (Create fails on the
// unique index when another caller won the race, and the read finds
// that caller's row). The constraint decides, as in duplicateHandled.
func (f *fn) rereadOnError(w *event) bool {
	if !w.use.Appends {
		return false
	}
	body := f.failureBody(w.at)
	return body != nil && slices.ContainsFunc(f.events, func(e *event) bool {
		return e.use.Op == match.OpRead && contains(body, e.at) && sameRecord(e.use.Record, w.use.Record) &&
			effect.SameKey(e.atoms, w.atoms, e.use.Keys, w.use.Keys)
	})
}

// failureBody returns the block that runs when the call at fails, or
// nil: the body of `if err := call; err != nil`, or of the first
// `if err != nil` after `err := call` (or `err = call.Error`) in the
// same block, with err not assigned again in between. Asked once per
// call.
func (f *fn) failureBody(at ast.Expr) *ast.BlockStmt {
	if body, ok := f.failures[at]; ok {
		return body
	}
	if f.failures == nil {
		f.failures = map[ast.Expr]*ast.BlockStmt{}
	}
	var body *ast.BlockStmt
	defer func() { f.failures[at] = body }()
	var stack []ast.Node // at's enclosing nodes, outermost first
	ast.PreorderStack(f.body, nil, func(n ast.Node, s []ast.Node) bool {
		if n == at {
			stack = slices.Clone(s)
		}
		return stack == nil && n.Pos() <= at.Pos() && at.End() <= n.End()
	})
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.IfStmt:
			if n.Init != nil && contains(n.Init, at) && f.nilTested(n.Cond) != nil {
				body = n.Body
			}
			return body
		case *ast.AssignStmt:
			if i == 0 {
				return nil
			}
			blk, ok := stack[i-1].(*ast.BlockStmt)
			if !ok {
				continue // the init of an if: the if decides
			}
			var errVar types.Object
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					if v := f.pass.TypesInfo.ObjectOf(id); v != nil && types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
						errVar = v
					}
				}
			}
			if errVar == nil {
				return nil
			}
			after := false
			for _, st := range blk.List {
				if !after {
					after = st == n
					continue
				}
				if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil && f.nilTested(ifs.Cond) == errVar {
					body = ifs.Body
					return body
				}
				reassigned := false
				ast.Inspect(st, func(m ast.Node) bool {
					if as, ok := m.(*ast.AssignStmt); ok {
						reassigned = reassigned || slices.ContainsFunc(as.Lhs, func(l ast.Expr) bool {
							id, ok := ast.Unparen(l).(*ast.Ident)
							return ok && f.pass.TypesInfo.ObjectOf(id) == errVar
						})
					}
					return !reassigned
				})
				if reassigned {
					return nil
				}
			}
			return nil
		case *ast.FuncLit, ast.Stmt:
			return nil
		}
	}
	return nil
}

// nilTested returns the variable cond compares as not nil (err != nil,
// nil != err), or nil.
func (f *fn) nilTested(cond ast.Expr) types.Object {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return nil
	}
	x := b.X
	if isNil(f.pass.TypesInfo, b.X) {
		x = b.Y
	} else if !isNil(f.pass.TypesInfo, b.Y) {
		return nil
	}
	if id, ok := ast.Unparen(x).(*ast.Ident); ok {
		return f.pass.TypesInfo.Uses[id]
	}
	return nil
}

func uniqueWord(name string) bool {
	ws := match.Words(name)
	return slices.Contains(ws, "unique") || slices.Contains(ws, "duplicate") || slices.Contains(ws, "duplicated") ||
		(slices.Contains(ws, "already") && (slices.Contains(ws, "exists") || slices.Contains(ws, "exist"))) ||
		(slices.Contains(ws, "conflict") && !slices.Contains(ws, "on"))
}

// firstOrCreate reports gorm's FirstOrCreate: a SELECT and an INSERT in
// one call, with the same race on any model.
func (c *checker) firstOrCreate(call *ast.CallExpr) {
	oc, ok := match.ORM(c.pass.TypesInfo, call)
	if !ok || oc.Op != match.ORMFirstOrCreate || oc.Model == "" {
		return
	}
	c.r.Reportf(call, "FirstOrCreate of %s is a SELECT then an INSERT and races with a concurrent retry; use Clauses(clause.OnConflict{DoNothing: true}).Create and treat RowsAffected == 0 as already done (checkthenact)", oc.Model)
}

// report reports w after the read rd; between is a side effect that runs
// after the check and before w, late a lock taken after the check, tested
// a test of what the found record holds that decides an update of it.
func (f *fn) report(rd, w *event, between *event, atomic bool, late *lateLock, opaque *ast.CallExpr, tested ast.Expr) {
	checkWhat := rd.use.What
	if rd.use.ForUpdate {
		checkWhat += " (which cannot lock a row that does not exist yet)"
	}
	at := f.where(rd.at.Pos())
	if rd.use.Callee != nil && !rd.use.Shape {
		checkWhat = fmt.Sprintf("%s in %s", checkWhat, rd.use.Callee.Name())
		at = rd.use.Where + ", called at " + at
	}
	target := w.use.Target
	if w.use.Callee != nil && !w.use.Shape {
		target = fmt.Sprintf("%s (by %s, at %s)", target, w.use.Callee.Name(), w.use.Where)
	}
	var made ast.Expr // the new object of a get-or-create
	if inMemory(w.use.Record) {
		made = f.handsOut(w)
	}
	var msg string
	switch {
	case atomic:
		msg = fmt.Sprintf("%s runs after the %s of %s at %s found nothing and before the %s of %s claims it, so two concurrent retries both run it; claim first (%s, in the check's place) and skip the work when nothing was claimed",
			between.use.What, checkWhat, rd.use.Target, at, w.use.What, target, claimAdvice(w.use.Record))
	case late != nil:
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry: the %s at %s is taken after the check and the record is not checked again under it, so a retry that checked before this write and locks after its release runs %s again; check again after taking the lock (double-checked locking), or lock before the check",
			w.use.What, target, checkWhat, at, calleeName(late.lock), f.where(late.lock.Pos()), types.ExprString(late.work.Fun))
	case tested != nil && (between != nil || opaque != nil || w.use.What != "UPDATE"):
		// A SQL UPDATE on its own has its advice below.
		also := ""
		switch {
		case between != nil:
			also = fmt.Sprintf(" (each running %s)", between.use.What)
		case opaque != nil:
			also = fmt.Sprintf(" (each running %s)", types.ExprString(opaque.Fun))
		}
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent update: both read the same record, both pass the test of %s at %s and both write it%s, so one write is lost or made from a stale read; make the write conditional on what was read (the tested fields, or a version, in its filter) and treat no record changed as lost",
			w.use.What, target, checkWhat, at, types.ExprString(tested), f.where(tested.Pos()), also)
	case between != nil:
		// An atomic write in w's place would still let the work run twice.
		subject := w.use.What + " of " + target
		if w.use.What == "INSERT" {
			subject = "INSERT into " + target
		}
		msg = fmt.Sprintf("%s after the %s at %s races with a concurrent retry: both find nothing and both run %s first; claim in the check's place (%s, before the work) and skip the work when nothing was claimed",
			subject, checkWhat, at, between.use.What, claimAdvice(w.use.Record))
	case inMemory(w.use.Record) && f.derived(rd, w):
		advice := "CompareAndSwap from the loaded value, going on only when it swaps (or LoadOrStore of the item's own key)"
		if strings.HasPrefix(w.use.Record, "map ") {
			advice = "one critical section from the lookup through the store, or a second look under the write lock"
		}
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry: both find the item missing from what they loaded, both go on, and one's update is lost; use %s",
			w.use.What, target, checkWhat, at, advice)
	case made != nil:
		advice := "LoadOrStore of the new one, going on with the value it returns (the one already there when its loaded result is true)"
		if strings.HasPrefix(w.use.Record, "map ") {
			advice = claimAdvice(w.use.Record)
		}
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent caller: both find nothing and both make a new %s, and the map keeps one while the other caller goes on with its own; use %s",
			w.use.What, target, checkWhat, at, types.TypeString(f.pass.TypesInfo.TypeOf(made), types.RelativeTo(f.pass.Pkg)), advice)
	case opaque != nil && !inMemory(w.use.Record):
		// A write made atomic in w's place would still let both run it.
		advice := claimAdvice(w.use.Record)
		switch {
		case strings.HasPrefix(w.use.Record, "redis ") && w.use.What == "HSET":
			advice = "HSETNX of the field"
		case strings.HasPrefix(w.use.Record, "redis "):
			advice = "SET NX"
		}
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry: both find nothing and both run %s first; claim in the check's place (%s, before the work) and skip the work when nothing was claimed",
			w.use.What, target, checkWhat, at, types.ExprString(opaque.Fun), advice)
	case strings.HasPrefix(w.use.Record, "mongo ") || strings.HasPrefix(w.use.Record, "dynamo ") || strings.HasPrefix(w.use.Record, "ent ") ||
		inMemory(w.use.Record):
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry; use %s", w.use.What, target, checkWhat, at, claimAdvice(w.use.Record))
	case w.use.What == "INSERT":
		msg = fmt.Sprintf("INSERT into %s after the %s at %s races with a concurrent retry; use INSERT ... ON CONFLICT DO NOTHING and treat no row inserted as already done", target, checkWhat, at)
	case w.use.What == "UPDATE":
		msg = fmt.Sprintf("UPDATE of %s after the %s at %s races with a concurrent retry; compare what was read in its WHERE clause (the status, or a version column) and treat no row updated as lost", target, checkWhat, at)
	case strings.HasPrefix(w.use.Access.Record, "sql ") || w.use.What == "Create":
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry; use Clauses(clause.OnConflict{DoNothing: true}).Create and treat RowsAffected == 0 as already done", w.use.What, target, checkWhat, at)
	case strings.HasPrefix(w.use.Record, "redis ") && w.use.What == "HSET":
		msg = fmt.Sprintf("HSET of %s after the %s at %s races with a concurrent retry; use HSetNX (HSETNX) of the field and treat false as already done", target, checkWhat, at)
	case strings.HasPrefix(w.use.Record, "redis "):
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry; use SetNX (SET NX) and treat false as already done", w.use.What, target, checkWhat, at)
	default:
		msg = fmt.Sprintf("%s of %s after the %s at %s races with a concurrent retry: both find nothing and both go on; make the write the check (an atomic insert-if-absent) and skip the work when it finds the record", w.use.What, target, checkWhat, at)
	}
	d := analysis.Diagnostic{
		Pos:     w.at.Pos(),
		End:     w.at.End(),
		Message: msg + " (checkthenact)",
		Related: []analysis.RelatedInformation{{Pos: rd.at.Pos(), End: rd.at.End(), Message: "the " + rd.use.What + " that checks first"}},
	}
	if between != nil {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: between.at.Pos(), End: between.at.End(),
			Message: "runs between the check and the write"})
	}
	if late != nil {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: late.lock.Pos(), End: late.lock.End(),
			Message: "the lock, taken after the check"})
	}
	if !atomic && f.sideEffect(rd, w, nil, rd.block, false) == nil && f.nothingElse(rd, w) {
		if fix, ok := f.onConflict(rd, w); ok {
			d.SuggestedFixes = []analysis.SuggestedFix{fix}
		}
	}
	f.r.Report(d)
}

// calleeName names the function a call calls, as written: Lock,
// LockContext, SetNX.
func calleeName(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return types.ExprString(e)
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return types.ExprString(call.Fun)
}

// derived reports whether w stores a value made from what rd loaded: a
// list with one more ID, an entry with its state moved on. The taint is
// flow-insensitive, so the stored value is followed back along the paths
// to w: a variable that held what was loaded but was given a new value
// on the way (op = newOperation() after a miss) stores the new value.
func (f *fn) derived(rd, w *event) bool {
	v := f.stored(w)
	if v == nil {
		return false
	}
	t := f.taint(rd)
	if loadsValue(rd) {
		t = f.loadedTaint(rd)
	}
	i := slices.Index(w.block.Nodes, w.node)
	if i < 0 || w.node == rd.node {
		return f.mentions(v, t)
	}
	return f.madeFrom(v, rd, t, w.block, i, 0)
}

// madeFrom reports whether e, evaluated before node i of block b, uses a
// variable of t that holds, on some path there, what rd found: the read
// reaches it with no other assignment between, or the assignment that
// does is itself made from what rd found.
func (f *fn) madeFrom(e ast.Node, rd *event, t *taint, b *cfg.Block, i, depth int) bool {
	if depth > 4 {
		return f.mentions(e, t)
	}
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		id, ok := x.(*ast.Ident)
		if found || !ok {
			return !found
		}
		v, ok := f.pass.TypesInfo.Uses[id].(*types.Var)
		if !ok || !t.vars[v] {
			return true
		}
		found = slices.ContainsFunc(f.reachingDefs(v, b, i, rd), func(d def) bool {
			return d.src == rd.node || d.src != nil && f.madeFrom(d.src, rd, t, d.b, d.i, depth+1)
		})
		return !found
	})
	return found
}

// def is an assignment of a variable: what it assigns from (nil for a
// declaration without a value), and where it is, node i of block b.
type def struct {
	src ast.Node
	b   *cfg.Block
	i   int
}

// reachingDefs returns the assignments of v nearest to node i of block b
// on each path back to it: what v can hold there. A path that reaches the
// read rd where it gives v its value ends there, with rd's node as src.
func (f *fn) reachingDefs(v *types.Var, b *cfg.Block, i int, rd *event) []def {
	if f.preds == nil {
		f.preds = map[*cfg.Block][]*cfg.Block{}
		for _, x := range f.g.Blocks {
			for _, s := range x.Succs {
				f.preds[s] = append(f.preds[s], x)
			}
		}
	}
	var out []def
	seen := map[*cfg.Block]bool{}
	var back func(b *cfg.Block, i int)
	back = func(b *cfg.Block, i int) {
		for j := i - 1; j >= 0; j-- {
			n := b.Nodes[j]
			if rd != nil && n == rd.node && f.gives(rd, v) {
				out = append(out, def{src: n, b: b, i: j})
				return
			}
			if src, ok := f.assigns(n, v); ok {
				out = append(out, def{src: src, b: b, i: j})
				return
			}
		}
		for _, p := range f.preds[b] {
			if !seen[p] {
				seen[p] = true
				back(p, len(p.Nodes))
			}
		}
	}
	back(b, i)
	return out
}

// gives reports whether the read rd leaves what it found in v: v is
// assigned its result, or is its destination (Scan(&v)), or the receiver
// of a method that loads into it.
func (f *fn) gives(rd *event, v *types.Var) bool {
	info := f.pass.TypesInfo
	if _, ok := f.assigns(rd.node, v); ok {
		return true
	}
	if slices.ContainsFunc(rd.use.Dest, func(d ast.Expr) bool { return effect.RootVar(info, d) == v }) {
		return true
	}
	if call, ok := rd.at.(*ast.CallExpr); ok && rd.use.ViaReceiver {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return effect.RootVar(info, sel.X) == v
		}
	}
	return false
}

// assigns reports whether the node n of the control-flow graph gives v a
// new value, and what from: the right-hand side, the collection a range
// loop walks, a call given &v. A field's or an element's assignment
// changes v's value without replacing it.
func (f *fn) assigns(n ast.Node, v *types.Var) (ast.Node, bool) {
	info := f.pass.TypesInfo
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == v
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		for j, l := range n.Lhs {
			if !is(l) {
				continue
			}
			switch {
			case n.Tok != token.ASSIGN && n.Tok != token.DEFINE:
				return n, true // v += x
			case len(n.Lhs) == len(n.Rhs):
				return n.Rhs[j], true
			}
			return n.Rhs[0], true
		}
	case *ast.ValueSpec:
		for j, name := range n.Names {
			if !is(name) {
				continue
			}
			switch len(n.Values) {
			case 0:
				return nil, true
			case len(n.Names):
				return n.Values[j], true
			}
			return n.Values[0], true
		}
	case *ast.Ident:
		if is(n) {
			if over := f.rangeOver(n); over != nil {
				return over, true // a range loop's key or value
			}
		}
		return nil, false // a condition: if ok
	case *ast.IncDecStmt:
		if is(n.X) {
			return n, true
		}
	}
	address := false
	ast.Inspect(n, func(x ast.Node) bool {
		if _, ok := x.(*ast.FuncLit); ok {
			return false
		}
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND && is(u.X) {
			address = true
		}
		return !address
	})
	return n, address // Scan(&v), json.Unmarshal(b, &v)
}

// rangeOver returns the collection walked by the range loop whose key or
// value id is.
func (f *fn) rangeOver(id *ast.Ident) ast.Node {
	var over ast.Node
	ast.Inspect(f.body, func(n ast.Node) bool {
		if r, ok := n.(*ast.RangeStmt); ok && (r.Key == id || r.Value == id) {
			over = r.X
		}
		return over == nil
	})
	return over
}

// handsOut returns the new object w stores when the function goes on
// with it: a get-or-create whose constructor's result (newOperation(...),
// &worker{...}) holds a lock, a channel or a cancel func, and is returned
// or used after the store. Two callers that both miss make two; the map
// keeps one and the other caller goes on with its own, two workers where
// there should be one. Unlike a cache fill's, what each caller holds is
// one of a kind, so the hit side returning what it found does not make it
// harmless.
func (f *fn) handsOut(w *event) ast.Expr {
	info := f.pass.TypesInfo
	id, ok := ast.Unparen(f.stored(w)).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	i := slices.Index(w.block.Nodes, w.node)
	if !ok || i < 0 {
		return nil
	}
	var made ast.Expr
	for _, d := range f.reachingDefs(v, w.block, i, nil) {
		if e, ok := d.src.(ast.Expr); ok && f.newObject(e) {
			made = e
		}
	}
	if made == nil {
		return nil
	}
	used := &taint{vars: map[*types.Var]bool{v: true}}
	for _, b := range f.g.Blocks {
		if !b.Live || b != w.block && !f.reaches(w.block, b, nil) {
			continue
		}
		for _, n := range b.Nodes {
			if (b != w.block || n.Pos() > w.node.End()) && f.mentions(n, used) {
				return made
			}
		}
	}
	return nil
}

// newObject reports whether e makes an object whose identity counts: the
// address of a composite literal, or what a constructor returns (a call
// that looks nothing up), a pointer to a struct that holds what the
// holders of one value coordinate through.
func (f *fn) newObject(e ast.Expr) bool {
	info := f.pass.TypesInfo
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if _, ok := ast.Unparen(x.X).(*ast.CompositeLit); !ok || x.Op != token.AND {
			return false
		}
	case *ast.CallExpr:
		if _, ok := typeutil.Callee(info, x).(*types.Func); !ok || f.lookup(x) {
			return false
		}
	default:
		return false
	}
	p, ok := types.Unalias(info.TypeOf(e)).(*types.Pointer)
	if !ok {
		return false
	}
	s, ok := p.Elem().Underlying().(*types.Struct)
	return ok && coordinates(s, 0)
}

// coordinates reports whether a struct holds, itself or in a struct field,
// a lock, a WaitGroup or Once, an atomic, a channel or a cancel func:
// state that two copies of one object would each keep on their own.
func coordinates(s *types.Struct, depth int) bool {
	for i := range s.NumFields() {
		t := types.Unalias(s.Field(i).Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
			switch path, name := n.Obj().Pkg().Path(), n.Obj().Name(); {
			case path == "sync" || path == "sync/atomic",
				path == "context" && (name == "CancelFunc" || name == "CancelCauseFunc"):
				return true
			}
		}
		switch u := s.Field(i).Type().Underlying().(type) {
		case *types.Chan:
			return true
		case *types.Struct:
			if depth < 2 && coordinates(u, depth+1) {
				return true
			}
		}
	}
	return false
}

// where names a position as file:line, the file by its base name.
func (c *checker) where(pos token.Pos) string {
	p := c.pass.Fset.Position(pos)
	name := p.Filename
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return fmt.Sprintf("%s:%d", name, p.Line)
}

// nothingElse reports whether, after the read's statement, the function
// calls nothing but the write and the standard library: then an atomic
// INSERT in the write's place settles the race. Any other call might be
// the work the check guards, which would still run twice.
func (f *fn) nothingElse(rd, w *event) bool {
	info := f.pass.TypesInfo
	clean := true
	ast.Inspect(f.body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !clean || !ok || call.Pos() < rd.node.End() || ast.Expr(call) == w.at {
			return clean
		}
		if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
			return true
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok || fn.Pkg() == nil || !(effect.Stdlib(fn.Pkg().Path()) || slices.Contains(bookkeeping, fn.Name())) {
			clean = false
		}
		return clean
	})
	return clean
}

// bookkeeping are the methods of rows, results and transactions that
// finish what the read and the write began.
var bookkeeping = []string{"Commit", "Rollback", "Close", "Err", "Scan", "Next", "RowsAffected", "LastInsertId"}

var (
	postgresPlaceholder = regexp.MustCompile(`\$[0-9]`)
	returning           = regexp.MustCompile(`(?i)\bRETURNING\b`)
	trailing            = regexp.MustCompile(`[\s;]*$`)
)

// onConflict is the mechanical fix of a Postgres INSERT written as one
// literal (in the call, or in a constant of this package), offered only
// when nothing but the INSERT follows the check: ON CONFLICT on the key
// column the check looked up, DO NOTHING. With work between the check and
// the INSERT, an atomic INSERT would only hide the race.
func (f *fn) onConflict(rd, w *event) (analysis.SuggestedFix, bool) {
	ra, wa := rd.use.Access, w.use.Access
	if wa.Call == nil || ra.Call == nil || w.use.What != "INSERT" {
		return analysis.SuggestedFix{}, false
	}
	wc, ok := match.SQL(f.pass.TypesInfo, wa.Call)
	rc, rok := match.SQL(f.pass.TypesInfo, ra.Call)
	if !ok || !rok || !postgresPlaceholder.MatchString(wc.Text) {
		return analysis.SuggestedFix{}, false
	}
	lit := f.literal(wc.Query)
	if lit == nil {
		return analysis.SuggestedFix{}, false
	}
	wst, rst := wc.Statement(), rc.Statement()
	target := ""
	for _, col := range rst.Columns {
		if slices.Contains(wst.Columns, col) {
			target = "(" + col + ") "
			break
		}
	}
	if target == "" {
		if i := slices.IndexFunc(wst.Columns, match.KeyColumn); i >= 0 {
			target = "(" + wst.Columns[i] + ") "
		}
	}
	clause := "ON CONFLICT " + target + "DO NOTHING"
	body := lit.Value[1 : len(lit.Value)-1]
	var at int
	var text string
	if loc := returning.FindStringIndex(body); loc != nil {
		at, text = loc[0], clause+" "
	} else {
		at, text = trailing.FindStringIndex(body)[0], " "+clause
	}
	pos := lit.Pos() + 1 + token.Pos(at)
	return analysis.SuggestedFix{
		Message:   "Add " + clause,
		TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}},
	}, true
}

// literal returns the string literal e is, or the literal of the
// package-level or local constant e names, when it is declared in this
// package as a single literal.
func (c *checker) literal(e ast.Expr) *ast.BasicLit {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return e
	case *ast.Ident:
		obj, ok := c.pass.TypesInfo.Uses[e].(*types.Const)
		if !ok || obj.Pkg() != c.pass.Pkg {
			return nil
		}
		var lit *ast.BasicLit
		for _, file := range c.pass.Files {
			ast.Inspect(file, func(n ast.Node) bool {
				spec, ok := n.(*ast.ValueSpec)
				if !ok {
					return lit == nil
				}
				for i, name := range spec.Names {
					if c.pass.TypesInfo.Defs[name] == obj && i < len(spec.Values) {
						lit, _ = spec.Values[i].(*ast.BasicLit)
					}
				}
				return false
			})
		}
		return lit
	}
	return nil
}

// foreignValue reports whether w overwrites its record with a value its
// caller chose apart from the key: a hold for this cart, a grant for this
// user. Two callers that both found the record absent then both write,
// and the first one's value is lost while it believes it holds the
// record. A value made from the key alone, or read from elsewhere by it
// (cache-aside), is the same whoever writes it.
func (f *fn) foreignValue(w *event) bool {
	v := f.stored(w)
	if v == nil {
		return false
	}
	info := f.pass.TypesInfo
	keys := map[*types.Var]bool{}
	for _, k := range w.use.Keys {
		for _, r := range effect.Roots(info, f.defs, k) {
			keys[r] = true
		}
	}
	foreign := false
	seen := map[*types.Var]bool{}
	var walk func(e ast.Expr, depth int)
	walk = func(e ast.Expr, depth int) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				// Into conversions and the standard library's encoders and
				// formatters; not into calls that fetch or compute.
				if tv, ok := info.Types[n.Fun]; ok && tv.IsType() {
					return true
				}
				fn, ok := typeutil.Callee(info, n).(*types.Func)
				if !ok || fn.Pkg() == nil || !pureStd(fn.Pkg().Path()) {
					foreign = f.allots(n, keys)
					return false
				}
			case *ast.SelectorExpr:
				if _, ok := info.Selections[n]; !ok {
					return false
				}
			case *ast.Ident:
				v, ok := info.Uses[n].(*types.Var)
				if !ok || v.IsField() || seen[v] || keys[v] || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
					return true
				}
				seen[v] = true
				if match.IsContext(v.Type()) {
					return true
				}
				defs := f.defs.Values[v]
				local := v.Pos() >= f.body.Pos() && v.Pos() < f.body.End()
				if len(defs) == 0 && v != f.recv && !local {
					foreign = true // a parameter, or a variable from outside the body
				}
				if depth < 4 {
					for _, d := range defs {
						walk(d, depth+1)
					}
				}
			}
			return !foreign
		})
	}
	walk(v, 0)
	return foreign
}

// allots reports whether call hands out a value of its own, not given
// the key: a pager from nextPager(), a code from mint(), the next courier
// of a pool behind an interface, a counter's next number, a random ID.
// Two callers that both found the key absent get two, and the one whose
// write lands first has handed out what the map no longer holds. A call
// given the key may be a lookup by it (cache-aside), and a function or
// method the analysis sees into (newLimiter()) builds a value like any
// other.
func (f *fn) allots(call *ast.CallExpr, keys map[*types.Var]bool) bool {
	info := f.pass.TypesInfo
	if t := info.TypeOf(call); t == nil || isTime(t) {
		return false // a clock: a mark, which marker reads
	}
	given := slices.Clone(call.Args)
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		given = append(given, sel.X)
	}
	for _, a := range given {
		for _, r := range effect.Roots(info, f.defs, a) {
			if keys[r] {
				return false
			}
		}
	}
	switch callee := typeutil.Callee(info, call).(type) {
	case *types.Var:
		return true // a function value
	case *types.Func:
		if name, ok := match.Fresh(info, call); ok {
			return name != "time.Now"
		}
		if callee.Pkg() != nil && callee.Pkg().Path() == "sync/atomic" {
			return true
		}
		recv := callee.Signature().Recv()
		return recv != nil && types.IsInterface(recv.Type())
	}
	return false
}

func isTime(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}

// inMemory reports whether record is kept in process memory: a map
// behind a mutex, a sync.Map, or an in-memory cache library.
func inMemory(record string) bool {
	return strings.HasPrefix(record, "syncmap ") || strings.HasPrefix(record, "map ") || strings.HasPrefix(record, "cache ")
}

// claimAdvice names the atomic insert-if-absent of the store a record
// lives in.
func claimAdvice(record string) string {
	switch {
	case strings.HasPrefix(record, "mongo "):
		return "InsertOne of a document whose _id is the key, treating mongo.IsDuplicateKeyError as already done"
	case strings.HasPrefix(record, "dynamo "):
		return "PutItem with ConditionExpression attribute_not_exists on the key, treating ConditionalCheckFailedException as already done"
	case strings.HasPrefix(record, "ent "):
		return "Create with a unique index on the key, treating ent.IsConstraintError as already done, or OnConflict(...).DoNothing()"
	case strings.HasPrefix(record, "redis hash "):
		return "HSETNX of the field, or SET NX of a claim key"
	case strings.HasPrefix(record, "syncmap "):
		return "LoadOrStore, going on only when its loaded result is false"
	case strings.HasPrefix(record, "map "):
		return "a store in the same critical section as the check, or a second check under the write lock"
	case strings.HasPrefix(record, "cache "):
		if claim := match.MemCacheClaim(record); claim != "" {
			return "the cache's " + claim
		}
		return "LoadOrStore on a sync.Map, or SET NX in a shared store, in place of this cache, which has no add-if-absent"
	}
	return "INSERT ... ON CONFLICT DO NOTHING, or SET NX"
}

// cacheHit reports whether the side of the gate where the read found its
// record returns what it found: a read-through cache, whose fill after a
// miss stores what the function works out and returns. Two callers that
// both miss both fill it; the later overwrite leaves what one leaves.
func (f *fn) cacheHit(gate, side *cfg.Block, t *taint) bool {
	var found *cfg.Block
	for _, s := range gate.Succs {
		if s != side {
			found = s
		}
	}
	if found == nil {
		return false
	}
	hit := false
	for _, b := range f.g.Blocks {
		if hit || !b.Live || !(b == found || f.reaches(found, b, gate)) {
			continue
		}
		for _, n := range b.Nodes {
			ret, ok := n.(*ast.ReturnStmt)
			if !ok {
				continue
			}
			for _, r := range ret.Results {
				if tr := f.pass.TypesInfo.TypeOf(r); tr != nil && types.Implements(tr, errorType) {
					continue // the read's failure passed on, not its record
				}
				if f.mentions(r, t) {
					hit = true
				}
			}
		}
	}
	return hit
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// pureStd reports whether a standard-library package only converts,
// encodes or formats what it is given.
func pureStd(path string) bool {
	switch path {
	case "fmt", "strconv", "strings", "bytes", "encoding/json", "encoding/base64", "encoding/hex", "encoding/xml", "encoding/gob":
		return true
	}
	return false
}

// staleErr reports whether cond mentions what rd found only through an
// error variable that another call assigned between rd and cond: err is
// one variable reused by every call, and after locker, err := lock(...)
// it holds the lock's failure, not the read's.
func (f *fn) staleErr(cond ast.Expr, t *taint, rd *event) bool {
	info := f.pass.TypesInfo
	errType := types.Universe.Lookup("error").Type()
	var errs []*types.Var
	other := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && t.vars[v] {
				if types.Identical(v.Type(), errType) {
					errs = append(errs, v)
				} else {
					other = true
				}
			}
		}
		return true
	})
	if other || len(errs) == 0 || cond.Pos() < rd.at.End() {
		return false
	}
	for _, v := range errs {
		reassigned := false
		ast.Inspect(f.body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || as.Pos() <= rd.at.End() || as.End() > cond.Pos() || contains(as, rd.at) {
				return !reassigned
			}
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) == v && !f.decodes(as, rd) {
					reassigned = true
				}
			}
			return !reassigned
		})
		if !reassigned {
			return false
		}
	}
	return true
}

// decodes reports whether as reads what rd returned itself (not a value
// computed from it): fc, err := pgx.CollectOneRow(rows, ...) after rows,
// err := pool.Query(...), whose error still says whether a row was found.
func (f *fn) decodes(as *ast.AssignStmt, rd *event) bool {
	info := f.pass.TypesInfo
	direct := map[*types.Var]bool{}
	if ras, ok := rd.node.(*ast.AssignStmt); ok {
		for _, l := range ras.Lhs {
			if v := effect.RootVar(info, l); v != nil {
				direct[v] = true
			}
		}
	}
	found := false
	for _, r := range as.Rhs {
		ast.Inspect(r, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && direct[v] && !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// acquiresLock reports whether call takes a lock through a helper or a
// lock library the checks do not model: a function or method named for
// a lock (acquireLineageLocks, AcquireLock, locker.Lock, ObtainLock) that
// is not its release. The lock is taken to be held until the function
// returns, as such helpers' deferred releases hold it.
func acquiresLock(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || (fn.Pkg() != nil && fn.Pkg().Path() == "sync") {
		return false
	}
	ws := match.Words(fn.Name())
	if !slices.ContainsFunc(ws, func(w string) bool { return w == "lock" || w == "locks" || w == "mutex" }) {
		return false
	}
	return !slices.ContainsFunc(ws, func(w string) bool {
		return w == "unlock" || w == "release" || w == "free" || w == "is" || w == "has" || w == "locked" || w == "extend" || w == "refresh"
	})
}

// callersLocked finds the unexported functions of the package each of
// whose calls is made under a lock its caller holds (a mutex not yet
// unlocked, a lock helper, an advisory lock, a callback run under a
// lock): their reads and writes are one step to every other caller.
func (c *checker) callersLocked(ins *inspector.Inspector, underLockLits map[*ast.FuncLit]bool) map[*types.Func]bool {
	info := c.pass.TypesInfo
	total := map[*types.Func]int{}
	locked := map[*types.Func]int{}
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil)}, func(n ast.Node) {
		d := n.(*ast.FuncDecl)
		if d.Body == nil {
			return
		}
		g := c.cfgs.FuncDecl(d)
		if g == nil {
			return
		}
		f := &fn{checker: c, body: d.Body, g: g}
		f.locks()
		var lits []*ast.FuncLit
		ast.Inspect(d.Body, func(x ast.Node) bool {
			if x == nil {
				return true
			}
			switch x := x.(type) {
			case *ast.FuncLit:
				lits = append(lits, x)
			case *ast.CallExpr:
				callee := typeutil.StaticCallee(info, x)
				if callee == nil || callee.Pkg() != c.pass.Pkg || callee.Exported() {
					return true
				}
				callee = callee.Origin()
				total[callee]++
				inLockedLit := slices.ContainsFunc(lits, func(l *ast.FuncLit) bool { return underLockLits[l] && contains(l, x) })
				if inLockedLit || f.lockedAt(x.Pos()) {
					locked[callee]++
				}
			}
			return true
		})
	})
	out := map[*types.Func]bool{}
	for fn, n := range total {
		if n > 0 && locked[fn] == n {
			out[fn] = true
		}
	}
	return out
}

// lockedAt reports whether a lock of the function is held at pos: taken
// before it and, for a mutex, not unlocked between.
func (f *fn) lockedAt(pos token.Pos) bool {
	return slices.ContainsFunc(f.locked, func(s span) bool {
		if s.from >= pos {
			return false
		}
		return !slices.ContainsFunc(f.unlocks, func(u unlock) bool {
			return u.mu == s.mu && u.at.Pos() > s.from && u.at.Pos() < pos
		})
	})
}

// releaseVar names the release a lock helper's call hands back, as the
// unlocks of locks() name it: "release unlock" for unlock, err :=
// acquire(...). It is "" when the result is not kept in a variable.
func (f *fn) releaseVar(call *ast.CallExpr) string {
	var name string
	ast.Inspect(f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != call || len(as.Lhs) == 0 {
			return name == ""
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
			if _, isFunc := f.pass.TypesInfo.TypeOf(id).Underlying().(*types.Signature); isFunc {
				name = "release " + id.Name
			}
		}
		return false
	})
	return name
}

// presentWords name a boolean that is true when a record was found.
var presentWords = []string{"found", "exists", "exist", "seen", "present", "ok", "has", "done", "processed", "taken", "held", "duplicate", "dup"}

// presentSide returns the index of the successor of a condition on what
// the read found that runs when the record is there (0 when the condition
// is true, 1 when false), or -1 when the condition does not say: raw ==
// nil, found, !exists, n > 0, errors.Is(err, sql.ErrNoRows).
func (f *fn) presentSide(cond ast.Expr, t *taint) int {
	info := f.pass.TypesInfo
	tainted := func(e ast.Expr) bool {
		v := effect.RootVar(info, e)
		return v != nil && t.vars[v]
	}
	flip := func(i int) int {
		if i < 0 {
			return i
		}
		return 1 - i
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return flip(f.presentSide(c.X, t))
		}
	case *ast.Ident:
		if v, ok := info.Uses[c].(*types.Var); ok && (t.vars[v] || f.presenceFlag(v, t)) && isBoolType(v.Type()) {
			if ws := match.Words(v.Name()); len(ws) > 0 && slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(presentWords, w) }) {
				return 0
			}
		}
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(info, c).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is" && len(c.Args) == 2 && tainted(c.Args[0]) && notFoundName(c.Args[1]) {
			return 1 // true: not found
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			// true needs both: found if either operand's true side is
			if f.presentSide(c.X, t) == 0 || f.presentSide(c.Y, t) == 0 {
				return 0
			}
			return -1
		case token.LOR:
			// false needs both false: found if either operand's false side is
			if f.presentSide(c.X, t) == 1 || f.presentSide(c.Y, t) == 1 {
				return 1
			}
			return -1
		}
		x, y := ast.Unparen(c.X), ast.Unparen(c.Y)
		if !tainted(x) {
			x, y = y, x
		}
		if !tainted(x) {
			return -1
		}
		xt := info.TypeOf(x)
		switch {
		case isNil(info, y) && !types.Identical(xt, types.Universe.Lookup("error").Type()):
			// raw == nil: true when nothing was found
			if c.Op == token.EQL {
				return 1
			}
			if c.Op == token.NEQ {
				return 0
			}
		case notFoundName(y) && (c.Op == token.EQL || c.Op == token.NEQ):
			if c.Op == token.EQL {
				return 1
			}
			return 0
		case isZero(info, y):
			switch c.Op {
			case token.EQL, token.LEQ:
				return 1 // n == 0
			case token.NEQ, token.GTR:
				return 0 // n != 0, n > 0
			}
		}
	}
	return -1
}

func isBoolType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

func isZero(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.String() == "0"
}

// notFoundName reports whether e names a "no such record" sentinel.
func notFoundName(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return match.NotFoundName(x.Sel.Name)
	case *ast.Ident:
		return x.Name != "nil" && match.NotFoundName(x.Name)
	}
	return false
}

// pipelines reports whether call is go-redis's Pipelined or TxPipelined,
// which run the callback they are given at once and send its commands.
func pipelines(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || (fn.Name() != "Pipelined" && fn.Name() != "TxPipelined") {
		return false
	}
	p := fn.Pkg().Path()
	return strings.HasPrefix(p, "github.com/redis/go-redis/") || strings.HasPrefix(p, "github.com/go-redis/redis/")
}
