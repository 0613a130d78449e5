package claim

import (
	"cmp"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// maxVisits bounds the (block, state) pairs one claim's walk visits: the
// states are few in practice, and a pathological function is better left
// unreported than slow under go vet.
const maxVisits = 10000

// state is what the walk knows on one path from the claim.
type state struct {
	// errLive: the claim's error result still holds the claim's error,
	// so a branch on it tells whether the claim failed.
	errLive bool
	// nilErrs are the error variables known to be nil, one bit each.
	nilErrs  uint64
	deferred Settle        // what the calls deferred so far do to the claim
	failure  *ast.CallExpr // a 5xx response written on the way
	partial  *ast.CallExpr // a release on the way that left some of the claim's records
}

type visit struct {
	b  *cfg.Block
	st state
}

type walker struct {
	s       *scope
	f       *Func
	c       *Claim
	info    *types.Info
	caseTag map[ast.Expr]ast.Expr // a tagged switch's case expressions, to their tag
	bits    map[*types.Var]uint64
	seen    map[visit]bool
	exits   map[Exit]bool
	// loops are the for and range statements whose body holds the claim:
	// back at one's head, the turn that made the claim is over.
	loops map[ast.Stmt]bool
	// from is where the walk began: the end of the claim, or the start of
	// the body of a goroutine the claim was handed to. A branch on a
	// failure after it is a failing one.
	from token.Pos
	// depth counts the goroutines the walk has followed the claim into.
	depth int
}

// walk follows c through g and records its exits. It returns false for a
// claim it does not follow: one in dead code, or made where it is handed
// on at once (returned, deferred, started in a goroutine).
func (s *scope) walk(f *Func, g *cfg.CFG, c *Claim) bool {
	b, i := locate(g, c.site())
	if b == nil {
		return false
	}
	c.Stmt = b.Nodes[i]
	switch c.Stmt.(type) {
	case *ast.ReturnStmt, *ast.DeferStmt, *ast.GoStmt:
		return false
	}
	s.results(f, c)
	s.pipelineErrs(f, c)
	s.polarity(f, c)
	if c.first && (!s.comparedWithOne(f, c) || !firstKey(s.pass.TypesInfo, c.Key, s.keyText(c.Key))) {
		return false // a counter (of requests in a window, of attempts), not a claim
	}
	if c.swap && !s.nilAsked(f, c) {
		return false // GETSET as a swap: the old value read, nothing claimed
	}
	if c.counted && len(c.own) == 0 && !(i == len(b.Nodes)-1 && isCond(b)) {
		// an SADD whose count nobody reads adds to a set, and a SetNX
		// whose bool nobody reads (only its Err, nil either way) lets a
		// retry through: neither holds anything
		return false
	}
	w := &walker{s: s, f: f, c: c, info: s.pass.TypesInfo, caseTag: caseTags(f.Body),
		bits: map[*types.Var]uint64{}, seen: map[visit]bool{}, exits: map[Exit]bool{}, loops: enclosingLoops(f.Body, c.site()), from: c.site().End()}
	st := state{errLive: c.err != nil, deferred: w.deferredBefore()}
	if i == len(b.Nodes)-1 && isCond(b) {
		w.branch(b, st)
	} else {
		w.nodes(b, i+1, st)
	}
	for e := range w.exits {
		c.Exits = append(c.Exits, e)
	}
	slices.SortFunc(c.Exits, func(a, b Exit) int {
		return cmp.Or(cmp.Compare(a.Pos().Pos(), b.Pos().Pos()), cmp.Compare(a.Deferred, b.Deferred))
	})
	return true
}

// comparedWithOne reports whether f compares the value an INCR claim
// returned with 1 (n == 1, n != 1, n > 1, n <= 1) or 2 (n < 2, n >= 2),
// asking whether this call came first, and with nothing else: a rate
// limiter compares its count with the limit too.
func (s *scope) comparedWithOne(f *Func, c *Claim) bool {
	first, other := false, false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		for _, pair := range [][2]ast.Expr{{be.X, be.Y}, {be.Y, be.X}} {
			v := s.varOf(pair[0])
			if v == nil || !c.own[v] {
				continue
			}
			tv := s.pass.TypesInfo.Types[pair[1]]
			if tv.Value == nil || tv.Value.Kind() != constant.Int {
				other = true
				continue
			}
			n, _ := constant.Int64Val(tv.Value)
			switch be.Op {
			case token.EQL, token.NEQ, token.GTR, token.LEQ:
				first = first || n == 1
				other = other || n != 1
			case token.LSS, token.GEQ:
				first = first || n == 2
				other = other || n != 2
			}
		}
		return true
	})
	return first && !other
}

// firstKey reports whether an INCR's key (text is what it was set to)
// names what tells a repeat from a first delivery (a dedup or
// idempotency record, "event:" + id, an event or message ID) rather than
// a counter: most INCRs count.
func firstKey(info *types.Info, key ast.Expr, text string) bool {
	return match.DedupName(match.KeyShape(info, key)) || match.KeyColumn(text)
}

// locate returns the live block and node index that hold call.
func locate(g *cfg.CFG, call *ast.CallExpr) (*cfg.Block, int) {
	for _, b := range g.Blocks {
		if !b.Live {
			continue
		}
		for i, n := range b.Nodes {
			if n.Pos() <= call.Pos() && call.End() <= n.End() {
				return b, i
			}
		}
	}
	return nil, 0
}

func isCond(b *cfg.Block) bool {
	if len(b.Succs) != 2 || len(b.Nodes) == 0 {
		return false
	}
	_, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
	return ok
}

