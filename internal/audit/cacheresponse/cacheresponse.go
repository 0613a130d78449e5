package cacheresponse

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"iter"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
	"github.com/idemkit/idemkit/internal/audit/internal/report"
)

// Analyzer reports a key completed without its response, or with a 5xx.
var Analyzer = &analysis.Analyzer{
	Name:     "cacheresponse",
	Doc:      report.Doc("cacheresponse"),
	URL:      "https://pkg.go.dev/github.com/idemkit/idemkit/internal/audit/cacheresponse",
	Requires: []*analysis.Analyzer{claim.Analyzer, directive.Analyzer, report.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	a := &checker{
		pass: pass,
		info: pass.TypesInfo,
		r:    report.New(pass),
		dirs: pass.ResultOf[directive.Analyzer].(*directive.Directives),
	}
	a.claims = pass.ResultOf[claim.Analyzer].(*claim.Result)
	for _, f := range a.claims.Funcs {
		if f.Test() {
			continue
		}
		for call := range withDeferred(f) {
			if k, fn := a.dirs.Call(a.info, call); k&directive.Complete != 0 {
				a.complete(f, call, fn)
				continue
			}
			if f.Responder && f.Directive == 0 {
				a.redisFlag(f, call)
				a.storeFlag(f, call)
				a.statusOnly(f, call)
				a.sqlStatus(f, call)
				a.docStatus(f, call)
				a.hashStatus(f, call)
				a.ormStatus(f, call)
			}
		}
		if f.Responder {
			a.unrecorded(f)
			if f.Directive == 0 {
				a.memStatus(f)
			}
		}
	}
	return nil, nil
}

// withDeferred yields f's calls and those of the function literals it
// defers or starts as goroutines, which complete or release its claim on
// its behalf: on the way out, or in the background.
func withDeferred(f *claim.Func) iter.Seq[*ast.CallExpr] {
	return func(yield func(*ast.CallExpr) bool) {
		for call := range f.Calls() {
			if !yield(call) {
				return
			}
		}
		more := true
		ast.Inspect(f.Body, func(n ast.Node) bool {
			var call *ast.CallExpr
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // a literal called or passed on is a Func of its own
			case *ast.DeferStmt:
				call = n.Call
			case *ast.GoStmt:
				call = n.Call
			default:
				return more
			}
			if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && more {
						more = yield(call)
					}
					return more
				})
			}
			return false
		})
	}
}

type checker struct {
	pass   *analysis.Pass
	info   *types.Info
	r      *report.Reporter
	dirs   *directive.Directives
	claims *claim.Result
}

// complete checks an //idemkit:complete call: the response it stores must
// be there (where the function answers with one) and must not be a 5xx.
// A helper only inferred to complete a key is reported where its body
// stores a status alone and the caller claimed the key and answers.
func (a *checker) complete(f *claim.Func, call *ast.CallExpr, fn *types.Func) {
	if fact, _ := a.dirs.Fact(fn); a.outcome(f, call, fn, fact.Key, fact.Inferred) {
		return
	}
	if st := a.statusArg(fn, call); st != nil {
		if set := a.set5xx(f, call, st); set != nil {
			a.r.Report(analysis.Diagnostic{
				Pos: call.Pos(), End: call.End(),
				Message: fmt.Sprintf("%s stores the status %s, set to %s at %s: a transient failure would be replayed to every retry; release the key on a 5xx and complete only 2xx and 4xx (cacheresponse)",
					fn.Name(), types.ExprString(st), a.info.Types[set].Value.ExactString(), a.where(set.Pos())),
			})
			return
		}
	}
	if i := responseParam(fn.Signature()); i >= 0 && i < len(call.Args) {
		// Complete(ctx, key, rec.snapshot()): what a recorder captured
		if rv := a.recorded(call.Args[i]); rv != nil && !a.param(rv) && !a.checked(f, call, nil, rv) {
			a.r.Reportf(call, "%s stores %s whatever its status, without a check for 5xx before it: a transient failure would be replayed to every retry; release the key when the status is 500 or more and complete only 2xx and 4xx (cacheresponse)",
				fn.Name(), types.ExprString(call.Args[i]))
			return
		}
	}
	if fact, _ := a.dirs.Fact(fn); fact.Inferred {
		c := a.completes(f, call)
		if c == nil {
			c = a.lookup(f, call, fact.Key)
		}
		if c == nil || c.Lock || !a.answers(f) {
			return
		}
		what := "a status and no response"
		i := responseParam(fn.Signature())
		switch {
		case i >= 0 && i < len(call.Args) && a.empty(call.Args[i], nil):
			if st := a.statusArg(fn, call); st != nil && bodiless(a.info, st) {
				return // 204 No Content: nothing else to store
			}
			what = "an empty response"
		case i >= 0 && i < len(call.Args) && a.statusAlone(call.Args[i]):
			// &Kept{StatusCode: rec.Code}: the status, and no body
		case !fact.StatusOnly && !a.constantsAfter(call, fact.Key):
			return
		}
		a.r.Report(analysis.Diagnostic{
			Pos: call.Pos(), End: call.End(),
			Message: fmt.Sprintf("%s stores %s: it marks the key %s completed, so a retry cannot get back what this call answered; store the status code and the marshalled body with it (cacheresponse)",
				fn.Name(), what, a.took(c)),
			Related: claimRelated(c),
		})
		return
	}
	i := responseParam(fn.Signature())
	if i < 0 {
		if f.Responder {
			a.r.Reportf(call, "%s completes the key without the response: it takes none, so a retry cannot get back what this call answered; complete with the status and marshalled body (cacheresponse)", fn.Name())
		}
		return
	}
	if i >= len(call.Args) || fn.Signature().Variadic() && i == fn.Signature().Params().Len()-1 {
		return
	}
	arg := call.Args[i]
	lit, v := a.literal(arg)
	if f.Responder && a.empty(arg, lit) {
		a.r.Reportf(call, "%s completes the key with %s response: a retry gets nothing back instead of what this call answered; pass the status, headers and marshalled body (cacheresponse)",
			fn.Name(), emptiness(lit))
		return
	}
	status := a.field(lit, statusFields)
	switch {
	case status != nil && claim.Status5xx(a.info, status):
		a.r.Reportf(call, "%s stores a %s response as the key's result: every retry within the TTL gets the transient failure back instead of running again; release the key on a 5xx and complete only 2xx and 4xx (cacheresponse)",
			fn.Name(), a.info.Types[status].Value.ExactString())
	case status != nil && a.info.Types[status].Value == nil && !a.passedOn(status) && !a.checked(f, call, status, v):
		a.r.Reportf(call, "%s stores the status %s without a check for 5xx before it: a transient failure would be replayed to every retry; release the key when it is 500 or more and complete only 2xx and 4xx (cacheresponse)",
			fn.Name(), types.ExprString(status))
	case lit == nil && v != nil && hasField(v.Type(), statusFields) && !a.param(v) && !a.checked(f, call, nil, v):
		a.r.Reportf(call, "%s stores %s whatever its status, without a check for 5xx before it: a transient failure would be replayed to every retry; release the key when the status is 500 or more and complete only 2xx and 4xx (cacheresponse)",
			fn.Name(), v.Name())
	}
}

