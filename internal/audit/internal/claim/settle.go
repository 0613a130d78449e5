package claim

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// settles returns what call does to c.
func (s *scope) settles(c *Claim, call *ast.CallExpr) Settle {
	info := s.pass.TypesInfo
	if k, fn := s.dirs.Call(info, call); fn != nil && k&(directive.Release|directive.Complete) != 0 {
		if f, _ := s.dirs.Fact(fn); !f.Inferred || s.sameKey(c, call, f) {
			if s.partial(c, call) != nil {
				return 0 // the walk notes what it leaves
			}
			return settleOf(k)
		}
	}
	// the Redis command call is, read once for command and script
	rc, isRedis := s.redis(call)
	onKey := isRedis && c.Key != nil && s.sameRedisKey(c, rc.Key)
	if out := s.command(c, call, rc, onKey); out != 0 {
		return out
	}
	if c.first && s.expiresKey(c, call) {
		return Completed // the counter kept for its window: the INCR's record, done
	}
	if c.transition && call != c.Call {
		if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && fn == c.Callee && slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return s.overlap(c.Key, a) }) {
			return Completed // moved on: to done, or back to where it was
		}
	}
	// a script read as a command on the key: command has settled what a
	// DEL or SET of it does, and a read or a claim gives nothing back
	if !(onKey && rc.Script) && s.script(c, call) {
		return Released
	}
	if out := s.endsTx(c, call); out != 0 {
		return out
	}
	if out := s.closure(c, call); out != 0 {
		return out
	}
	if s.handsOff(c, call) {
		return HandedOff
	}
	if fn := typeutil.StaticCallee(info, call); fn != nil && s.decls[fn.Origin()] != nil {
		sum := s.summary(fn.Origin())
		out := sum.settle(c)
		if c.Key != nil && slices.ContainsFunc(sum.released, func(k ast.Expr) bool { return s.overlap(c.Key, k) }) {
			out |= Released
		}
		return out
	}
	return 0
}

// expiresKey reports whether call is a go-redis EXPIRE (Expire,
// PExpire, ExpireAt, PExpireAt) of c's key.
func (s *scope) expiresKey(c *Claim, call *ast.CallExpr) bool {
	fn := callee(s.pass.TypesInfo, call)
	if fn == nil || !goRedis(fn) || len(call.Args) < 2 || c.Key == nil {
		return false
	}
	switch fn.Name() {
	case "Expire", "PExpire", "ExpireAt", "PExpireAt":
		return s.sameRedisKey(c, call.Args[1])
	}
	return false
}

// command returns what a store command does to c: a DEL, HDEL, SREM or
// ZREM of its key, or a DELETE from its table (a DeleteOne or DeleteItem
// of its collection or table), releases it; a SET, GETSET or HSET of
// the key, an UPDATE of the table (an UpdateOne or UpdateItem), a gorm
// Update, Updates or Save of its model completes it. rc is the Redis
// command call is, and onKey says it is one on c's key.
func (s *scope) command(c *Claim, call *ast.CallExpr, rc match.RedisCall, onKey bool) Settle {
	info := s.pass.TypesInfo
	if onKey {
		switch rc.Op {
		case match.RedisDel, match.RedisHDel, match.RedisSRem, match.RedisZRem:
			return Released
		case match.RedisSet, match.RedisHSet:
			return Completed
		case match.RedisSetNX:
			if rc.Command == "GETSET" && call != c.Call {
				return Completed // the result swapped in, whatever was there
			}
		}
	}
	if c.Via == Store {
		var settled Settle
		for _, a := range match.ClassifyAll(s.pass.Fset, info, call) {
			if a.Record != c.Record || len(a.Keys) == 0 || !s.overlap(c.Key, a.Keys[0]) && !s.ofClaimed(c, a.Keys[0]) {
				continue
			}
			switch a.Op {
			case match.OpDelete:
				return Released
			case match.OpWrite, match.OpUpdate, match.OpGuarded:
				settled = Completed
			}
		}
		return settled
	}
	if c.Via != SQL && len(c.Tables) == 0 {
		return 0
	}
	if sc, ok := match.SQL(info, call); ok {
		if c.Table == advisoryTable && sc.Const && advisoryUnlock.MatchString(sc.Text) {
			return Released
		}
		if st := sc.Statement(); s.claimsTable(c, st.Table) {
			switch st.Verb {
			case match.Delete:
				return Released
			case match.Update:
				return Completed
			}
		}
	}
	if w, ok := ORMUpdate(info, call); ok && s.claimsTable(c, w.Model) {
		if w.Method == "Delete" {
			return Released
		}
		return Completed
	}
	if a, ok := match.Classify(s.pass.Fset, info, call); ok && (strings.HasPrefix(a.Record, "sql ") || directive.DocStore(a.Record)) && s.claimsTable(c, a.Target) {
		switch a.Op {
		case match.OpDelete:
			return Released
		case match.OpUpdate, match.OpGuarded:
			return Completed
		}
	}
	return 0
}