// caseTags maps the case expressions of body's tagged switches to their
// tag: the control-flow graph lists `case idem.Claimed:` as a condition
// holding only idem.Claimed.
func caseTags(body *ast.BlockStmt) map[ast.Expr]ast.Expr {
	tags := map[ast.Expr]ast.Expr{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, cc := range n.Body.List {
				for _, e := range cc.(*ast.CaseClause).List {
					tags[e] = n.Tag
				}
			}
		}
		return true
	})
	return tags
}

// results finds the claim's results in its statement, and the values the
// function derives from them (n from res.RowsAffected(), held from
// c.Held()).
func (s *scope) results(f *Func, c *Claim) {
	c.held, c.own = map[*types.Var]bool{}, map[*types.Var]bool{}
	for _, t := range s.targets(c.Stmt, func(rhs ast.Expr) bool { _, isClaim := s.root(c, rhs); return isClaim }) {
		if isError(t.Type()) {
			c.err = t
		} else {
			c.held[t], c.own[t] = true, true
		}
	}
	s.queuedResults(f, c)
	for changed := true; changed; {
		changed = false
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				// row.Scan(&locked), db.QueryRow(...).Scan(&id): the
				// destinations hold the claim's answer
				sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Scan" {
					break
				}
				if v, isClaim := s.root(c, sel.X); !isClaim && !c.own[v] {
					break
				}
				for _, a := range n.Args {
					if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
						x := ast.Unparen(u.X)
						for sel, ok := x.(*ast.SelectorExpr); ok; sel, ok = x.(*ast.SelectorExpr) {
							x = ast.Unparen(sel.X) // Scan(&i.ID, &i.Status): i holds the row
						}
						if t := s.varOf(x); t != nil && !c.held[t] {
							c.held[t], c.own[t], changed = true, true, true
						}
					}
				}
			case *ast.AssignStmt, *ast.ValueSpec:
				for _, t := range s.targets(n, func(rhs ast.Expr) bool { v, _ := s.root(c, rhs); return c.held[v] }) {
					switch {
					case isError(t.Type()) && c.err == nil:
						c.err = t // err := row.Scan(&id) after a QueryRow claim
					case isError(t.Type()) && t != c.err && !c.errOf[t] && s.readsAnswer(c, n) && s.setOnce(f, t):
						if c.errOf == nil {
							c.errOf = map[*types.Var]bool{}
						}
						c.errOf[t], changed = true, true
					case !isError(t.Type()) && !c.held[t]:
						c.held[t], changed = true, true
					}
				}
			}
			return true
		})
	}
}

// targets returns the variables an assignment or declaration sets from the
// right-hand sides that pick selects.
func (s *scope) targets(n ast.Node, pick func(rhs ast.Expr) bool) []*types.Var {
	var lhs, rhs []ast.Expr
	switch n := n.(type) {
	case *ast.AssignStmt:
		lhs, rhs = n.Lhs, n.Rhs
	case *ast.ValueSpec:
		for _, id := range n.Names {
			lhs = append(lhs, id)
		}
		rhs = n.Values
	default:
		return nil
	}
	var out []*types.Var
	for i, r := range rhs {
		if !pick(r) {
			continue
		}
		set := lhs
		if len(rhs) == len(lhs) {
			set = lhs[i : i+1]
		}
		for _, l := range set {
			if v := s.varOf(l); v != nil && v.Name() != "_" { // a blank holds nothing
				out = append(out, v)
			}
		}
	}
	return out
}

func (s *scope) varOf(e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	if v, ok := s.pass.TypesInfo.Defs[id].(*types.Var); ok {
		return v
	}
	v, _ := s.pass.TypesInfo.Uses[id].(*types.Var)
	return v
}

// root returns the variable an expression is read from through fields,
// indexes and method calls (c in c.Held(), res in res.RowsAffected()), or
// reports that it is read from the claiming call itself
// (rdb.SetNX(...).Val()).
func (s *scope) root(c *Claim, e ast.Expr) (*types.Var, bool) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			if x == c.Call || slices.ContainsFunc(x.Args, func(a ast.Expr) bool { return ast.Unparen(a) == c.Call }) {
				return nil, true // the call, or a conversion of its reply: redis.String(conn.Do(...))
			}
			sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok {
				return nil, false
			}
			e = sel.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.Ident:
			return s.varOf(x), false
		default:
			return nil, false
		}
	}
}

// deferredBefore is what the calls deferred before the claim, such as a
// tx.Rollback, do to it.
func (w *walker) deferredBefore() Settle {
	var out Settle
	ast.Inspect(w.f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			if n.Pos() < w.c.site().Pos() {
				out |= w.deferred(n.Call)
			}
		}
		return true
	})
	return out
}

// deferred is what a deferred call does to the claim; settles looks into
// the body of a deferred function literal.
func (w *walker) deferred(call *ast.CallExpr) Settle {
	return w.s.settles(w.c, call)
}

func (w *walker) block(b *cfg.Block, st state) {
	k := visit{b, st}
	if w.seen[k] || len(w.seen) >= maxVisits {
		return
	}
	w.seen[k] = true
	w.nodes(b, 0, st)
}

// nodes walks b from its node at from.
func (w *walker) nodes(b *cfg.Block, from int, st state) {
	for _, n := range b.Nodes[from:] {
		if n == w.c.Stmt {
			return // around a loop to the claim: a claim of its own
		}
		var stop bool
		if st, stop = w.step(n, st); stop {
			return
		}
	}
	if isCond(b) {
		w.branch(b, st)
		return
	}
	for _, succ := range b.Succs {
		if w.nextTurn(succ) {
			w.turnEnds(b, st)
			continue
		}
		w.block(succ, st)
	}
}