// recorded returns the variable a response is read from by a method call
// (rec.snapshot(), rec.Result()) whose result carries a status.
func (a *checker) recorded(arg ast.Expr) *types.Var {
	call, ok := ast.Unparen(arg).(*ast.CallExpr)
	if !ok {
		return nil
	}
	t := a.info.TypeOf(call)
	if t == nil || !hasField(t, statusFields) {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := a.info.Uses[id].(*types.Var)
	return v
}

// sqlStatus reports a completion in SQL text (an UPDATE of the claimed
// key) that stores a captured status without a check for 5xx before it:
// UPDATE ... SET status = $2, body = $3 with rec.status.
func (a *checker) sqlStatus(f *claim.Func, call *ast.CallExpr) {
	sc, ok := match.SQL(a.info, call)
	if !ok || sc.Statement().Verb != match.Update || a.completes(f, call) == nil {
		return
	}
	for _, arg := range call.Args {
		e := ast.Unparen(arg)
		var name string
		switch x := e.(type) {
		case *ast.SelectorExpr:
			name = x.Sel.Name
		case *ast.Ident:
			name = x.Name
		default:
			continue
		}
		ws := match.Words(name)
		if len(ws) == 0 || ws[len(ws)-1] != "status" && ws[len(ws)-1] != "code" {
			continue
		}
		if b, ok := a.info.TypeOf(e).Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			continue
		}
		if a.info.Types[e].Value != nil || a.passedOn(e) || a.checked(f, call, e, nil) {
			continue
		}
		if id, ok := e.(*ast.Ident); ok {
			if v, ok := a.info.Uses[id].(*types.Var); ok && a.checked(f, call, nil, v) {
				continue
			}
		}
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok {
				if v, ok := a.info.Uses[id].(*types.Var); ok && a.checked(f, call, nil, v) {
					continue
				}
			}
		}
		a.r.Reportf(call, "UPDATE stores the status %s without a check for 5xx before it: a transient failure would be replayed to every retry; release the key when it is 500 or more and complete only 2xx and 4xx (cacheresponse)",
			types.ExprString(e))
		return
	}
}

var statusFields = []string{"Status", "StatusCode", "Code"}

// bodiless reports whether a status is one that answers without a body:
// 204 No Content, 304 Not Modified.
func bodiless(info *types.Info, e ast.Expr) bool {
	tv := info.Types[e]
	if tv.Value == nil || tv.Value.Kind() != constant.Int {
		return false
	}
	n, _ := constant.Int64Val(tv.Value)
	return n == 204 || n == 304
}

// answers reports whether f answers with a body a replay must reproduce,
// as the evidence a helper only inferred to complete a key needs: it
// returns more than numbers, bools and an error, or it is a responder
// (see claim.Func) by what it writes rather than by a returned count,
// which is no answer to replay.
func (a *checker) answers(f *claim.Func) bool {
	if !f.Responder {
		return false
	}
	counts := false
	res := f.Sig.Results()
	for i := range res.Len() {
		t := res.At(i).Type()
		b, basic := t.Underlying().(*types.Basic)
		switch {
		case types.Identical(t, types.Universe.Lookup("error").Type()):
		case !basic || b.Info()&(types.IsBoolean|types.IsNumeric) == 0:
			return true
		case b.Info()&types.IsNumeric != 0:
			counts = true
		}
	}
	return !counts
}

