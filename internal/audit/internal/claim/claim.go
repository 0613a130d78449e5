// Package claim follows idempotency claims through a function's control
// flow. It finds where a key or lock is taken — a SET NX or HSETNX through
// go-redis, redigo or rueidis, an INSERT of an in-progress row (SQL text,
// sqlc, bun, gorm), a MongoDB InsertOne or DynamoDB conditional PutItem
// of an in-progress or lock document, a call of a claim helper from any
// package, known by its //idemkit:claim directive, by its body or by an
// interface method's shape (directive's facts) — and walks every path
// from there to a return, noting where the claim is released, completed
// or handed on, and whether the return is an error path. A Lua script is
// read as the command it amounts to wherever it is kept, as effect reads
// it: in another package's variable, or given to a helper or a wrapper
// that runs it (see Result.Redis). releaseonerror reads the error paths, cacheresponse the others; deciding that once
// here keeps the two checks from reporting the same path.
//
// The walk is vet's lostcancel: a depth-first search of the go/cfg graph
// that stops where the claim is settled, carrying what was deferred so
// far, so that a defer registered after an early return does not cover
// it. It is path-sensitive where claim code always is: a branch on the
// claim's own error (or a predicate of it, errors.Is(err, redis.Nil)), or
// on its "taken" result, leads nowhere when it says nothing was taken; a
// helper's boolean is read as "taken" or "already done" from the side of
// its first branch that returns early without work; and a comparison of
// an error with nil tells `return err` on a failing path from the same
// statement on a path where err is known to be nil. A release may be made
// through a local closure, a deferred function literal, the unlock a lock
// helper returned, or a goroutine that completes or releases the key; the
// walk follows the key into such a goroutine for its failing returns. A
// helper's Records fact (RecordsAnalyzer) says which records it writes or
// deletes under its key, so that a release of only some of what a claim
// wrote is a path that leaves the key held.
package claim

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"iter"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// Analyzer finds the claims of every function of a package and walks
// them. The checks Require it and read its Result.
var Analyzer = &analysis.Analyzer{
	Name:       "idemkitclaim",
	Doc:        "follows idempotency key claims through each function's control flow",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, directive.Analyzer, RecordsAnalyzer, effect.Analyzer},
	Run:        run,
	ResultType: reflect.TypeFor[*Result](),
	FactTypes:  []analysis.Fact{new(Holds)},
}

// Result is every function of the package that has a body, declared or
// literal, in source order.
type Result struct {
	Funcs []*Func
	scope *scope
	// mu guards scope's memos (the summaries of functions, the literals
	// being looked into) once run has returned: releaseonerror and
	// cacheresponse ask Settles, Redis and AssignedFields at once.
	mu sync.Mutex
}

// Func is one function body and the claims it makes.
type Func struct {
	Node ast.Node // *ast.FuncDecl or *ast.FuncLit
	Body *ast.BlockStmt
	Sig  *types.Signature
	// Directive is what a declared function's doc comment says it does
	// to a key. The body of an //idemkit:claim helper is how a claim is
	// made, not a claim left open, so its claims are not followed; nor
	// are those of a helper inferred to be a claim (helper).
	Directive directive.Kind
	helper    bool
	// Responder marks a function whose answer a replay must reproduce: it
	// writes a body to an http.ResponseWriter (its parameter, or one a
	// parameter hands out: c.Writer()), or returns a value other
	// than a bool besides its error. A queue consumer or cron job that
	// only succeeds or fails is not one.
	Responder bool
	Claims    []*Claim
}

// Test reports a test, benchmark or fuzz function, or a subtest's
// literal: one taking a *testing.T, B or F. It drives a store or a
// handler to see what it does; what it completes or leaves held is the
// test's own business.
func (f *Func) Test() bool { return match.TestSignature(f.Sig) }

// Via is how a key is claimed.
type Via uint8