// enclosingLoops returns the for and range statements of body whose body
// holds call, up to the first function literal.
func enclosingLoops(body *ast.BlockStmt, call *ast.CallExpr) map[ast.Stmt]bool {
	loops := map[ast.Stmt]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.Pos() > call.Pos() || n.End() < call.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			if n.Body.Pos() <= call.Pos() {
				loops[n] = true
			}
		case *ast.RangeStmt:
			if n.Body.Pos() <= call.Pos() {
				loops[n] = true
			}
		}
		return true
	})
	return loops
}

// nextTurn reports whether b starts the next turn of a loop the claim was
// made in: its head, its post statement, or the body of a for without a
// condition.
func (w *walker) nextTurn(b *cfg.Block) bool {
	switch b.Kind {
	case cfg.KindForLoop, cfg.KindForPost, cfg.KindRangeLoop, cfg.KindForBody:
		// (a for without a condition goes back to its body's block)
		return w.loops[b.Stmt]
	}
	return false
}

// turnEnds ends a path at the end of the turn of a loop that made the
// claim: a turn that finished its work leaves the key as its record, and
// the next turn's ways out are the next claim's business. A continue on
// the side of an if where an error is non-nil leaves the key held after a
// failure: an error exit.
func (w *walker) turnEnds(b *cfg.Block, st state) {
	if b.Kind != cfg.KindIfThen && b.Kind != cfg.KindIfElse {
		return
	}
	is, ok := b.Stmt.(*ast.IfStmt)
	if !ok {
		return
	}
	nonNilWhen, ok := w.errorSide(is.Cond)
	if !ok || nonNilWhen != (b.Kind == cfg.KindIfThen) {
		return
	}
	list := is.Body.List
	if b.Kind == cfg.KindIfElse {
		blk, ok := is.Else.(*ast.BlockStmt)
		if !ok {
			return
		}
		list = blk.List
	}
	if len(list) == 0 {
		return
	}
	br, ok := list[len(list)-1].(*ast.BranchStmt)
	if !ok || br.Tok != token.CONTINUE {
		return
	}
	w.exits[Exit{Continue: br, Failure: st.failure, Error: true, Deferred: st.deferred, Partial: st.partial}] = true
}

// branch follows each side of b's condition on which the claim may be held.
func (w *walker) branch(b *cfg.Block, st state) {
	cond := b.Nodes[len(b.Nodes)-1].(ast.Expr)
	for i, succ := range b.Succs {
		if next, ok := w.assume(st, cond, i == 0); ok {
			w.block(succ, next)
		}
	}
}

// step applies one node to the state; stop ends the path: the claim is
// settled, or the function returns.
func (w *walker) step(n ast.Node, st state) (_ state, stop bool) {
	switch n := n.(type) {
	case *ast.DeferStmt:
		st.deferred |= w.deferred(n.Call)
		return st, false
	case *ast.GoStmt:
		// Work handed to a goroutine that completes or releases the key
		// owns the claim from here: the walk follows it there, to the
		// failures on which the goroutine returns with the key held.
		if w.s.settles(w.c, n.Call) == 0 {
			return st, false
		}
		w.goroutine(n)
		return st, true
	}
	st = w.notePartial(n, st)
	switch n := n.(type) {
	case *ast.ReturnStmt:
		if w.settledBy(n) {
			return st, true
		}
		e := Exit{Return: n, Failure: st.failure, Error: st.partial != nil || w.failing(n, st), Deferred: st.deferred, Partial: st.partial}
		if w.returnsClaim(n) {
			w.c.handed = append(w.c.handed, e) // the caller's from here; handoffs reads it
		} else {
			w.exits[e] = true
		}
		return st, true
	}
	if w.settledBy(n) || w.fillsValue(n) {
		return st, true
	}
	if st.failure == nil {
		st.failure = w.failure(n)
	}
	for _, v := range w.s.targets(n, func(ast.Expr) bool { return true }) {
		if v == w.c.err {
			// err := row.Scan(&id) reads the claim's outcome; another
			// assignment replaces it.
			st.errLive = slices.Contains(w.s.targets(n, func(rhs ast.Expr) bool { r, isClaim := w.s.root(w.c, rhs); return isClaim || w.c.held[r] }), v)
		}
		st.nilErrs &^= w.bits[v]
	}
	return st, false
}

// settledBy reports whether a call in n settles the claim.
func (w *walker) settledBy(n ast.Node) bool {
	settled := false
	inspectBody(n, func(call *ast.CallExpr) {
		settled = settled || w.s.settles(w.c, call) != 0
	})
	return settled
}