// statusArg returns the argument a completion passes for the response's
// status as a parameter of its own: an integer named code or status.
func (a *checker) statusArg(fn *types.Func, call *ast.CallExpr) ast.Expr {
	params := fn.Signature().Params()
	for i := range params.Len() {
		p := params.At(i)
		b, ok := p.Type().Underlying().(*types.Basic)
		if !ok || b.Info()&types.IsInteger == 0 || i >= len(call.Args) {
			continue
		}
		if slices.ContainsFunc(match.Words(p.Name()), func(w string) bool { return w == "code" || w == "status" }) {
			return call.Args[i]
		}
	}
	return nil
}

// set5xx returns the constant 5xx the status st is, or is set to in f
// before call (code = http.StatusBadGateway on the failure path), or nil.
func (a *checker) set5xx(f *claim.Func, call *ast.CallExpr, st ast.Expr) ast.Expr {
	if claim.Status5xx(a.info, st) {
		return st
	}
	id, ok := ast.Unparen(st).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	var found ast.Expr
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found != nil || n == nil || n.Pos() >= call.Pos() {
			return false
		}
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				if lid, ok := l.(*ast.Ident); ok && a.info.ObjectOf(lid) == v && claim.Status5xx(a.info, as.Rhs[i]) {
					found = as.Rhs[i]
				}
			}
		}
		return true
	})
	return found
}

// constantsAfter reports whether a call passes nothing after the key but
// constants: Set(ctx, key, "done", ttl) stores a flag, whatever the
// helper could store.
func (a *checker) constantsAfter(call *ast.CallExpr, key int) bool {
	if key < 0 || key+1 >= len(call.Args) {
		return false
	}
	for _, arg := range call.Args[key+1:] {
		if a.info.Types[arg].Value == nil {
			return false
		}
	}
	return true
}

// responseParam returns the index of the parameter that takes the
// response: a []byte, a struct with a field named for a body (Body,
// ResponseBody, Payload), or one named for it; -1 when there is none.
func responseParam(sig *types.Signature) int {
	params := sig.Params()
	for i := range params.Len() {
		p := params.At(i)
		if s := structOf(p.Type()); isBytes(p.Type()) || s != nil && hasBodyField(s) || bodyName(p.Name()) {
			return i
		}
	}
	return -1
}

func bodyName(name string) bool { return directive.BodyName(name) }

func isBytes(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

// structOf returns the struct under t and its pointers, or nil.
func structOf(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, _ := t.Underlying().(*types.Struct)
	return s
}

func hasField(t types.Type, names []string) bool {
	s := structOf(t)
	if s == nil {
		return false
	}
	for f := range s.Fields() {
		if slices.Contains(names, f.Name()) {
			return true
		}
	}
	return false
}

// literal returns the composite literal an argument is (through &), or
// the one its variable is set from when it is set once (in whichever
// function of the file declares it, or at package level); and the
// variable.
func (a *checker) literal(arg ast.Expr) (*ast.CompositeLit, *types.Var) {
	e := ast.Unparen(arg)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	if cl, ok := e.(*ast.CompositeLit); ok {
		return cl, nil
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil, nil
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok {
		return nil, nil
	}
	file := a.file(v.Pos())
	if file == nil {
		return nil, v
	}
	var sets []ast.Expr
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && a.info.ObjectOf(id) == v {
					if len(n.Lhs) == len(n.Rhs) {
						sets = append(sets, n.Rhs[i])
					} else {
						sets = append(sets, nil)
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if a.info.Defs[id] == v && i < len(n.Values) {
					sets = append(sets, n.Values[i])
				}
			}
		}
		return true
	})
	if len(sets) == 1 && sets[0] != nil {
		if cl, ok := ast.Unparen(sets[0]).(*ast.CompositeLit); ok {
			return cl, v
		}
	}
	return nil, v
}

// passedOn reports whether a status is read from a parameter, which makes
// the caller the one to check it.
func (a *checker) passedOn(status ast.Expr) bool {
	e := ast.Unparen(status)
	for {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			break
		}
		e = ast.Unparen(sel.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := a.info.Uses[id].(*types.Var)
	return ok && a.param(v)
}

// param reports whether v is a parameter of a function: a Store wrapper
// or a helper that passes on a response its caller chose.
func (a *checker) param(v *types.Var) bool {
	file := a.file(v.Pos())
	if file == nil {
		return false // another package's
	}
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		if ft, ok := n.(*ast.FuncType); ok && ft.Params != nil && ft.Params.Pos() <= v.Pos() && v.Pos() < ft.Params.End() {
			found = true
		}
		return !found
	})
	return found
}

func (a *checker) file(pos token.Pos) *ast.File {
	for _, f := range a.pass.Files {
		if f.FileStart <= pos && pos < f.FileEnd {
			return f
		}
	}
	return nil
}