// ofClaimed reports whether a key is read from what the claim returned:
// the ID of the row an ent Create inserted (UpdateOneID(rec.ID)), or the
// row itself (rec.Update()).
func (s *scope) ofClaimed(c *Claim, key ast.Expr) bool {
	v, _ := s.root(c, key)
	return v != nil && c.own[v]
}

// claimsTable reports whether c is a claim of a row of table (a table or
// a gorm model).
func (s *scope) claimsTable(c *Claim, table string) bool {
	return SameRecord(c.Table, table) || slices.ContainsFunc(c.Tables, func(t string) bool { return SameRecord(t, table) })
}

// sameRedisKey reports whether a command's key is c's: the same
// expression, or, for a claim made through a helper, a key built from
// the same variables as the helper's key argument.
func (s *scope) sameRedisKey(c *Claim, key ast.Expr) bool {
	if types.ExprString(key) == types.ExprString(c.Key) {
		return true
	}
	return c.Via == Directive && s.overlap(c.Key, key)
}

// sameKey reports whether a call of a helper inferred to release or
// complete a key concerns c's: its key argument shares a variable with
// c's key, and its table, if it has one, is c's.
func (s *scope) sameKey(c *Claim, call *ast.CallExpr, f directive.Fact) bool {
	if len(f.Tables) > 0 && !slices.ContainsFunc(f.Tables, func(t string) bool { return s.claimsTable(c, t) }) {
		return false
	}
	if len(f.Tables) == 0 && c.Via == SQL {
		return false
	}
	if f.Key < 0 || f.Key >= len(call.Args) || c.Key == nil {
		return true
	}
	return s.overlap(c.Key, call.Args[f.Key])
}

// overlap reports whether two key expressions are built from a common
// variable other than a context, or are the same constant.
func (s *scope) overlap(a, b ast.Expr) bool {
	va, vb := s.keyVars(a), s.keyVars(b)
	if len(va) == 0 && len(vb) == 0 {
		return types.ExprString(a) == types.ExprString(b)
	}
	for v := range va {
		if vb[v] {
			return true
		}
	}
	return false
}

func (s *scope) keyVars(e ast.Expr) map[types.Object]bool {
	out := map[types.Object]bool{}
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if v, ok := s.pass.TypesInfo.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
				out[v] = true // msg.ID and ev.ID share ID
			}
		}
		if id, ok := n.(*ast.Ident); ok {
			// (a parameter's own identifier, a definition, stands for the
			// key a goroutine is given: see walker.goroutine)
			if v, ok := s.pass.TypesInfo.ObjectOf(id).(*types.Var); ok && !v.IsField() && !types.IsInterface(v.Type()) {
				out[v] = true
			}
		}
		return true
	})
	return out
}