// returnsClaim reports whether a return hands the claim's result to the
// caller, as an unannotated claim helper does.
func (w *walker) returnsClaim(ret *ast.ReturnStmt) bool {
	found := false
	for _, r := range ret.Results {
		if isError(w.info.TypeOf(r)) {
			if _, ok := ast.Unparen(r).(*ast.CallExpr); ok {
				continue // fmt.Errorf("payout %s: %w", p.ID, err) names the claimed row; it hands nothing on
			}
		}
		ast.Inspect(r, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.Ident:
				if v := w.s.varOf(n); v != nil && w.c.held[v] {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// failure returns the call in n that answers HTTP with a failing status.
func (w *walker) failure(n ast.Node) *ast.CallExpr {
	var found *ast.CallExpr
	inspectBody(n, func(call *ast.CallExpr) {
		if found == nil && FailureStatus(w.info, call) != nil {
			found = call
		}
	})
	return found
}

// FailureStatus returns the constant 4xx or 5xx status a call answers HTTP
// with, or nil: http.Error(w, msg, code) and w.WriteHeader(code); a
// helper given the ResponseWriter and the status (writeJSON(w, 502, v));
// any call given a net/http status constant (c.JSON(http.StatusConflict,
// ...)), or a literal one when its name says it answers (c.AbortWithStatus(500),
// respondError(502)). A helper given the ResponseWriter and an error
// (writeError(w, err)) answers a failure too; its status is unknown and
// the call itself is returned.
func FailureStatus(info *types.Info, call *ast.CallExpr) ast.Expr {
	writer := false
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isHTTP(info.TypeOf(sel.X), "ResponseWriter") {
		writer = true
	}
	var status ast.Expr
	named, hasErr := false, false
	for _, a := range call.Args {
		t := info.TypeOf(a)
		switch {
		case isHTTP(t, "ResponseWriter"):
			writer = true
		case isError(t):
			hasErr = true
		case status == nil && statusAtLeast(info, a, 400):
			status, named = a, httpConst(info, a)
		}
	}
	switch {
	case status != nil && (named || writer || answerName(info, call) || frameworkAnswer(info, call)):
		return status
	case writer && hasErr:
		return call
	}
	return nil
}

// answers reports whether a call answers a request with a constant
// status below 400, by its name (c.JSON(http.StatusOK, v),
// c.NoContent(204)). fiber sets the status on the context before the
// answer (c.Status(201).JSON(v)), or leaves it at 200 (c.JSON(v),
// c.SendString(s)).
func answers(info *types.Info, call *ast.CallExpr) bool {
	if !answerName(info, call) && !frameworkAnswer(info, call) {
		return false
	}
	for _, a := range call.Args {
		if tv := info.Types[a]; tv.Value != nil && tv.Value.Kind() == constant.Int {
			n, ok := constant.Int64Val(tv.Value)
			return ok && n >= 100 && n < 400
		}
	}
	if !fiberAnswer(info, call) || slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return isInteger(info.TypeOf(a)) }) {
		return false
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if set, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok {
			return answers(info, set) // c.Status(n).JSON(v): n is the answer's status
		}
	}
	return true // c.JSON(v): 200, unless a statement before set another (not followed)
}

// fiberAnswer reports whether a call is a method of fiber's Ctx that
// answers the request, with the status the context holds.
func fiberAnswer(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || !strings.HasPrefix(fn.Pkg().Path(), "github.com/gofiber/fiber") {
		return false
	}
	switch fn.Name() {
	case "JSON", "JSONP", "XML", "SendString", "Send", "Status", "Render":
		return fn.Signature().Recv() != nil
	}
	return false
}

// isInteger reports whether t is an integer type (a status may be one
// that is not a constant).
func isInteger(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// frameworkAnswers are the methods web frameworks (gin, echo, fiber)
// answer a request with.
var frameworkAnswers = []string{"JSON", "IndentedJSON", "PureJSON", "SecureJSON", "JSONP", "JSONPretty", "JSONBlob", "XML", "Blob", "String", "HTML", "Data", "Render", "NoContent", "Status", "SendStatus"}

func frameworkAnswer(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Signature().Recv() != nil && slices.Contains(frameworkAnswers, fn.Name())
}

// answerName reports whether a call's name says it answers a request.
func answerName(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && slices.ContainsFunc(match.Words(fn.Name()), func(w string) bool { return slices.Contains(answerWords, w) })
}

var answerWords = []string{"error", "status", "json", "abort", "respond", "response", "reply", "write", "fail", "problem", "render", "send"}

// httpConst reports whether e names one of net/http's constants.
func httpConst(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	c, ok := info.Uses[sel.Sel].(*types.Const)
	return ok && c.Pkg() != nil && c.Pkg().Path() == "net/http"
}

// Status5xx reports whether e is a constant HTTP status of 500 or more.
func Status5xx(info *types.Info, e ast.Expr) bool {
	return statusAtLeast(info, e, 500)
}

// statusAtLeast reports whether e is a constant HTTP status from min to
// 599.
func statusAtLeast(info *types.Info, e ast.Expr, min int64) bool {
	tv := info.Types[e]
	if tv.Value == nil || tv.Value.Kind() != constant.Int {
		return false
	}
	n, ok := constant.Int64Val(tv.Value)
	return ok && n >= min && n <= 599
}

// failing reports whether a return fails: after a 4xx or 5xx response,
// returning an error that is not known to be nil, or, in a function that
// has no error to return, inside the branch that handles a failed call.
func (w *walker) failing(ret *ast.ReturnStmt, st state) bool {
	if st.failure != nil {
		return true
	}
	res := w.f.Sig.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return w.inFailureBranch(ret)
	}
	if len(ret.Results) == 0 { // a bare return of named results
		return !w.knownNil(res.At(res.Len()-1), st)
	}
	if len(ret.Results) != res.Len() {
		return true // return f(), with f's error
	}
	last := ast.Unparen(ret.Results[len(ret.Results)-1])
	if call, ok := last.(*ast.CallExpr); ok && answers(w.info, call) {
		return false // return c.JSON(http.StatusOK, resp): echo's answer, whose error is the write's
	}
	if call, ok := last.(*ast.CallExpr); ok && acks(w.info, call) {
		return false // return m.Ack(): the work is done; its error is the acknowledgement's
	}
	if v := w.s.varOf(last); v != nil && w.ackErr(ret, v) {
		return false // if err := r.CommitMessages(ctx, m); err != nil { return err }: the acknowledgement's
	}
	if v := w.s.varOf(last); v != nil && v == w.c.err && st.errLive {
		return false // the claim's own failure: then nothing was taken
	}
	if v := w.s.varOf(last); w.isNil(last) || v != nil && w.knownNil(v, st) {
		// nil: a failure swallowed by a consumer is its choice, but a
		// function that must answer and gives back nothing after a failed
		// call has failed (if err != nil { log; return nil, nil })
		return w.f.Responder && w.emptyAnswer(ret) && w.inFailureBranch(ret)
	}
	return true
}

// emptyAnswer reports whether a return gives back only zero values
// besides its error: nil, "", 0, false, T{}.
func (w *walker) emptyAnswer(ret *ast.ReturnStmt) bool {
	for _, r := range ret.Results[:len(ret.Results)-1] {
		r = ast.Unparen(r)
		if w.isNil(r) {
			continue
		}
		if tv := w.info.Types[r]; tv.Value != nil {
			if v := tv.Value; v.Kind() == constant.String && constant.StringVal(v) == "" ||
				v.Kind() == constant.Bool && !constant.BoolVal(v) || numeric(v) && constant.Sign(v) == 0 {
				continue
			}
			return false
		}
		if lit, ok := r.(*ast.CompositeLit); ok && len(lit.Elts) == 0 {
			continue
		}
		return false
	}
	return true
}

// inFailureBranch reports whether ret sits, after the claim, in the
// branch of an if or a case taken when an error other than the claim's
// own is non-nil: if err != nil { log.Print(err); return }.
func (w *walker) inFailureBranch(ret *ast.ReturnStmt) bool {
	found := false
	ast.Inspect(w.f.Body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() > ret.Pos() || ret.End() > n.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if n.Pos() > w.from {
				if side, ok := w.errorSide(n.Cond); ok {
					in := n.Body
					if !side {
						in = nil
						if blk, ok := n.Else.(*ast.BlockStmt); ok {
							in = blk
						}
					}
					found = in != nil && in.Pos() <= ret.Pos() && ret.End() <= in.End()
				}
			}
		case *ast.CaseClause:
			if n.Pos() > w.from {
				for _, e := range n.List {
					if side, ok := w.errorSide(e); ok && side {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// errorSide reports whether cond compares an error other than the claim's
// own with nil, and on which side of it the error is non-nil.
func (w *walker) errorSide(cond ast.Expr) (nonNilWhen, ok bool) {
	switch e := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.NEQ, token.EQL:
			x, y := e.X, e.Y
			if w.isNil(x) {
				x, y = y, x
			}
			if !w.isNil(y) || !isError(w.info.TypeOf(x)) {
				return false, false
			}
			if v, isClaim := w.s.root(w.c, x); isClaim || v != nil && v == w.c.err {
				return false, false
			}
			return e.Op == token.NEQ, true
		case token.LOR:
			if side, ok := w.errorSide(e.X); ok && side {
				return true, true
			}
			if side, ok := w.errorSide(e.Y); ok && side {
				return true, true
			}
		}
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			side, ok := w.errorSide(e.X)
			return !side, ok
		}
	}
	return false, false
}

func (w *walker) knownNil(v *types.Var, st state) bool {
	bit := w.bits[v]
	return bit != 0 && st.nilErrs&bit != 0
}

// bit returns v's bit in state.nilErrs, assigning one; 0 once 64 variables
// have one.
func (w *walker) bit(v *types.Var) uint64 {
	if b, ok := w.bits[v]; ok {
		return b
	}
	if len(w.bits) >= 64 {
		return 0
	}
	b := uint64(1) << len(w.bits)
	w.bits[v] = b
	return b
}

func (w *walker) isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && w.info.Uses[id] == types.Universe.Lookup("nil")
}

// assume refines st with cond == val. It returns false when the claim
// cannot have taken the key on that side: the claim failed, or said the
// key was someone else's.
func (w *walker) assume(st state, cond ast.Expr, val bool) (state, bool) {
	if tag, ok := w.caseTag[cond]; ok {
		return w.compare(st, tag, cond, val)
	}
	switch e := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return w.assume(st, e.X, !val)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR:
			if (e.Op == token.LAND) == val { // both sides hold val
				st, ok := w.assume(st, e.X, val)
				if !ok {
					return st, false
				}
				return w.assume(st, e.Y, val)
			}
			// X holds val, or X does not and Y does
			s1, ok1 := w.assume(st, e.X, val)
			s2, ok2 := w.assume(st, e.X, !val)
			if ok2 {
				s2, ok2 = w.assume(s2, e.Y, val)
			}
			switch {
			case ok1 && ok2:
				s1.nilErrs &= s2.nilErrs
				return s1, true
			case ok2:
				return s2, true
			}
			return s1, ok1
		case token.EQL, token.NEQ:
			return w.compare(st, e.X, e.Y, (e.Op == token.EQL) == val)
		case token.LSS, token.GTR, token.LEQ, token.GEQ:
			return st, w.order(e, val)
		}
	case *ast.CallExpr:
		if isBool(w.info.TypeOf(e)) && slices.ContainsFunc(e.Args, func(a ast.Expr) bool { return w.claimErr(a, st) }) {
			// errors.Is(err, redis.Nil), rueidis.IsRedisNil(err),
			// isUniqueViolation(err): true only of an error, when the
			// claim failed as expected; of SET NX GET's, when it set
			// the key
			return st, val == w.c.nilClaims
		}
	}
	if call := w.predicateCall(cond); call != nil && slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return w.claimErr(a, st) }) {
		return st, val == w.c.nilClaims // _, dup := cancelledByCondition(err); dup: the predicate's answer, kept
	}
	if w.held(cond) && isBool(w.info.TypeOf(cond)) {
		return st, val != w.doneWhenTrue(cond) // ok, c.Held(), rdb.SetNX(...).Val(); seen, exists
	}
	return st, true
}