// empty reports whether a response argument holds no response: nil, "",
// []byte(nil), an empty literal, or a struct literal that sets no body.
func (a *checker) empty(arg ast.Expr, lit *ast.CompositeLit) bool {
	if a.isNil(arg) {
		return true
	}
	if s, ok := match.ConstString(a.info, arg); ok {
		return s == ""
	}
	if conv, ok := ast.Unparen(arg).(*ast.CallExpr); ok && len(conv.Args) == 1 && a.info.Types[conv.Fun].IsType() {
		return a.isNil(conv.Args[0])
	}
	if lit == nil {
		return false
	}
	if len(lit.Elts) == 0 {
		return true
	}
	s := structOf(a.info.TypeOf(lit))
	if s == nil || !hasBodyField(s) {
		return false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return false // positional: every field is set
		}
		if id, ok := kv.Key.(*ast.Ident); ok && bodyName(id.Name) && !a.isNil(kv.Value) {
			return false
		}
	}
	return true
}

// statusAlone reports whether a response argument is a struct literal
// that sets a status other than 204 or 304 and no body, where its type
// has a field for one: &Kept{StatusCode: rec.Code}. One that sets no
// status (&Kept{Err: msg}) records a failure, not a response.
func (a *checker) statusAlone(arg ast.Expr) bool {
	lit := compositeOf(arg)
	st := a.field(lit, statusFields)
	return st != nil && !bodiless(a.info, st) && a.empty(arg, lit)
}

func hasBodyField(s *types.Struct) bool {
	for f := range s.Fields() {
		if bodyName(f.Name()) {
			return true
		}
	}
	return false
}

// emptiness says how a response is empty, for a message.
func emptiness(lit *ast.CompositeLit) string {
	if lit != nil && len(lit.Elts) > 0 {
		return "a status-only"
	}
	return "an empty"
}

func (a *checker) isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && a.info.Uses[id] == types.Universe.Lookup("nil")
}

// field returns the value a struct literal gives one of the named fields.
func (a *checker) field(lit *ast.CompositeLit, names []string) ast.Expr {
	if lit == nil {
		return nil
	}
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && slices.Contains(names, id.Name) {
				return kv.Value
			}
		}
	}
	return nil
}

// checked reports whether a condition before call reads the status (or
// the variable holding the whole response, as in k.Caches(resp)): the
// code decided what to store by it.
func (a *checker) checked(f *claim.Func, call *ast.CallExpr, status ast.Expr, v *types.Var) bool {
	want := ""
	if status != nil {
		want = types.ExprString(status)
	}
	mentions := func(cond ast.Expr) bool {
		found := false
		ast.Inspect(cond, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				found = found || (v != nil && a.info.Uses[n] == v)
			case ast.Expr:
				found = found || (want != "" && types.ExprString(n) == want)
			}
			return !found
		})
		return found
	}
	checked := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if checked || n == nil || n.Pos() >= call.Pos() {
			return false
		}
		var conds []ast.Expr
		switch n := n.(type) {
		case *ast.FuncLit:
			// the literal that holds call (a deferred one) checks on its way
			return n.Pos() < call.Pos() && call.End() <= n.End()
		case *ast.IfStmt:
			conds = append(conds, n.Cond)
		case *ast.ForStmt:
			conds = append(conds, n.Cond)
		case *ast.SwitchStmt:
			conds = append(conds, n.Tag)
		case *ast.CaseClause:
			conds = append(conds, n.List...)
		}
		for _, c := range conds {
			if c != nil && mentions(c) {
				checked = true
			}
		}
		return true
	})
	return checked
}

// redisFlag reports a Redis SET of a claimed or idempotency key to a
// constant in a function that answers with a response.
func (a *checker) redisFlag(f *claim.Func, call *ast.CallExpr) {
	rc, ok := a.claims.Redis(call)
	if !ok || rc.Op != match.RedisSet {
		return
	}
	var value ast.Expr
	var tv types.TypeAndValue
	switch at := 2; { // Set, SetEx, SetArgs(ctx, key, value, ...)
	case rc.Script: // a script's SET of its argument or of a constant of its own
		var lua constant.Value
		if value, lua = rc.Stored(); lua != nil {
			tv.Value = lua
		} else if value == nil {
			return
		} else {
			tv = a.info.Types[value]
		}
	default:
		if rc.Method == "Do" {
			at = 3 // Do(ctx, "set", key, value, ...)
		}
		if at >= len(call.Args) {
			return
		}
		value = call.Args[at]
		tv = a.info.Types[value]
	}
	if tv.Value == nil {
		a.bodyOnly(f, call, value, types.ExprString(rc.Key))
		a.storesUnchecked(f, call, value, types.ExprString(rc.Key))
		return
	}
	if tv.Value.Kind() == constant.String && match.InProgress(constant.StringVal(tv.Value)) {
		return
	}
	key := types.ExprString(rc.Key)
	what := "the idempotency key " + key
	if c := a.completes(f, call); c != nil {
		what = fmt.Sprintf("the key claimed by %s at %s", c.What, a.where(c.Call.Pos()))
	} else if a.settlesLock(f, call) || !match.KeyName(key) && !a.readBefore(f, call, key) {
		return
	}
	c := a.completes(f, call)
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("SET of %s to %s marks %s completed without the response: a retry gets %s back instead of what this call answered; store the status and the marshalled body (cacheresponse)",
			key, tv.Value.ExactString(), what, tv.Value.ExactString()),
		Related: claimRelated(c),
	})
}