// closure returns what a call does to c through a function it runs: the
// unlock a lock helper returned, a method of the claim's result that
// gives it back (lease.Release(), mu.Unlock()), a local closure set once
// (release := func() { rdb.Del(ctx, key) }), or a function literal passed
// to the call (g.Go(func() error { ...; complete(key) })).
func (s *scope) closure(c *Claim, call *ast.CallExpr) Settle {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		v := s.varOf(fun)
		if v == nil {
			break
		}
		if _, isFunc := v.Type().Underlying().(*types.Signature); isFunc && c.own[v] {
			return Released
		}
		if lit := s.lits[v]; lit != nil {
			if out := s.literal(c, lit); out != 0 {
				return out
			}
		}
	case *ast.SelectorExpr:
		if c.Mutex && sameReceiver(c.Call, fun) && slices.ContainsFunc(match.Words(fun.Sel.Name), func(w string) bool { return slices.Contains(releaseWords, w) }) {
			return Released // mutex.Unlock() after mutex.Lock()
		}
		if v, _ := s.root(c, fun.X); v != nil && c.own[v] {
			switch {
			case slices.ContainsFunc(match.Words(fun.Sel.Name), func(w string) bool { return slices.Contains(releaseWords, w) }):
				return Released
			case slices.ContainsFunc(match.Words(fun.Sel.Name), func(w string) bool { return slices.Contains(completeWords, w) }):
				return Completed
			}
		}
	case *ast.FuncLit:
		return s.literal(c, fun)
	}
	var out Settle
	for _, a := range call.Args {
		if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
			out |= s.literal(c, lit)
		}
	}
	return out
}

// sameReceiver reports whether a method selector is made on the receiver
// a claiming method call was made on.
func sameReceiver(claim *ast.CallExpr, sel *ast.SelectorExpr) bool {
	cs, ok := ast.Unparen(claim.Fun).(*ast.SelectorExpr)
	return ok && types.ExprString(cs.X) == types.ExprString(sel.X)
}

// releaseWords and completeWords name the methods of a claim's result
// (a lease, a lock, a mutex) that give it back or finish it.
var (
	releaseWords  = []string{"release", "unlock", "free", "cancel", "abort", "rollback"}
	completeWords = []string{"complete", "finish", "done", "commit", "ack"}
)

// literal returns what the calls in a function literal's body do to c.
func (s *scope) literal(c *Claim, lit *ast.FuncLit) Settle {
	if s.inLit[lit] {
		return 0
	}
	s.inLit[lit] = true
	defer delete(s.inLit, lit)
	var out Settle
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			out |= s.settles(c, call)
		}
		return true
	})
	return out
}

func settleOf(k directive.Kind) Settle {
	var out Settle
	if k&directive.Release != 0 {
		out |= Released
	}
	if k&directive.Complete != 0 {
		out |= Completed
	}
	return out
}

// endsTx returns what call does to a claim made in a transaction (on
// the transaction's receiver, or passing it, as pgstore's ClaimTx(ctx, tx,
// ...) does): a rollback takes the INSERT back; a commit makes it the
// record of the work committed with it, and when the commit fails the
// claim rolls back.
func (s *scope) endsTx(c *Claim, call *ast.CallExpr) Settle {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		return s.txFunc(c, id)
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0
	}
	var out Settle
	switch sel.Sel.Name {
	case "Rollback":
		out = Released
	case "Commit":
		out = Completed
	default:
		return 0
	}
	tx := types.ExprString(sel.X)
	if onTx(c.Call, tx) {
		return out
	}
	for _, a := range c.Call.Args {
		if types.ExprString(a) == tx {
			return out
		}
	}
	return 0
}

// onTx reports whether call is made on tx, directly or at the end of a
// builder chain rooted at it: tx.Exec(...), and ent's
// tx.Payment.Create().SetKey(k).Save(ctx).
func onTx(call *ast.CallExpr, tx string) bool {
	e := ast.Expr(call)
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			e = x.Fun
		case *ast.SelectorExpr:
			if types.ExprString(x.X) == tx {
				return true
			}
			e = x.X
		default:
			return false
		}
	}
}

// handsOff reports whether call passes the claim's result (or a field of
// it, such as its lease token) to code outside the standard library, which
// owns the claim from then on: the runtime's Keeper.Do hands a held claim
// to the function that runs the work.
func (s *scope) handsOff(c *Claim, call *ast.CallExpr) bool {
	if fn, ok := typeutil.Callee(s.pass.TypesInfo, call).(*types.Func); ok && fn.Pkg() != nil && std(fn.Pkg().Path()) {
		return false
	}
	if fn := typeutil.StaticCallee(s.pass.TypesInfo, call); fn != nil && s.decls[fn.Origin()] != nil && s.summary(fn.Origin()).settle(c) == 0 {
		// A function of the package whose body does nothing to the key
		// is given the claimed row to work on, not the claim to settle.
		return false
	}
	for _, a := range call.Args {
		if v, _ := s.root(c, a); v != nil && c.own[v] && !basicValue(s.pass.TypesInfo.TypeOf(a)) {
			return true
		}
	}
	return false
}