// The ways of claiming a key.
const (
	Redis     Via = iota + 1 // SET NX (SetNX, SetArgs{Mode: "NX"}, Do(ctx, "set", key, v, "nx")), HSETNX, an SADD whose count is read
	SQL                      // an INSERT of an in-progress row into a dedup table
	Directive                // a call of an //idemkit:claim function or method, or of a helper inferred to claim
	Store                    // SET NX through another Redis client the match package reads (redigo), or a MongoDB or DynamoDB write of an absent in-progress document
)

// Claim is one claiming call and the ways out of its function that leave
// it held.
type Claim struct {
	Call *ast.CallExpr
	Via  Via
	// Callee is the claiming function or method: the go-redis command or
	// the annotated helper.
	Callee *types.Func
	What   string   // the call as a message names it: SetNX, INSERT into idempotency_keys, Claim
	Key    ast.Expr // the Redis key, or the argument a helper builds its key from
	// Member is what a Redis claim took within its key: SADD's or ZADD's
	// member, HSETNX's field; Remove is the go-redis method that gives it
	// back (SRem, ZRem, HDel). A Del would drop the whole key, and with it
	// every other caller's member. Member is nil when the claim adds
	// more than one or names none.
	Member ast.Expr
	Remove string
	Table  string // the SQL table, or the gorm model
	// Tables are the SQL tables a claim helper writes its row to, as its
	// inferred fact records them.
	Tables []string
	// Lock marks a claim of mutual exclusion, not a record meant to be
	// replayed: a key, helper or type named as a lock (lock:, mutex,
	// Locker), or a helper returning its unlock.
	Lock bool
	// Unlock marks a helper's claim whose result is the function that
	// releases it: calling that function is the release.
	Unlock bool
	// Mutex marks a lock taken by a method of a mutex value (redsync's
	// m.Lock()): an Unlock of the same value releases it.
	Mutex bool
	// Records are the records a claim helper writes under the key when it
	// takes it, as its Records fact lists them, when it writes more than
	// one: a release of only some of them leaves the others in place.
	Records []Write
	// left are the records a partial release leaves, by its call.
	left map[*ast.CallExpr][]Write
	// Record names what a Store claim took, as match.Classify names it;
	// a delete or write of the same record and key settles it.
	Record string
	// Stmt is the node of the function's control-flow graph that holds
	// Call: its statement, or the condition it is part of.
	Stmt ast.Node
	// queued is the go-redis Pipelined or TxPipelined call whose callback
	// made the claim, storing the queued command in a variable of the
	// function (captured); the reply is read there once the call returns.
	queued   *ast.CallExpr
	captured *types.Var
	// Exits are the returns reachable from the claim on a path where it
	// may have taken the key and where no call has released, completed or
	// handed it on, each once per distinct way of reaching it.
	Exits []Exit

	held map[*types.Var]bool // results saying whether the key was taken, and values derived from them
	// handed are the returns that give the claim's results to the caller.
	handed []Exit
	own    map[*types.Var]bool // the claim's own non-error results, a subset of held
	err    *types.Var          // the claim's error result
	// errOf are other error variables set once, from reading the claim's
	// own answer (n, err := res.RowsAffected() in an if's init): each says
	// the claim's outcome is unknown, as err does.
	errOf map[*types.Var]bool
	// done are the held booleans whose true means the key was already
	// taken or done ("seen", "exists"), not that this call took it;
	// doneCall says the same of a helper's boolean used where it is
	// called (if d.Seen(ctx, id) { ... }).
	done     map[*types.Var]bool
	doneCall bool
	// counted marks a claim only where its answer is read: an SADD's
	// count of members added (0: there before), a SetNX's bool (its Err is
	// nil whether or not it set the key).
	counted bool
	// first marks an INCR taken as a claim: the caller whose increment
	// makes the counter 1 came first (n == 1, or n > 1 for a repeat). One
	// whose value is never compared with 1 (n < 2 too) is no claim: a
	// counter of attempts or of views.
	first bool
	// nilClaims marks SET ... NX GET (see match.RedisCall.NilClaims): its
	// error redis.Nil says this call set the key, nil that it was there.
	nilClaims bool
	// swap marks GETSET, which writes the key whether or not it was
	// there: a claim only where its caller asks whether the old value was
	// nil (err == redis.Nil, or err == nil for a repeat), not where it
	// only lets redis.Nil through as no error.
	swap bool
	// transition marks a claim made by moving a record's state with a
	// call given the states as constants (MoveGrant(ctx, id, "pending",
	// "provisioning")); a later call of the same function on the key
	// moves it on.
	transition bool
}