// claimRelated is the claim c as the second place of a finding, or nothing
// without one.
func claimRelated(c *claim.Claim) []analysis.RelatedInformation {
	if c == nil {
		return nil
	}
	what := "the claim"
	if c.Via == 0 {
		what = "the lookup" // a response cache's (see lookup)
	}
	return []analysis.RelatedInformation{{Pos: c.Call.Pos(), End: c.Call.End(), Message: what}}
}

// completionWords name a column that records a key's state rather than
// its response.
var completionWords = []string{"status", "state", "done", "completed", "finished", "processed"}

// statusOnly reports an UPDATE of a claimed or idempotency table, in SQL
// text or a bun chain, that sets its state and no response column.
func (a *checker) statusOnly(f *claim.Func, call *ast.CallExpr) {
	var table string
	var cols []string
	if sc, ok := match.SQL(a.info, call); ok {
		st := sc.Statement()
		if st.Verb != match.Update || slices.ContainsFunc(match.Literals(sc.Text), match.InProgress) {
			return
		}
		table, cols = st.Table, st.Assigned
	} else if t, set, ok := bunUpdate(a.info, call); ok {
		table, cols = t, set
	}
	if table == "" {
		return
	}
	c := a.completes(f, call)
	if c == nil && !match.KeyName(table) {
		return
	}
	var states []string
	for _, col := range cols {
		if bodyName(col) {
			return
		}
		if completionName(col) {
			states = append(states, col)
		}
	}
	if len(states) == 0 {
		return
	}
	what := "the key"
	if c != nil {
		what = fmt.Sprintf("the key claimed by %s at %s", c.What, a.where(c.Call.Pos()))
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("UPDATE of %s sets only %s: it marks %s completed without the response, so a retry cannot get back what this call answered; store the status code and the marshalled body with it (cacheresponse)",
			table, strings.Join(states, ", "), what),
		Related: claimRelated(c),
	})
}

// bunUpdate reads a bun UPDATE chain ending in Exec: its table (Table,
// else Model's type) and the columns its Set clauses assign, when their
// text is constant.
func bunUpdate(info *types.Info, call *ast.CallExpr) (table string, cols []string, ok bool) {
	fn, isFn := typeutil.Callee(info, call).(*types.Func)
	if !isFn || fn.Name() != "Exec" || fn.Pkg() == nil || !strings.HasPrefix(fn.Pkg().Path(), "github.com/uptrace/bun") {
		return "", nil, false
	}
	update := false
	for x := chainReceiver(call); x != nil; x = chainReceiver(x) {
		link, isFn := typeutil.Callee(info, x).(*types.Func)
		if !isFn || len(x.Args) == 0 && link.Name() != "NewUpdate" {
			continue
		}
		switch link.Name() {
		case "NewUpdate":
			update = true
		case "Set":
			text, isConst := match.ConstString(info, x.Args[0])
			if !isConst {
				return "", nil, false
			}
			for _, m := range assignment.FindAllStringSubmatch(text, -1) {
				cols = append(cols, m[1])
			}
		case "Table":
			table, _ = match.ConstString(info, x.Args[0])
		case "Model":
			if table == "" {
				table = claim.ModelName(info.TypeOf(x.Args[0]))
			}
		}
	}
	return table, cols, update
}

// assignment matches a column assigned in a SET clause: "status = ?".
var assignment = regexp.MustCompile(`(\w+)\s*=`)

func chainReceiver(call *ast.CallExpr) *ast.CallExpr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	x, _ := ast.Unparen(sel.X).(*ast.CallExpr)
	return x
}

// storeFlag reports a SET of a constant through another Redis client
// (rueidis, redigo) that completes a claim in a function that answers
// with a response.
func (a *checker) storeFlag(f *claim.Func, call *ast.CallExpr) {
	if rc, ok := a.claims.Redis(call); ok && rc.Script {
		return // redisFlag reads it
	}
	c := a.completes(f, call)
	if c == nil || c.Via != claim.Store {
		return
	}
	value := a.storeValue(call, c)
	tv := a.info.Types[value]
	if value == nil || tv.Value == nil || tv.Value.Kind() == constant.String && match.InProgress(constant.StringVal(tv.Value)) {
		return
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("SET of %s to %s marks the key claimed by %s at %s completed without the response: a retry gets %s back instead of what this call answered; store the status and the marshalled body (cacheresponse)",
			types.ExprString(c.Key), tv.Value.ExactString(), c.What, a.where(c.Call.Pos()), tv.Value.ExactString()),
		Related: claimRelated(c),
	})
}

// storeValue returns the value a Redis write stores: the argument of a
// builder's Value (rueidis), or the one after the key (redigo's Do).
func (a *checker) storeValue(call *ast.CallExpr, c *claim.Claim) ast.Expr {
	var value ast.Expr
	ast.Inspect(call, func(n ast.Node) bool {
		if x, ok := n.(*ast.CallExpr); ok && value == nil {
			if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Value" && len(x.Args) == 1 {
				value = x.Args[0]
			}
		}
		return value == nil
	})
	if value != nil {
		return value
	}
	for i, arg := range call.Args {
		if types.ExprString(arg) == types.ExprString(c.Key) && i+1 < len(call.Args) {
			return call.Args[i+1]
		}
	}
	return nil
}