// doneWhenTrue reports whether a boolean read from the claim's result
// says, when true, that the key was already taken or done rather than
// taken by this call: a helper's "seen" or "exists" (see polarity), a
// field or method named so (res.Duplicate, c.AlreadyDone()).
func (w *walker) doneWhenTrue(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v := w.s.varOf(x); v != nil {
			return w.c.done[v]
		}
	case *ast.CallExpr:
		if x == w.c.Call {
			return w.c.doneCall
		}
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			if v, isClaim := w.s.root(w.c, sel.X); isClaim && w.c.Via == Directive {
				return w.c.doneCall // helper(...).Val()
			} else if v != nil {
				return doneName(sel.Sel.Name)
			}
		}
	case *ast.SelectorExpr:
		return doneName(x.Sel.Name)
	}
	return false
}

// compare refines st with x == y when eq, x != y otherwise.
func (w *walker) compare(st state, x, y ast.Expr, eq bool) (state, bool) {
	if w.isNil(x) {
		x, y = y, x
	}
	if w.isNil(y) {
		if w.c.nilClaims && w.claimErr(x, st) {
			return st, !eq // SET NX GET answered the value there: nothing was taken
		}
		if w.claimErr(x, st) && !eq {
			return st, false // the claim failed: nothing was taken
		}
		if v := w.s.varOf(x); v != nil && isError(v.Type()) {
			if bit := w.bit(v); eq {
				st.nilErrs |= bit
			} else {
				st.nilErrs &^= bit
			}
		}
		return st, true
	}
	if w.claimErr(x, st) || w.claimErr(y, st) {
		return st, eq == w.c.nilClaims // err == redis.Nil: the claim failed as expected, or SET NX GET set the key
	}
	if !w.held(x) {
		x, y = y, x
	}
	if !w.held(x) {
		return st, true
	}
	if tv := w.info.Types[y]; w.c.nilClaims && tv.Value != nil && tv.Value.ExactString() == `""` {
		return st, eq // SET NX GET's or GETSET's old value: none when this call set the key
	}
	taken, known := w.takenIf(y, eq)
	if w.c.first {
		taken, known = w.firstIf(token.EQL, y, eq)
	}
	if tv := w.info.Types[y]; tv.Value != nil && tv.Value.Kind() == constant.Bool && w.doneWhenTrue(x) {
		taken = !taken
	}
	return st, !known || taken
}