// Settle is what a call does to a claim; values combine.
type Settle uint8

// The ways a claim stops being the function's business.
const (
	Released  Settle = 1 << iota // given back: DEL, DELETE, a rollback, an //idemkit:release call
	Completed                    // the result stored under the key: SET, UPDATE, an //idemkit:complete call
	HandedOff                    // passed to or returned to code that owns it from then on
)

// Exit is a way out of the function with the claim held.
type Exit struct {
	Return *ast.ReturnStmt // synthetic when control falls off the end of the body
	// Continue is the continue that ends, after a failure, the turn of a
	// loop that made the claim (Return is nil then).
	Continue *ast.BranchStmt
	// Failure is the 4xx or 5xx response written on the way, in a function
	// that answers HTTP (http.Error, WriteHeader, a helper given the
	// status); it makes the exit a failing one.
	Failure *ast.CallExpr
	// Error marks an error path, decided here once for both checks: a
	// return of an error that may be non-nil, one after a 4xx or 5xx
	// response, or, in a function with no error result, a return inside
	// the branch that handles a failed call (if err != nil { log; return }).
	// releaseonerror reads these exits, cacheresponse the others.
	Error bool
	// Deferred is what the calls deferred before this exit do to the
	// claim when the function returns.
	Deferred Settle
	// Partial is the release on the way that gave back only some of the
	// records the claim wrote (Claim.Left names the others): the path
	// is failing, since it released, and leaves them held.
	Partial *ast.CallExpr
	// Go is the go statement whose goroutine, given the claim, returns
	// on a failure at Return (in the function it runs) with the key held.
	Go *ast.GoStmt
	// Far is where that failure is when the goroutine runs a function of
	// another package (its Holds fact says, as "worker.go:31"); Return is
	// nil then.
	Far string
}

// site is the call of the function's own body that makes the claim:
// Call, or the Pipelined or TxPipelined call whose callback queued it.
func (c *Claim) site() *ast.CallExpr {
	if c.queued != nil {
		return c.queued
	}
	return c.Call
}

// Left returns the records a partial release leaves in place.
func (c *Claim) Left(call *ast.CallExpr) []Write { return c.left[call] }

// Pos is where an exit is reported: the failing response, or the return.
func (e Exit) Pos() ast.Node {
	if e.Partial != nil {
		return e.Partial
	}
	if e.Go != nil {
		return e.Go
	}
	if e.Failure != nil {
		return e.Failure
	}
	if e.Continue != nil {
		return e.Continue
	}
	return e.Return
}

func run(pass *analysis.Pass) (any, error) {
	s := &scope{
		pass:      pass,
		dirs:      pass.ResultOf[directive.Analyzer].(*directive.Directives),
		cfgs:      pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs),
		decls:     map[*types.Func]*ast.FuncDecl{},
		effects:   map[*types.Func]*effects{},
		lits:      map[*types.Var]*ast.FuncLit{},
		inLit:     map[*ast.FuncLit]bool{},
		callbacks: map[*ast.FuncLit]*ast.CallExpr{},
		values:    map[*types.Var]ast.Expr{},
		records:   pass.ResultOf[RecordsAnalyzer].(*recordsResult),
		scripts:   pass.ResultOf[effect.Analyzer].(*effect.Result),
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	s.closures(ins)
	s.pipelineCallbacks(ins)
	res := &Result{scope: s}
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		f := &Func{Node: n}
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn, ok := pass.TypesInfo.Defs[n.Name].(*types.Func)
			if !ok || n.Body == nil {
				return
			}
			s.decls[fn] = n
			f.Body, f.Sig = n.Body, fn.Signature()
			if fact, ok := s.dirs.Fact(fn); ok && fact.Inferred {
				f.helper = fact.Kind&directive.Claim != 0
			} else if ok {
				f.Directive = fact.Kind
			}
		case *ast.FuncLit:
			sig, ok := pass.TypesInfo.TypeOf(n).(*types.Signature)
			if !ok {
				return
			}
			f.Body, f.Sig = n.Body, sig
		}
		res.Funcs = append(res.Funcs, f)
	})
	for _, f := range res.Funcs {
		s.function(f)
	}
	if helpers := s.handoffs(res.Funcs); len(helpers) > 0 {
		for _, f := range res.Funcs {
			s.helperClaims(f, helpers)
		}
	}
	s.exportHolds()
	return res, nil
}