// storesUnchecked reports a SET that completes a claim with a response
// read from elsewhere (resp, encode(resp)) whose status no condition
// before it checks: a 5xx would be stored and replayed.
func (a *checker) storesUnchecked(f *claim.Func, call *ast.CallExpr, value ast.Expr, key string) {
	c := a.completes(f, call)
	if c == nil {
		return
	}
	var resp *types.Var
	ast.Inspect(value, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && resp == nil {
			if v, ok := a.info.Uses[id].(*types.Var); ok && !v.IsField() && hasField(v.Type(), statusFields) && !a.param(v) {
				resp = v
			}
		}
		return resp == nil
	})
	if resp == nil || a.checked(f, call, nil, resp) {
		return
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("SET of %s stores %s whatever its status, without a check for 5xx before it: a transient failure would be replayed to every retry; release the key claimed by %s at %s when the status is 500 or more and complete only 2xx and 4xx (cacheresponse)",
			key, resp.Name(), c.What, a.where(c.Call.Pos())),
		Related: claimRelated(c),
	})
}

// bodyOnly reports a SET that completes a claim with the body a recorder
// captured (rec.Body.Bytes(), w.body.String()) and nothing else, where
// the recorder has a status and no other call of the function stores it:
// a replay answers with whatever status its own code writes, so a 201
// comes back a 200, and a 422 or a 409 comes back a success.
func (a *checker) bodyOnly(f *claim.Func, call *ast.CallExpr, value ast.Expr, key string) {
	c := a.completes(f, call)
	if c == nil {
		return
	}
	rec, field := a.capturedBody(value)
	if rec == nil {
		return
	}
	status := capturedStatus(rec)
	if status == "" {
		return
	}
	stored := false
	for other := range f.Calls() {
		if other == call || a.toWriter(other) {
			continue
		}
		for _, arg := range other.Args {
			ast.Inspect(arg, func(n ast.Node) bool {
				// rec.Code, or any status read (c.Writer.Status()) given
				// to another call: stored some other way.
				if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == status || slices.Contains(statusFields, sel.Sel.Name)) {
					stored = true
				}
				return !stored
			})
		}
	}
	if stored {
		return
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("SET of %s stores the %s of %s without its %s: a retry of the key claimed by %s at %s is answered with whatever status the replay writes, so a 201 comes back as 200 and a 4xx as a success; store the status with the body (cacheresponse)",
			key, field, rec.Name(), status, c.What, a.where(c.Call.Pos())),
		Related: claimRelated(c),
	})
}

// capturedBody returns the recorder whose body value is, and the body's
// field name, when value is that body and nothing more: rec.Body,
// rec.Body.Bytes(), w.buf.String(), or a conversion of one.
func (a *checker) capturedBody(value ast.Expr) (*types.Var, string) {
	e := ast.Unparen(value)
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			break
		}
		if tv, ok := a.info.Types[call.Fun]; ok && tv.IsType() && len(call.Args) == 1 {
			e = ast.Unparen(call.Args[0]) // []byte(...), string(...)
			continue
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || len(call.Args) != 0 || sel.Sel.Name != "Bytes" && sel.Sel.Name != "String" {
			return nil, ""
		}
		e = ast.Unparen(sel.X)
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || !slices.Contains(bodyFieldNames, strings.ToLower(sel.Sel.Name)) {
		return nil, ""
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil, ""
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return nil, ""
	}
	return v, sel.Sel.Name
}

// bodyFieldNames are the names a response recorder gives its captured
// body.
var bodyFieldNames = []string{"body", "buf", "buffer"}

// capturedStatus returns the name of the field or method where a
// recorder keeps the status it captured (httptest's Code, a wrapper's
// status, the Status() of a gin.ResponseWriter it embeds), "" when it
// keeps none.
func capturedStatus(rec *types.Var) string {
	if s := structOf(rec.Type()); s != nil {
		for f := range s.Fields() {
			named := slices.ContainsFunc(statusFields, func(n string) bool { return strings.EqualFold(n, f.Name()) })
			if b, ok := f.Type().Underlying().(*types.Basic); named && ok && b.Info()&types.IsInteger != 0 {
				return f.Name()
			}
		}
	}
	if m, _, _ := types.LookupFieldOrMethod(rec.Type(), true, rec.Pkg(), "Status"); m != nil {
		if fn, ok := m.(*types.Func); ok && fn.Signature().Params().Len() == 0 && fn.Signature().Results().Len() == 1 {
			if b, ok := fn.Signature().Results().At(0).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				return "Status"
			}
		}
	}
	return ""
}

// settlesLock reports whether call settles one of f's locks.
func (a *checker) settlesLock(f *claim.Func, call *ast.CallExpr) bool {
	return a.claimed(f, func(c *claim.Claim) bool { return c.Lock && a.claims.Settles(c, call) != 0 }) != nil
}