// std reports whether an import path belongs to the standard library.
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// basicValue reports whether t is a bool or a number: a claim's "taken"
// flag or row count, which says nothing when passed on.
func basicValue(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsNumeric) != 0
}

// effects is what a function of the package does to keys, whichever they
// are: a helper such as unlock(ctx, key) is known by its body.
type effects struct {
	release, complete  bool // //idemkit:release and //idemkit:complete calls
	redisDel, redisSet bool
	deletes, updates   map[string]bool // SQL tables
	rollback           bool
	// released are the keys of the releases the body makes whose kind
	// is only inferred (a store's Release(ctx, u.UserID, token)), where
	// the key is none of the function's parameters: a field of its
	// receiver, which a method of the same receiver shares
	// (u.releaseClaim(ctx, token)). The caller matches them with its key.
	released []ast.Expr
}

func (e *effects) settle(c *Claim) Settle {
	var out Settle
	if e.release || e.rollback {
		out |= Released
	}
	if e.complete {
		out |= Completed
	}
	switch c.Via {
	case Redis:
		if e.redisDel {
			out |= Released
		}
		if e.redisSet {
			out |= Completed
		}
	case SQL:
		if e.deletes[c.Table] {
			out |= Released
		}
		if e.updates[c.Table] {
			out |= Completed
		}
	}
	return out
}

// summary returns what fn's body does to keys, through the package's
// functions it calls in turn.
func (s *scope) summary(fn *types.Func) *effects {
	if e, done := s.effects[fn]; done {
		if e == nil {
			return &effects{} // recursion adds nothing
		}
		return e
	}
	s.effects[fn] = nil
	e := &effects{deletes: map[string]bool{}, updates: map[string]bool{}}
	info := s.pass.TypesInfo
	// params are fn's parameters and the locals made from them, worked
	// out when a release needs them
	var kp *directive.KeyParams
	params := func() *directive.KeyParams {
		if kp == nil {
			kp = &directive.KeyParams{Info: info, Keys: map[*types.Var]int{}}
			ps := fn.Signature().Params()
			for i := range ps.Len() {
				kp.Keys[ps.At(i)] = i
			}
			kp.Derive(s.decls[fn].Body)
		}
		return kp
	}
	ast.Inspect(s.decls[fn].Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if k, f := s.dirs.Call(info, call); f != nil && k != 0 {
			// an inferred kind is about a key of its own, matched where the
			// helper is called; only a directive says "whatever the key"
			if fact, _ := s.dirs.Fact(f); !fact.Inferred {
				e.release = e.release || k&directive.Release != 0
				e.complete = e.complete || k&directive.Complete != 0
			} else if k&directive.Release != 0 && fact.Key >= 0 && fact.Key < len(call.Args) && params().Param(call.Args[fact.Key]) < 0 {
				e.released = append(e.released, call.Args[fact.Key])
			}
		}
		if rc, ok := s.redis(call); ok {
			e.redisDel = e.redisDel || rc.Op == match.RedisDel
			e.redisSet = e.redisSet || rc.Op == match.RedisSet
		}
		if sc, ok := match.SQL(info, call); ok {
			switch st := sc.Statement(); st.Verb {
			case match.Delete:
				e.deletes[st.Table] = true
			case match.Update:
				e.updates[st.Table] = true
			}
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Rollback" {
			e.rollback = true
		}
		if f := typeutil.StaticCallee(info, call); f != nil && s.decls[f.Origin()] != nil {
			sub := s.summary(f.Origin())
			e.release = e.release || sub.release
			e.complete = e.complete || sub.complete
			e.redisDel = e.redisDel || sub.redisDel
			e.redisSet = e.redisSet || sub.redisSet
			e.rollback = e.rollback || sub.rollback
			e.released = append(e.released, sub.released...)
			for t := range sub.deletes {
				e.deletes[t] = true
			}
			for t := range sub.updates {
				e.updates[t] = true
			}
		}
		return true
	})
	s.effects[fn] = e
	return e
}