// handoffs finds the functions of the package that claim a key and hand
// it to their caller by returning true (start(w, r) (key string, ok
// bool): "claimed, go on"), drops those returns from their claims' exits,
// and returns the functions.
func (s *scope) handoffs(funcs []*Func) map[*types.Func]*Func {
	helpers := map[*types.Func]*Func{}
	for _, f := range funcs {
		d, ok := f.Node.(*ast.FuncDecl)
		if !ok || len(f.Claims) == 0 {
			continue
		}
		res := f.Sig.Results()
		at := -1
		for i := range res.Len() {
			if isBool(res.At(i).Type()) {
				at = i
			}
		}
		if at < 0 {
			continue
		}
		for _, c := range f.Claims {
			for _, e := range c.handed {
				if !e.Error && len(e.Return.Results) == res.Len() && (s.isTrue(e.Return.Results[at]) || s.errNil(e.Return.Results[at])) {
					helpers[s.pass.TypesInfo.Defs[d.Name].(*types.Func)] = f
				}
			}
			kept := c.Exits[:0]
			for _, e := range c.Exits {
				if !e.Error && len(e.Return.Results) == res.Len() && (s.isTrue(e.Return.Results[at]) || s.errNil(e.Return.Results[at])) {
					helpers[s.pass.TypesInfo.Defs[d.Name].(*types.Func)] = f
					continue
				}
				kept = append(kept, e)
			}
			c.Exits = kept
		}
	}
	return helpers
}

// errNil reports whether e is err == nil, which a return that is not
// an error path answers true: return p, err == nil, err.
func (s *scope) errNil(e ast.Expr) bool {
	be, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || be.Op != token.EQL {
		return false
	}
	info := s.pass.TypesInfo
	x, y := be.X, be.Y
	if tv := info.Types[x]; tv.IsNil() {
		x, y = y, x
	}
	return info.Types[y].IsNil() && isError(info.TypeOf(x))
}

func (s *scope) isTrue(e ast.Expr) bool {
	tv := s.pass.TypesInfo.Types[e]
	return tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value)
}

// helperClaims adds to f the claims made by calling a handoff helper of
// the package, and walks them.
func (s *scope) helperClaims(f *Func, helpers map[*types.Func]*Func) {
	if f.Directive != 0 || f.helper {
		return
	}
	var g *cfg.CFG
	for call := range f.Calls() {
		fn := typeutil.StaticCallee(s.pass.TypesInfo, call)
		if fn == nil || helpers[fn.Origin()] == nil {
			continue
		}
		h := helpers[fn.Origin()]
		c := &Claim{Call: call, Via: Directive, Callee: fn, What: fn.Name(),
			Lock: !slices.ContainsFunc(h.Claims, func(c *Claim) bool { return !c.Lock })}
		// The helper's rows are the caller's to release or complete: a
		// DELETE from the same table, or a helper inferred to make one,
		// settles the claim handed on.
		for _, hc := range h.Claims {
			for _, t := range append([]string{hc.Table}, hc.Tables...) {
				if t != "" && !slices.Contains(c.Tables, t) {
					c.Tables = append(c.Tables, t)
				}
			}
			if c.Key == nil {
				c.Key = s.handedKey(fn, hc, call)
			}
		}
		if g == nil {
			g = s.graph(f)
		}
		if s.walk(f, g, c) {
			f.Claims = append(f.Claims, c)
		}
	}
}