// takenIf says whether the key is taken when the claim's result equals
// the constant y (eq) or differs from it.
func (w *walker) takenIf(y ast.Expr, eq bool) (taken, known bool) {
	byName := func(name string) (bool, bool) {
		t := takenName(name)
		switch {
		case eq:
			return t, true
		case t: // not the outcome that takes the key; another that does, such as TakenOver, reaches its own case
			return false, true
		}
		return false, false
	}
	if obj := w.constObj(y); obj != nil {
		if _, named := types.Unalias(obj.Type()).(*types.Named); named {
			return byName(obj.Name()) // an outcome enumeration: its values mean nothing, its names do
		}
	}
	tv := w.info.Types[y]
	if tv.Value == nil {
		return false, false
	}
	switch tv.Value.Kind() {
	case constant.Bool:
		return constant.BoolVal(tv.Value) == eq, true
	case constant.Int:
		n, ok := constant.Int64Val(tv.Value)
		switch {
		case !ok:
			return false, false
		case eq && n < 0:
			return false, true // a script's "already there" (-1), never a count of rows inserted
		case eq:
			return n != 0, true // rows inserted
		case n == 1:
			return false, true // not the one row a claim inserts
		}
	case constant.String:
		return byName(constant.StringVal(tv.Value)) // "OK" from SET NX
	}
	return false, false
}

// firstIf says whether the key is taken when an INCR's new value
// compares by op with the constant y as val says: it was taken by this
// call exactly when the value is 1 (n > 1 is a later caller's).
func (w *walker) firstIf(op token.Token, y ast.Expr, val bool) (taken, known bool) {
	tv := w.info.Types[y]
	if tv.Value == nil || tv.Value.Kind() != constant.Int {
		return false, false
	}
	return constant.Compare(constant.MakeInt64(1), op, tv.Value) == val, true
}

func (w *walker) constObj(e ast.Expr) *types.Const {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		c, _ := w.info.Uses[e].(*types.Const)
		return c
	case *ast.SelectorExpr:
		c, _ := w.info.Uses[e.Sel].(*types.Const)
		return c
	}
	return nil
}

// takenWords name an outcome in which the caller took the key.
var takenWords = []string{"claimed", "acquired", "taken", "won", "locked", "ok", "new", "held", "granted", "inserted", "created", "fresh"}

func takenName(name string) bool {
	return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(takenWords, w) })
}