// readBefore reports whether f reads the key named key (GET or EXISTS)
// before call writes it: a done marker, looked up to answer a repeat and
// set once the work is done. Whatever its name, the key is the request's
// record, and a constant in it is all a repeat can answer with.
func (a *checker) readBefore(f *claim.Func, call *ast.CallExpr, key string) bool {
	for c := range f.Calls() {
		if c.Pos() >= call.Pos() {
			continue
		}
		if rc, ok := a.claims.Redis(c); ok && (rc.Op == match.RedisGet || rc.Op == match.RedisExists) && types.ExprString(rc.Key) == key {
			return true
		}
	}
	return false
}

// completes returns the claim of f, not a lock, that call completes, or
// nil.
func (a *checker) completes(f *claim.Func, call *ast.CallExpr) *claim.Claim {
	return a.claimed(f, func(c *claim.Claim) bool { return !c.Lock && a.claims.Settles(c, call)&claim.Completed != 0 })
}

// hashStatus reports an HSET of the claimed key, or of an idempotency
// key, that writes status fields and no response field: the hash says
// "done" and holds nothing to replay.
func (a *checker) hashStatus(f *claim.Func, call *ast.CallExpr) {
	rc, ok := match.Redis(a.info, call)
	if !ok || rc.Op != match.RedisHSet {
		return
	}
	fields, ok := directive.HashFields(a.info, call)
	if !ok || slices.ContainsFunc(fields, bodyName) || !slices.ContainsFunc(fields, completionName) {
		return
	}
	c := a.completes(f, call)
	what := "the idempotency key " + types.ExprString(rc.Key)
	if c != nil {
		what = fmt.Sprintf("the key claimed by %s at %s", c.What, a.where(c.Call.Pos()))
	} else if a.claimed(f, func(c *claim.Claim) bool { return c.Lock }) != nil || !match.KeyName(types.ExprString(rc.Key)) {
		return
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("HSET of %s writes only %s: it marks %s completed without the response, so a retry cannot get back what this call answered; write the status code and the marshalled body with it (cacheresponse)",
			types.ExprString(rc.Key), strings.Join(fields, ", "), what),
		Related: claimRelated(c),
	})
}

// ormStatus reports a gorm Update, Updates or Save of the claimed row, or
// of an idempotency model, that sets its status to done and stores no
// response column.
func (a *checker) ormStatus(f *claim.Func, call *ast.CallExpr) {
	w, ok := claim.ORMUpdate(a.info, call)
	if !ok || w.Method == "Delete" {
		return
	}
	set := w.Set
	if w.Method == "Save" {
		set = a.claims.AssignedFields(w.Value)
	}
	for col := range set {
		if bodyName(col) {
			return
		}
	}
	if !claim.StatusDone(a.info, set) {
		return
	}
	c := a.completes(f, call)
	what := "the key"
	if c != nil {
		what = fmt.Sprintf("the key claimed by %s at %s", c.What, a.where(c.Call.Pos()))
	} else if !match.DedupName(w.Model) && !match.KeyName(w.Model) {
		return
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("%s of %s sets the status and no response: it marks %s completed, so a retry cannot get back what this call answered; store the status code and the marshalled body in the row too (cacheresponse)",
			w.Method, w.Model, what),
		Related: claimRelated(c),
	})
}

func completionName(name string) bool {
	return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(completionWords, w) })
}

// claimed returns the first of f's claims that accept accepts.
func (a *checker) claimed(f *claim.Func, accept func(*claim.Claim) bool) *claim.Claim {
	for _, c := range f.Claims {
		if accept(c) {
			return c
		}
	}
	return nil
}

// unrecorded reports a path that answers after a claim without having
// completed, released or handed it on.
func (a *checker) unrecorded(f *claim.Func) {
	for _, c := range f.Claims {
		if c.Lock {
			continue
		}
		// A claim given back on the way out of every path, under a key
		// that names no idempotency record, is a mutex: it keeps two
		// runs apart and records nothing.
		settled := claim.Completed | claim.HandedOff
		if c.Key != nil && !match.DedupName(match.KeyShape(a.info, c.Key)) {
			settled |= claim.Released
		}
		// what an exit may answer with and still have recorded its
		// answer: the value the claim wrote, or the name it took
		values, drawn := a.claimValues(c), a.allocated(c)
		var open []claim.Exit
		for _, e := range c.Exits {
			if !e.Error && e.Deferred&settled == 0 && !a.answersWith(f, c, e, values) && !a.answersWith(f, c, e, drawn) &&
				(len(open) == 0 || open[len(open)-1].Pos() != e.Pos()) {
				open = append(open, e)
			}
		}
		if len(open) == 0 {
			continue
		}
		more := ""
		if n := len(open) - 1; n == 1 {
			more = " (and 1 more return)"
		} else if n > 1 {
			more = fmt.Sprintf(" (and %d more returns)", n)
		}
		pos := open[0].Pos().Pos()
		what := "this return"
		if pos == f.Body.Rbrace {
			what = "the end of the function" // control falls off it
		}
		a.r.Report(analysis.Diagnostic{
			Pos: pos,
			Message: fmt.Sprintf("%s answers without recording the response under the key claimed by %s at %s%s: a retry finds the key in progress, or runs the work again once it is freed, instead of getting this answer back; complete the key with the status and body before answering (cacheresponse)",
				what, c.What, a.where(c.Call.Pos()), more),
			Related: claimRelated(c),
		})
	}
}