// Settles returns what call, in the function of the package that makes
// c, does to c: what the walk stops at.
func (r *Result) Settles(c *Claim, call *ast.CallExpr) Settle {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scope.settles(c, call)
}

// scope is what the walk of one package needs.
type scope struct {
	pass    *analysis.Pass
	dirs    *directive.Directives
	cfgs    *ctrlflow.CFGs
	decls   map[*types.Func]*ast.FuncDecl
	effects map[*types.Func]*effects // nil while being computed
	// lits are the local variables set once, to a function literal: a
	// release := func() { ... } closure, called where the key is given
	// back.
	lits  map[*types.Var]*ast.FuncLit
	inLit map[*ast.FuncLit]bool // the literals being looked into, against recursion
	// callbacks are the literals given to a go-redis Pipelined or
	// TxPipelined, by the call: the commands they queue are answered
	// only once that call returns, in the function that made it.
	callbacks map[*ast.FuncLit]*ast.CallExpr
	// values are the local variables set once, to their value: a key
	// built once (key := "cooldown:" + email) is read through them.
	values  map[*types.Var]ast.Expr
	records *recordsResult
	// scripts reads the Lua scripts match.Redis cannot see, as effect
	// does: kept in a field or an embedded file, in another package's
	// variable, or given to a helper or wrapper that runs them.
	scripts *effect.Result
}

// Redis returns the Redis command call is, as match.Redis reads it, or
// the command a Lua script it runs amounts to wherever the script is
// kept (see effect.Result.Script): scripts.Claim.Run(ctx, rdb, keys,
// ...), runScript(ctx, scripts.Release, keys, token) and a wrapper's
// Run are a SET NX, a DEL, a SET as a script in sight is.
func (r *Result) Redis(call *ast.CallExpr) (match.RedisCall, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scope.redis(call)
}

func (s *scope) redis(call *ast.CallExpr) (match.RedisCall, bool) {
	if rc, ok := match.Redis(s.pass.TypesInfo, call); ok {
		return rc, true
	}
	return s.scripts.Script(call)
}

// keyText is a key expression as written, read through a variable set
// once to the expression it was set to.
func (s *scope) keyText(e ast.Expr) string {
	if v := s.varOf(e); v != nil && s.values[v] != nil {
		return types.ExprString(s.values[v])
	}
	return types.ExprString(e)
}

// closures finds the variables of the package set once, to a function
// literal.
func (s *scope) closures(ins *inspector.Inspector) {
	sets := map[*types.Var]int{}
	ins.Preorder([]ast.Node{(*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)}, func(n ast.Node) {
		for _, v := range s.targets(n, func(ast.Expr) bool { return true }) {
			sets[v]++
		}
		var lhs, rhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs, rhs = n.Lhs, n.Rhs
		case *ast.ValueSpec:
			for _, id := range n.Names {
				lhs = append(lhs, id)
			}
			rhs = n.Values
		}
		if len(lhs) != len(rhs) {
			return
		}
		for i, r := range rhs {
			v := s.varOf(lhs[i])
			if v == nil {
				continue
			}
			s.values[v] = r
			if lit, ok := ast.Unparen(r).(*ast.FuncLit); ok {
				s.lits[v] = lit
			}
		}
	})
	for v := range s.values {
		if sets[v] != 1 {
			delete(s.lits, v)
			delete(s.values, v)
		}
	}
}

// function finds f's claims and walks each.
func (s *scope) function(f *Func) {
	f.Responder = s.responder(f)
	if f.Directive != 0 || f.helper {
		return
	}
	if lit, ok := f.Node.(*ast.FuncLit); ok && s.callbacks[lit] != nil {
		return // its claims are followed where the pipeline is run
	}
	var g *cfg.CFG
	for call := range f.Calls() {
		c := s.classify(call)
		if c == nil {
			c = s.queuedClaim(call)
		}
		if c == nil || c.Via == Store && strings.HasPrefix(c.Record, "syncmap ") && !loadedRead(f.Body, call) {
			continue
		}
		if g == nil {
			g = s.graph(f)
		}
		if s.walk(f, g, c) {
			f.Claims = append(f.Claims, c)
		}
	}
}