// order reports whether a claim's row count can be non-zero when
// e (n < 1, n > 0, ...) is val.
func (w *walker) order(e *ast.BinaryExpr, val bool) bool {
	x, y, op := e.X, e.Y, e.Op
	if !w.held(x) {
		x, y = y, x
		op = map[token.Token]token.Token{token.LSS: token.GTR, token.GTR: token.LSS, token.LEQ: token.GEQ, token.GEQ: token.LEQ}[op]
	}
	tv := w.info.Types[y]
	if !w.held(x) || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return true
	}
	if w.c.first {
		taken, known := w.firstIf(op, y, val)
		return !known || taken
	}
	n, ok := constant.Int64Val(tv.Value)
	if !ok {
		return true
	}
	switch { // the count's upper bound on this side
	case (op == token.LSS && val) || (op == token.GEQ && !val):
		return n-1 > 0
	case (op == token.LEQ && val) || (op == token.GTR && !val):
		return n > 0
	}
	return true
}

// held reports whether e is the claim's result saying whether the key was
// taken, or read from it.
func (w *walker) held(e ast.Expr) bool {
	if isError(w.info.TypeOf(e)) {
		return false
	}
	v, isClaim := w.s.root(w.c, e)
	return isClaim || w.c.held[v]
}

// predicateCall returns the call a boolean variable is set from, once,
// when the call asks what errors are (errors.As(err, &tce) kept in ok, a
// helper's _, dup := cancelledByCondition(err)): reading the variable
// reads the predicate.
func (w *walker) predicateCall(cond ast.Expr) *ast.CallExpr {
	id, ok := ast.Unparen(cond).(*ast.Ident)
	if !ok || !isBool(w.info.TypeOf(id)) {
		return nil
	}
	v := w.s.varOf(id)
	if v == nil {
		return nil
	}
	var found *ast.CallExpr
	sets := 0
	ast.Inspect(w.f.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for _, l := range as.Lhs {
			if w.s.varOf(l) != v {
				continue
			}
			sets++
			if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(as.Rhs) == 1 {
				found = call
			}
		}
		return true
	})
	if sets != 1 {
		return nil
	}
	return found
}

// claimErr reports whether e is the claim's error, on a path where it
// still holds it.
func (w *walker) claimErr(e ast.Expr, st state) bool {
	if !isError(w.info.TypeOf(e)) {
		return false
	}
	if v, isClaim := w.s.root(w.c, e); isClaim {
		return true // rdb.SetArgs(...).Err()
	} else if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok && v != nil && w.c.own[v] && sel.Sel.Name == "Error" {
		return true // res.Error of a gorm Create
	} else if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && v != nil && w.c.own[v] && len(call.Args) == 0 && isErrMethod(call.Fun) {
		return true // cmd.Err() of cmd := rdb.SetNX(...)
	} else if v != nil && w.c.errOf[v] {
		return true // n, err := res.RowsAffected(): the claim's answer unknown
	} else if v == nil || v != w.c.err {
		return false
	}
	return st.errLive
}

// readsAnswer reports whether n assigns from the claim's own result what
// it says of the claim: the count of a statement's rows, res.RowsAffected()
// (or LastInsertId), whose error leaves the claim's outcome unknown. A
// query run on a connection the claim handed back is other work.
func (s *scope) readsAnswer(c *Claim, n ast.Node) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "RowsAffected" && sel.Sel.Name != "LastInsertId" {
		return false
	}
	v := s.varOf(sel.X)
	return v != nil && c.own[v]
}

// setOnce reports whether v is assigned in one place only in f, so that
// it holds what that assignment gave it wherever it is read.
func (s *scope) setOnce(f *Func, v *types.Var) bool {
	info, n := s.pass.TypesInfo, 0
	ast.Inspect(f.Body, func(x ast.Node) bool {
		if as, ok := x.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && (info.Defs[id] == v || info.Uses[id] == v) {
					n++
				}
			}
		}
		return true
	})
	return n == 1
}

// isErrMethod reports whether fun is a method value named Err, as a
// go-redis command's.
func isErrMethod(fun ast.Expr) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Err"
}