// answersWith reports an exit that answers with one of vals: returns a
// value made with one, or, in a handler, follows a write of one to the
// ResponseWriter after the claim. With the claim's own values
// (claimValues), a get-or-create (SET NX of the new account's ID, then
// GET when it was there) records its answer in the claim; with the name
// it took (allocated), a reservation does.
func (a *checker) answersWith(f *claim.Func, c *claim.Claim, e claim.Exit, vals map[types.Object]bool) bool {
	if len(vals) == 0 {
		return false
	}
	mentions := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok && vals[a.info.Uses[id]] {
				found = true
			}
			return !found
		})
		return found
	}
	if e.Return != nil {
		for _, r := range e.Return.Results {
			if mentions(r) {
				return true
			}
		}
	}
	if !f.Responder {
		return false
	}
	written := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if written || !ok || call.Pos() < c.Call.End() || e.Pos().Pos() < call.Pos() {
			return !written
		}
		if a.toWriter(call) && slices.ContainsFunc(call.Args, func(x ast.Expr) bool { return mentions(x) }) {
			written = true
		}
		return !written
	})
	return written
}

// allocated returns the variables of c's key that name what the claim
// took, when the function made that name itself: a short code or a slug
// drawn again in the claim's loop when it was taken, or made by a call
// of nothing the function was handed. An exit that answers with one
// allocated a name and recorded, in taking it, all there is to record:
// it is no idempotency key, which a retry would send again, and a taken
// key means "try the next name", not "already done".
func (a *checker) allocated(c *claim.Claim) map[types.Object]bool {
	if c.Key == nil {
		return nil
	}
	file := a.file(c.Call.Pos())
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, c.Call.Pos(), c.Call.End())
	var loop ast.Node
	var fn *ast.FuncType
	var body *ast.BlockStmt
	for _, n := range path {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if loop == nil {
				loop = n
			}
			continue
		case *ast.FuncDecl:
			fn, body = n.Type, n.Body
		case *ast.FuncLit:
			fn, body = n.Type, n.Body
		default:
			continue
		}
		break
	}
	if body == nil {
		return nil
	}
	defs := effect.Definitions(a.info, body)
	// the function's parameters and the locals made from them: what it
	// was handed
	params := map[*types.Var]bool{}
	handed := directive.KeyParams{Info: a.info, Keys: map[*types.Var]int{}}
	for _, field := range fn.Params.List {
		for _, name := range field.Names {
			if v, ok := a.info.Defs[name].(*types.Var); ok {
				params[v], handed.Keys[v] = true, 0
			}
		}
	}
	handed.Derive(body)
	// made reports a local every assignment of which calls something of
	// nothing handed in: key := randomKey(), s.ids.Next()
	made := func(v *types.Var) bool {
		vals := defs.Values[v]
		return len(vals) > 0 && !slices.ContainsFunc(vals, func(d ast.Expr) bool {
			call, ok := ast.Unparen(d).(*ast.CallExpr)
			if !ok {
				return true
			}
			if tv, ok := a.info.Types[call.Fun]; ok && tv.IsType() {
				return true // a conversion of something else
			}
			return handed.Param(call) >= 0
		})
	}
	drawn := map[types.Object]bool{}
	ast.Inspect(c.Key, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := a.info.Uses[id].(*types.Var); ok && !v.IsField() && v.Pkg() != nil && v.Parent() != v.Pkg().Scope() {
				if !params[v] && (loop != nil && a.assignedIn(loop, v) || made(v)) {
					drawn[v] = true
				}
			}
		}
		return true
	})
	return drawn
}

// assignedIn reports whether the loop gives v a value on each turn:
// declares it in its body, or assigns it there.
func (a *checker) assignedIn(loop ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok && a.info.ObjectOf(id) == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// claimValues are the local variables a claim call writes besides its
// key: the value of a SET NX, which a get-or-create answers with.
// Constants (an in-progress mark) are none.
func (a *checker) claimValues(c *claim.Claim) map[types.Object]bool {
	key := map[types.Object]bool{}
	if c.Key != nil {
		ast.Inspect(c.Key, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				key[a.info.Uses[id]] = true
			}
			return true
		})
	}
	vals := map[types.Object]bool{}
	ast.Inspect(c.Call, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := a.info.Uses[id].(*types.Var)
		if !ok || key[v] || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			return true
		}
		if t := v.Type(); match.IsContext(t) || !isStringOrBytes(t) {
			return true
		}
		vals[v] = true
		return true
	})
	return vals
}

func isStringOrBytes(t types.Type) bool {
	if b, ok := t.Underlying().(*types.Basic); ok {
		return b.Info()&types.IsString != 0
	}
	return isBytes(t)
}

// toWriter reports a call that writes to an http.ResponseWriter: one given
// the writer, or a method of a value made from it (json.NewEncoder(w)).
func (a *checker) toWriter(call *ast.CallExpr) bool {
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && !found {
			if t := a.info.TypeOf(e); t != nil && types.TypeString(t, nil) == "net/http.ResponseWriter" {
				found = true
			}
		}
		return !found
	})
	return found
}

// where names a position as file:line, the file by its base name.
func (a *checker) where(pos token.Pos) string {
	p := a.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}