// responder reports whether f answers with something a replay must
// reproduce (see Func.Responder).
func (s *scope) responder(f *Func) bool {
	res := f.Sig.Results()
	for i := range res.Len() {
		t := res.At(i).Type()
		if i == res.Len()-1 && isError(t) {
			continue
		}
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsBoolean == 0 {
			return true
		}
	}
	if s.replies(f) || s.ginNext(f) || s.writesFramework(f) {
		return true
	}
	w := s.writer(f)
	if w == nil {
		return false
	}
	for call := range f.Calls() {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Write" && s.uses(sel.X, w) {
			return true
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "ServeHTTP" && len(call.Args) == 2 {
			return true // a middleware: next answers, through w or a recorder wrapping it
		}
		if fn := callee(s.pass.TypesInfo, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" {
			continue // http.Error, http.Redirect, http.NotFound answer without a result
		}
		for _, a := range call.Args {
			if s.uses(a, w) {
				return true // json.NewEncoder(w), fmt.Fprintf(w, ...), a writeJSON(w, ...) helper
			}
		}
	}
	return false
}

// writesFramework reports whether f writes a body to an
// http.ResponseWriter it gets from a parameter's method or field rather
// than as a parameter of its own: a web framework's context hands it out
// (mizu's c.Writer().Write(b), echo's c.Response().Writer.Write(b)).
func (s *scope) writesFramework(f *Func) bool {
	for call := range f.Calls() {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Write" || len(call.Args) != 1 || !isHTTP(s.pass.TypesInfo.TypeOf(sel.X), "ResponseWriter") {
			continue
		}
		if v := s.rootVar(sel.X); v != nil && isParam(f, v) {
			return true
		}
	}
	return false
}

// rootVar returns the variable a chain of selectors and calls starts
// from: c in c.Writer(), c.Response().Writer.
func (s *scope) rootVar(e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			e = x.Fun
		case *ast.SelectorExpr:
			e = x.X
		case *ast.Ident:
			v, _ := s.pass.TypesInfo.Uses[x].(*types.Var)
			return v
		default:
			return nil
		}
	}
}

// ginNext reports whether f is a gin middleware that runs the rest of
// the chain, c.Next() on its *gin.Context parameter: the handlers after
// it answer, through c.Writer, as next.ServeHTTP's does for net/http.
func (s *scope) ginNext(f *Func) bool {
	for call := range f.Calls() {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Next" || len(call.Args) != 0 {
			continue
		}
		if v := s.varOf(sel.X); v != nil && isParam(f, v) && ginContext(v.Type()) {
			return true
		}
	}
	return false
}

func ginContext(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Context" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "github.com/gin-gonic/gin"
}

// replies reports whether f answers a request it was given with what it
// computed: m.Respond(reply) on a NATS message, c.JSON(http.StatusOK, v)
// on a gin or echo context parameter, given more than constants.
func (s *scope) replies(f *Func) bool {
	info := s.pass.TypesInfo
	for call := range f.Calls() {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !slices.Contains(replyMethods, sel.Sel.Name) || len(call.Args) == 0 {
			continue
		}
		v := s.varOf(sel.X)
		if v == nil || !isParam(f, v) || FailureStatus(info, call) != nil {
			continue
		}
		for _, arg := range call.Args {
			arg = ast.Unparen(arg)
			if conv, ok := arg.(*ast.CallExpr); ok && len(conv.Args) == 1 && info.Types[conv.Fun].IsType() {
				arg = conv.Args[0] // []byte("...")
			}
			if info.Types[arg].Value == nil && !isError(info.TypeOf(arg)) {
				return true
			}
		}
	}
	return false
}

// replyMethods answer a request-reply message (NATS) or a web
// framework's request (gin, echo, fiber) with a body.
var replyMethods = []string{"Respond", "RespondMsg", "Reply", "JSON", "IndentedJSON", "PureJSON", "SecureJSON", "JSONP", "JSONPretty", "JSONBlob", "XML", "Blob", "Render", "Data"}