func (s *scope) graph(f *Func) *cfg.CFG {
	if d, ok := f.Node.(*ast.FuncDecl); ok {
		return s.cfgs.FuncDecl(d)
	}
	return s.cfgs.FuncLit(f.Node.(*ast.FuncLit))
}

// Calls yields the calls in f's body, outside the function literals it
// holds (each is a Func of its own), in source order.
func (f *Func) Calls() iter.Seq[*ast.CallExpr] {
	return func(yield func(*ast.CallExpr) bool) {
		more := true
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				more = more && yield(n)
			}
			return more
		})
	}
}

// inspectBody calls fn for each call in body, outside the function
// literals it holds.
func inspectBody(body ast.Node, fn func(*ast.CallExpr)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			fn(n)
		}
		return true
	})
}

// classify returns the claim call makes, or nil.
func (s *scope) classify(call *ast.CallExpr) *Claim {
	info := s.pass.TypesInfo
	if rc, ok := s.redis(call); ok && !(rc.Script && otherClient(callee(info, call))) {
		if rc.Op != match.RedisSetNX && rc.Op != match.RedisHSetNX && rc.Op != match.RedisSAdd && rc.Op != match.RedisZAdd && !(rc.Op == match.RedisIncr && rc.Method == "Incr") {
			return nil
		}
		if slices.ContainsFunc(match.Words(s.keyText(rc.Key)), func(w string) bool { return slices.Contains(notClaimWords, w) }) {
			return nil
		}
		remove := map[match.RedisOp]string{match.RedisSAdd: "SRem", match.RedisZAdd: "ZRem", match.RedisHSetNX: "HDel"}[rc.Op]
		var member ast.Expr
		if remove != "" && len(rc.Fields) == 1 {
			member = rc.Fields[0]
		}
		return &Claim{Call: call, Via: Redis, Callee: callee(info, call), What: rc.Method, Key: rc.Key, Member: member, Remove: remove,
			Lock: directive.Lockish(s.keyText(rc.Key)), counted: rc.Op == match.RedisSAdd || rc.Op == match.RedisZAdd || rc.Op == match.RedisIncr || rc.Method == "SetNX" || rc.Method == "HSetNX" || rc.Script && !rc.NilTaken,
			first: rc.Op == match.RedisIncr, nilClaims: rc.NilClaims, swap: rc.Command == "GETSET"}
	}
	if k, fn := s.dirs.Call(info, call); k&directive.Claim != 0 {
		f, _ := s.dirs.Fact(fn)
		c := &Claim{Call: call, Via: Directive, Callee: fn, What: fn.Name(), Tables: f.Tables, Unlock: f.Unlock,
			Lock: f.Lock || directive.Lockish(fn.Name()) || directive.Lockish(directive.ReceiverName(fn))}
		if f.Key >= 0 && f.Key < len(call.Args) {
			c.Key = call.Args[f.Key]
			c.Lock = c.Lock || directive.Lockish(s.keyText(c.Key))
		}
		if f.Inferred && c.Key != nil && slices.ContainsFunc(match.Words(s.keyText(c.Key)+" "+fn.Name()), func(w string) bool { return slices.Contains(notClaimWords, w) }) {
			return nil // a rate limit or cache entry set through a helper
		}
		if r := s.records.of(fn); r != nil && r.Claim {
			c.Records = r.Writes
		}
		return c
	}
	if fn := callee(info, call); fn != nil {
		if r := s.records.of(fn); r != nil && r.Claim && r.Key < len(call.Args) {
			// a helper that takes the key and writes a record beside it
			// (a lock and a pending record), and so is no claim helper
			// by the directive's reading, which wants one record
			return &Claim{Call: call, Via: Directive, Callee: fn, What: fn.Name(), Key: call.Args[r.Key], Records: r.Writes,
				Lock: directive.Lockish(fn.Name()) || directive.Lockish(directive.ReceiverName(fn))}
		}
	}
	if c := s.transition(call); c != nil {
		return c
	}
	if fn := callee(info, call); fn != nil && fn.Pkg() != nil {
		for _, l := range lockLibraries {
			if fn.Pkg().Path() == l.pkg && slices.Contains(strings.Fields(l.acquire), fn.Name()) {
				c := &Claim{Call: call, Via: Directive, Callee: fn, What: fn.Name(), Lock: true, Mutex: l.byReceiver}
				if l.key >= 0 && l.key < len(call.Args) {
					c.Key = call.Args[l.key]
				}
				return c
			}
		}
	}
	if sc, ok := match.SQL(info, call); ok && sc.Const && advisoryLock.MatchString(sc.Text) {
		return &Claim{Call: call, Via: SQL, Callee: callee(info, call), What: "pg_advisory_lock", Table: advisoryTable, Lock: true}
	}
	if sc, ok := match.SQL(info, call); ok {
		if table, ok := directive.ClaimUpdate(sc); ok {
			return &Claim{Call: call, Via: SQL, Callee: callee(info, call), What: "UPDATE of " + table + " to in progress", Table: table}
		}
		table, ok := directive.ClaimInsert(info, call, sc)
		if !ok {
			return nil
		}
		return &Claim{Call: call, Via: SQL, Callee: callee(info, call), What: "INSERT into " + table, Table: table}
	}
	a, classified := match.Classify(s.pass.Fset, info, call) // read once for the store and the row claims below
	if rc, ok := s.redis(call); !classified && ok && rc.Script {
		// a redigo or rueidis script kept in another package: its
		// source is in that package's facts, not in sight
		a, classified = match.RedisAccess(info, call, rc)
	}
	if classified && a.Op == match.OpClaim && (strings.HasPrefix(a.Record, "redis ") || strings.HasPrefix(a.Record, "syncmap ")) && len(a.Keys) > 0 {
		if slices.ContainsFunc(match.Words(s.keyText(a.Keys[0])), func(w string) bool { return slices.Contains(notClaimWords, w) }) {
			return nil
		}
		return &Claim{Call: call, Via: Store, Callee: callee(info, call), What: a.What, Key: a.Keys[0], Record: a.Record,
			Lock: directive.Lockish(s.keyText(a.Keys[0]))}
	}
	for _, a := range match.ClassifyAll(s.pass.Fset, info, call) {
		if directive.ClaimDoc(info, a) && len(a.Keys) > 0 {
			return &Claim{Call: call, Via: Store, Callee: callee(info, call), What: a.What + " into " + a.Target, Key: a.Keys[0], Record: a.Record,
				Lock: directive.Lockish(s.keyText(a.Keys[0])) || directive.Lockish(a.Target)}
		}
	}
	if model, ok := s.ormClaim(call); ok {
		return &Claim{Call: call, Via: SQL, Callee: callee(info, call), What: "Create of " + model, Table: model}
	}
	if classified && directive.ClaimRow(info, a) {
		return &Claim{Call: call, Via: SQL, Callee: callee(info, call), What: a.What + " into " + a.Target, Table: a.Target}
	}
	return nil
}