func isBool(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// numeric reports whether v is a number: constant.Sign panics on any
// other kind.
func numeric(v constant.Value) bool {
	switch v.Kind() {
	case constant.Int, constant.Float, constant.Complex:
		return true
	}
	return false
}

// ackNames are the calls a consumer acknowledges a message with once its
// work is done: NATS's Ack, AckSync and DoubleAck, Kafka readers'
// CommitMessages, AMQP's Ack.
var ackNames = []string{"Ack", "AckSync", "DoubleAck", "Acknowledge", "CommitMessages", "CommitOffsets", "MarkMessage"}

// acks reports whether call acknowledges a message: a method named so, of
// a type in another package.
func acks(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Signature().Recv() != nil && slices.Contains(ackNames, fn.Name())
}

// ackErr reports whether ret returns v inside an if on v whose init, or
// the statement just before it, assigns v from an acknowledgement: the
// work was done before it, and the key records that.
func (w *walker) ackErr(ret *ast.ReturnStmt, v *types.Var) bool {
	fromAck := func(st ast.Stmt) bool {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return false
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		return ok && acks(w.info, call) && slices.ContainsFunc(as.Lhs, func(l ast.Expr) bool { return w.s.varOf(l) == v })
	}
	found := false
	ast.Inspect(w.f.Body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() > ret.Pos() || n.End() < ret.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return n.Body.Pos() <= ret.Pos() && ret.End() <= n.Body.End()
		}
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		for i, st := range list {
			is, ok := st.(*ast.IfStmt)
			if !ok || !(is.Body.Pos() <= ret.Pos() && ret.End() <= is.Body.End()) {
				continue
			}
			if is.Init != nil && fromAck(is.Init) || is.Init == nil && i > 0 && fromAck(list[i-1]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// fillsValue reports whether n stores the response in the value a
// sync.Map claim put under the key: LoadOrStore(key, e) and then
// e.status, e.body = status, resp. Waiting duplicates read the entry
// they found, so filling it completes the key.
func (w *walker) fillsValue(n ast.Node) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok || w.c.Via != Store || !strings.HasPrefix(w.c.Record, "syncmap ") || len(w.c.Call.Args) < 2 {
		return false
	}
	id, ok := ast.Unparen(w.c.Call.Args[1]).(*ast.Ident)
	if !ok {
		return false
	}
	v := w.s.varOf(id)
	if v == nil {
		return false
	}
	for _, l := range as.Lhs {
		sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
		if ok && directive.BodyName(sel.Sel.Name) && w.s.varOf(sel.X) == v {
			return true
		}
	}
	return false
}

// notePartial notes in st the first call in n that releases only some of
// the records the claim wrote (see scope.partial).
func (w *walker) notePartial(n ast.Node, st state) state {
	if st.partial != nil || len(w.c.Records) < 2 {
		return st
	}
	inspectBody(n, func(call *ast.CallExpr) {
		if st.partial != nil {
			return
		}
		if left := w.s.partial(w.c, call); left != nil {
			if w.c.left == nil {
				w.c.left = map[*ast.CallExpr][]Write{}
			}
			w.c.left[call], st.partial = left, call
		}
	})
	return st
}

// goroutine follows the claim into the goroutine g starts, which settles
// it on some path: a function literal, or a function of the package given
// the key (go s.work(ctx, key, job)), or of another package whose Holds
// fact says it returns on a failure with the key held. The goroutine's failing returns
// with the key held are the claim's error exits; those in another
// function are reported at g.
func (w *walker) goroutine(g *ast.GoStmt) {
	if w.depth > 1 {
		return
	}
	c := w.c
	var f *Func
	var graph *cfg.CFG
	if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
		sig, ok := w.info.TypeOf(lit).(*types.Signature)
		if !ok {
			return
		}
		f, graph = &Func{Node: lit, Body: lit.Body, Sig: sig}, w.s.cfgs.FuncLit(lit)
	} else if fn := typeutil.StaticCallee(w.info, g.Call); fn != nil && w.s.decls[fn.Origin()] != nil && c.Key != nil {
		d := w.s.decls[fn.Origin()]
		key := w.s.paramFor(d, g.Call, c.Key)
		if key == nil {
			return
		}
		// the claim as the callee sees it: its key is the parameter
		// given the caller's, matched by the variables built from it
		via := c.Via
		if via == Redis {
			via = Directive
		}
		c = &Claim{Call: c.Call, Via: via, Callee: c.Callee, What: c.What, Key: key, Table: c.Table, Tables: c.Tables,
			Lock: c.Lock, Record: c.Record, Stmt: c.Stmt, Records: c.Records, left: c.left,
			held: map[*types.Var]bool{}, own: map[*types.Var]bool{}}
		f, graph = &Func{Node: d, Body: d.Body, Sig: fn.Signature()}, w.s.cfgs.FuncDecl(d)
	} else if fn != nil && c.Key != nil {
		// a function of another package: its Holds fact says where it
		// returns on a failure with the key it is given held
		var h Holds
		if w.s.pass.ImportObjectFact(fn.Origin(), &h) && h.Param < len(g.Call.Args) && w.s.overlap(c.Key, g.Call.Args[h.Param]) {
			w.exits[Exit{Error: true, Go: g, Far: h.Where}] = true
		}
		return
	}
	if graph == nil || len(graph.Blocks) == 0 {
		return
	}
	exits := w.s.walkWhole(f, c, graph, w.depth+1)
	if c != w.c && c.left != nil {
		w.c.left = c.left
	}
	_, isDecl := f.Node.(*ast.FuncDecl)
	for e := range exits {
		if !e.Error {
			continue // what a goroutine answers nobody replays
		}
		if isDecl {
			e.Go = g
		}
		w.exits[e] = true
	}
}

// walkWhole walks the whole of f, whose graph is graph, holding c from
// its first statement, as a goroutine given the key runs it (see
// goroutine, exportHolds), depth calls deep, and returns its exits.
func (s *scope) walkWhole(f *Func, c *Claim, graph *cfg.CFG, depth int) map[Exit]bool {
	sub := &walker{s: s, f: f, c: c, info: s.pass.TypesInfo, caseTag: caseTags(f.Body), bits: map[*types.Var]uint64{},
		seen: map[visit]bool{}, exits: map[Exit]bool{}, loops: map[ast.Stmt]bool{}, from: f.Body.Pos(), depth: depth}
	sub.block(graph.Blocks[0], state{})
	return sub.exits
}

// paramFor returns the identifier of the parameter of d that call passes
// key to (or a value key is built from), or nil.
func (s *scope) paramFor(d *ast.FuncDecl, call *ast.CallExpr, key ast.Expr) *ast.Ident {
	var names []*ast.Ident
	for _, field := range d.Type.Params.List {
		if len(field.Names) == 0 {
			names = append(names, nil)
		}
		names = append(names, field.Names...)
	}
	for i, a := range call.Args {
		if i < len(names) && names[i] != nil && names[i].Name != "_" && !match.IsContext(s.pass.TypesInfo.TypeOf(a)) && s.overlap(key, a) {
			return names[i]
		}
	}
	return nil
}