func isParam(f *Func, v *types.Var) bool {
	params := f.Sig.Params()
	for i := range params.Len() {
		if params.At(i) == v {
			return true
		}
	}
	return false
}

// writer returns f's http.ResponseWriter parameter, or nil.
func (s *scope) writer(f *Func) *types.Var {
	params := f.Sig.Params()
	for i := range params.Len() {
		if isHTTP(params.At(i).Type(), "ResponseWriter") {
			return params.At(i)
		}
	}
	return nil
}

func (s *scope) uses(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && s.pass.TypesInfo.Uses[id] == v
}

// isHTTP reports whether t is net/http's type name.
func isHTTP(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http"
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return t != nil && types.Identical(t, errorType) }

// txFunc reads a call of a function variable that a transaction helper
// returned with the transaction (tx, commit, rollback, err :=
// PrepareTx(ctx)): rollback() gives back a claim made through tx, and
// commit() makes it final.
func (s *scope) txFunc(c *Claim, id *ast.Ident) Settle {
	v, ok := s.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return 0
	}
	if _, ok := v.Type().Underlying().(*types.Signature); !ok {
		return 0
	}
	var out Settle
	switch ws := match.Words(v.Name()); {
	case slices.Contains(ws, "rollback"):
		out = Released
	case slices.Contains(ws, "commit"):
		out = Completed
	default:
		return 0
	}
	// the statement that defined v, and the other variables it defined
	var peers []string
	for _, f := range s.pass.Files {
		if v.Pos() < f.Pos() || v.Pos() >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || peers != nil || v.Pos() < n.Pos() || v.Pos() >= n.End() {
				return false
			}
			as, ok := n.(*ast.AssignStmt)
			if !ok || as.Tok != token.DEFINE {
				return true
			}
			for _, l := range as.Lhs {
				if l.Pos() != v.Pos() {
					peers = append(peers, types.ExprString(l))
				}
			}
			return false
		})
	}
	uses := func(e ast.Expr) bool { return slices.Contains(peers, types.ExprString(ast.Unparen(e))) }
	if cs, ok := ast.Unparen(c.Call.Fun).(*ast.SelectorExpr); ok && uses(cs.X) {
		return out
	}
	if slices.ContainsFunc(c.Call.Args, uses) {
		return out
	}
	return 0
}

func callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// scriptCalls are go-redis's calls that run a Lua script on the keys they
// are given.
var scriptCalls = []string{"Run", "RunRO", "Eval", "EvalRO", "EvalSha", "EvalShaRO"}

// redigoScript reports a method of redigo's Script that runs it: Do,
// DoContext, Send, SendHash.
func redigoScript(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil || fn.Pkg().Path() != "github.com/gomodule/redigo/redis" {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Script" && slices.Contains([]string{"Do", "DoContext", "Send", "SendHash"}, fn.Name())
}

// script reports whether call runs a Lua script through go-redis on c's
// Redis key: the compare-and-delete that gives a token-guarded lock back
// (unlock.Run(ctx, rdb, []string{key}, token)), or a script that settles
// the key some other way. Either way the key is the script's to settle;
// settles asks only of a script whose source it has not read as a
// command on the key.
func (s *scope) script(c *Claim, call *ast.CallExpr) bool {
	if c.Key == nil {
		return false
	}
	fn := typeutil.StaticCallee(s.pass.TypesInfo, call)
	if fn == nil {
		if f, ok := typeutil.Callee(s.pass.TypesInfo, call).(*types.Func); ok {
			fn = f
		}
	}
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	if redigoScript(fn) {
		// script.Do(conn, key, token): the keys come first among the
		// arguments after the connection
		return slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return s.sameRedisKey(c, a) })
	}
	if !slices.Contains(scriptCalls, fn.Name()) {
		return false
	}
	if !goRedis(fn) {
		return false
	}
	for _, a := range call.Args {
		lit, ok := ast.Unparen(a).(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, e := range lit.Elts {
			if s.sameRedisKey(c, e) {
				return true
			}
		}
	}
	return false
}