// goRedis reports a function of go-redis.
func goRedis(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return strings.HasPrefix(p, "github.com/redis/go-redis/") || strings.HasPrefix(p, "github.com/go-redis/redis/")
}

// otherClient reports a function of redigo or rueidis: a script run
// through one is a claim of the store, released by the DEL of its
// client. A helper or wrapper that runs one for its caller does so
// through go-redis (see match.ForwardsScript).
func otherClient(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return strings.HasPrefix(p, "github.com/gomodule/redigo/") || strings.HasPrefix(p, "github.com/redis/rueidis")
}

// lockLibraries are the Redis lock clients whose acquiring calls are
// lock claims: bsm/redislock's Obtain returns a *Lock whose Release gives
// it back (a method of the claim's result); redsync's Mutex is taken by
// Lock and given back by Unlock on the same mutex (byReceiver).
var lockLibraries = []struct {
	pkg, acquire string
	key          int // the key argument, or -1
	byReceiver   bool
}{
	{"github.com/bsm/redislock", "Obtain", 1, false},
	{"github.com/go-redsync/redsync/v4", "Lock LockContext TryLock TryLockContext", -1, true},
	{"github.com/go-redsync/redsync/v3", "Lock LockContext TryLock TryLockContext", -1, true},
}

// advisoryLock matches a Postgres session-level advisory lock, which
// stays held on the pooled connection until pg_advisory_unlock; the
// transaction-level ones (_xact_) end with their transaction.
var (
	advisoryLock   = regexp.MustCompile(`(?i)\bpg_(try_)?advisory_lock(_shared)?\s*\(`)
	advisoryUnlock = regexp.MustCompile(`(?i)\bpg_advisory_unlock(_shared|_all)?\s*\(`)
)

// advisoryTable stands for an advisory lock where a claim names its table.
const advisoryTable = "pg_advisory_lock"

// notClaimWords name a key that SET NX fills without claiming work: a rate
// limit or cooldown meant to outlive a failure, a cache entry.
var notClaimWords = []string{"rate", "ratelimit", "limit", "limiter", "throttle", "cooldown", "quota", "cache", "cached"}

// handedKey returns the argument of call that the helper fn built its
// claim hc's key from: the parameter its key, or its INSERT's values,
// name. It is nil when none does.
func (s *scope) handedKey(fn *types.Func, hc *Claim, call *ast.CallExpr) ast.Expr {
	params := fn.Signature().Params()
	exprs := hc.Call.Args
	if hc.Key != nil {
		exprs = []ast.Expr{hc.Key}
	}
	var found ast.Expr
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || found != nil {
				return found == nil
			}
			for i := range params.Len() {
				if s.pass.TypesInfo.Uses[id] == params.At(i) && i < len(call.Args) && !match.IsContext(params.At(i).Type()) {
					found = call.Args[i]
				}
			}
			return found == nil
		})
	}
	return found
}

// transition reads a call that moves a record from one state to another,
// given both as constants, and answers whether it did: (bool, error)
// from MoveGrant(ctx, id, "pending", "provisioning"). When the state it
// moves to says work is under way, only one caller moves it: a claim of
// the record named by the call's first other string argument.
func (s *scope) transition(call *ast.CallExpr) *Claim {
	info := s.pass.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil
	}
	res := fn.Signature().Results()
	if res.Len() != 2 || !isBool(res.At(0).Type()) || !isError(res.At(1).Type()) {
		return nil
	}
	if fn.Pkg() != s.pass.Pkg && std(fn.Pkg().Path()) || match.LibraryPackage(fn.Pkg()) {
		return nil
	}
	var key ast.Expr
	var states []string
	for _, a := range call.Args {
		if v, ok := match.ConstString(info, a); ok {
			states = append(states, v)
			continue
		}
		if key == nil && isStringish(info.TypeOf(a)) {
			key = a
		}
	}
	// The state moved to comes last (from, to) and says work is under
	// way; the one moved from does not: moving back is a release.
	if len(states) < 2 || key == nil {
		return nil
	}
	to := states[len(states)-1]
	if !directive.InProgress(to) || directive.Waiting(to) || to == states[len(states)-2] {
		return nil
	}
	return &Claim{Call: call, Via: Directive, Callee: fn, What: fn.Name(), Key: key, transition: true}
}

func isStringish(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// loadedRead reports whether the loaded result of a sync.Map LoadOrStore
// is kept: without it the call is a get-or-create (a mutex per topic), and
// says to nobody whether this caller took the key.
func loadedRead(body *ast.BlockStmt, call *ast.CallExpr) bool {
	kept := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != call {
			return !kept
		}
		if len(as.Lhs) == 2 {
			if id, ok := as.Lhs[1].(*ast.Ident); !ok || id.Name != "_" {
				kept = true
			}
		}
		return false
	})
	return kept
}
