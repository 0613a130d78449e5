package releaseonerror

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/report"
)

// Analyzer reports a claimed key left held on a path that fails.
var Analyzer = &analysis.Analyzer{
	Name:     "releaseonerror",
	Doc:      report.Doc("releaseonerror"),
	URL:      "https://pkg.go.dev/github.com/idemkit/idemkit/internal/audit/releaseonerror",
	Requires: []*analysis.Analyzer{claim.Analyzer, directive.Analyzer, report.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	a := &checker{
		pass: pass,
		r:    report.New(pass),
		dirs: pass.ResultOf[directive.Analyzer].(*directive.Directives),
	}
	res := pass.ResultOf[claim.Analyzer].(*claim.Result)
	for _, f := range res.Funcs {
		if f.Test() {
			continue
		}
		for _, c := range f.Claims {
			a.cancelledReleases(res, f, c)
			var leaks []claim.Exit
			for _, e := range c.Exits {
				if e.Error && e.Deferred == 0 && (len(leaks) == 0 || leaks[len(leaks)-1].Pos() != e.Pos()) {
					leaks = append(leaks, e)
				}
			}
			if len(leaks) > 0 {
				a.report(f, c, leaks)
			}
		}
	}
	return nil, nil
}

type checker struct {
	pass *analysis.Pass
	r    *report.Reporter
	dirs *directive.Directives
}

// report reports the first leaking exit of c, naming the claim, with the
// others as related places.
func (a *checker) report(f *claim.Func, c *claim.Claim, leaks []claim.Exit) {
	first := leaks[0]
	if first.Partial != nil {
		a.reportPartial(c, first, leaks[1:])
		return
	}
	what := "this error return"
	if first.Continue != nil {
		what = "this continue after a failure"
	}
	if first.Failure != nil {
		what = "this " + a.status(first.Failure) + " response"
	}
	if first.Go != nil {
		at := first.Far
		if first.Return != nil {
			at = a.where(first.Return.Pos())
		}
		what = fmt.Sprintf("the goroutine started here returns on a failure at %s and so", at)
	}
	more := ""
	if n := len(leaks) - 1; n == 1 {
		more = " (and 1 more failing return)"
	} else if n > 1 {
		more = fmt.Sprintf(" (and %d more failing returns)", n)
	}
	d := analysis.Diagnostic{
		Pos: first.Pos().Pos(),
		End: a.end(first.Pos()),
		Message: fmt.Sprintf("%s leaves the key claimed by %s at %s held%s: every retry is refused as in progress until its TTL or lease runs out; %s (releaseonerror)",
			what, c.What, a.where(c.Call.Pos()), more, a.advice(c)),
		Related: []analysis.RelatedInformation{{Pos: c.Call.Pos(), End: c.Call.End(), Message: "the claim"}},
	}
	for _, e := range leaks[1:] {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: e.Pos().Pos(), End: a.end(e.Pos()), Message: "also leaves it held"})
	}
	if fix, ok := a.fix(f, c); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	a.r.Report(d)
}

// reportPartial reports a release that gives back only some of the
// records a claim helper wrote under the key: the others (a pending
// record beside a lock) refuse every retry until their TTL.
func (a *checker) reportPartial(c *claim.Claim, e claim.Exit, more []claim.Exit) {
	call := e.Partial
	name := types.ExprString(call.Fun)
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		name = sel.Sel.Name
	}
	var left []string
	for _, w := range c.Left(call) {
		left = append(left, fmt.Sprintf("the record its %s wrote (%s)", w.What, strings.TrimPrefix(w.Record, "iface ")))
	}
	d := analysis.Diagnostic{
		Pos: call.Pos(),
		End: call.End(),
		Message: fmt.Sprintf("this %s gives back only part of what %s at %s wrote under the key: %s stays, so every retry is refused as in progress until its TTL runs out; on a failure delete every record the claim wrote, or call a release that does (releaseonerror)",
			name, c.What, a.where(c.Call.Pos()), strings.Join(left, " and ")),
		Related: []analysis.RelatedInformation{{Pos: c.Call.Pos(), End: c.Call.End(), Message: "the claim"}},
	}
	for _, x := range more {
		if x.Pos() != ast.Node(call) {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: x.Pos().Pos(), End: a.end(x.Pos()), Message: "also leaves it held"})
		}
	}
	a.r.Report(d)
}

// end is n's end, or its start for the synthetic return at the end of a
// body, whose end may lie beyond the file (golang/go#64547).
func (a *checker) end(n ast.Node) token.Pos {
	if a.pass.Fset.File(n.Pos()) != a.pass.Fset.File(n.End()) {
		return n.Pos()
	}
	return n.End()
}

// status names the status of a failing response call: its constant's
// value, or "error" for a helper given the writer and an error.
func (a *checker) status(call *ast.CallExpr) string {
	if st := claim.FailureStatus(a.pass.TypesInfo, call); st != nil && st != ast.Expr(call) {
		if tv := a.pass.TypesInfo.Types[st]; tv.Value != nil {
			return tv.Value.ExactString()
		}
	}
	return "error"
}

// advice says how to release c.
func (a *checker) advice(c *claim.Claim) string {
	switch c.Via {
	case claim.Redis:
		if c.Remove != "" {
			return fmt.Sprintf("defer a %[1]s of the member right after the claim, conditional on the error, or %[1]s it before returning; a Del would drop the key's other members too", c.Remove)
		}
		return "defer a Del of the key right after the claim, conditional on the error, or Del it before returning"
	case claim.Store:
		if strings.HasPrefix(c.Record, "ent ") {
			return "defer a Delete of the row right after the claim, conditional on the error (or claim inside a transaction with a deferred Rollback), or delete it before returning"
		}
		if what, ok := docRelease(c); ok {
			return fmt.Sprintf("defer a %s of the document right after the claim, conditional on the error, or make it before returning", what)
		}
		return "defer a DEL of the key right after the claim, conditional on the error, or send it before returning"
	case claim.SQL:
		if c.Lock {
			return "defer the SELECT pg_advisory_unlock of the same key right after the lock is taken, or unlock before returning: the pool keeps the connection, and the lock with it"
		}
		return fmt.Sprintf("defer a DELETE of the row from %s right after the claim (or claim inside a transaction with a deferred Rollback), or delete it before returning", c.Table)
	}
	if c.Mutex {
		return "defer its Unlock right after the lock is taken, before any other return"
	}
	if c.Unlock {
		return fmt.Sprintf("defer the function %s returns right after the claim succeeds, before any other return", c.Callee.Name())
	}
	if p := a.partner(c.Callee); p != "" {
		return fmt.Sprintf("defer %s right after the claim, or call it before returning the error; or let the runtime's Do hold the key, which cannot forget", p)
	}
	return "defer the key's release right after the claim, or release it before returning the error"
}

// partner returns the release function that goes with a claim one, by
// directive or inferred from its body: a method of the same type, or a
// function of the same package.
func (a *checker) partner(fn *types.Func) string {
	if recv := fn.Signature().Recv(); recv != nil {
		ms := types.NewMethodSet(recv.Type())
		for i := range ms.Len() {
			if m, ok := ms.At(i).Obj().(*types.Func); ok && a.dirs.Of(m)&directive.Release != 0 && a.sameTables(fn, m) {
				return m.Name()
			}
		}
		return ""
	}
	if fn.Pkg() == nil {
		return ""
	}
	scope := fn.Pkg().Scope()
	for _, name := range scope.Names() {
		if f, ok := scope.Lookup(name).(*types.Func); ok && a.dirs.Of(f)&directive.Release != 0 {
			if fn.Pkg() != a.pass.Pkg {
				return fn.Pkg().Name() + "." + name
			}
			return name
		}
	}
	return ""
}

// where names a position as file:line, the file by its base name.
func (a *checker) where(pos token.Pos) string {
	p := a.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// fix defers a DEL of a Redis claim's key (an SREM, ZREM or HDEL of the
// member it took within the key), conditional on the function's named
// error result, right after the statement that claims and the
// if-statements that check its result. It is offered only where that is
// mechanical: a Redis claim whose statement sits in a block, in a function
// whose error result has a name that the insertion point still sees.
func (a *checker) fix(f *claim.Func, c *claim.Claim) (analysis.SuggestedFix, bool) {
	res := f.Sig.Results()
	if c.Via != claim.Redis || res.Len() == 0 {
		return analysis.SuggestedFix{}, false
	}
	errVar := res.At(res.Len() - 1)
	if errVar.Name() == "" || errVar.Name() == "_" {
		return analysis.SuggestedFix{}, false
	}
	file := a.file(c.Call.Pos())
	path, _ := astutil.PathEnclosingInterval(file, c.Call.Pos(), c.Call.End())
	var list []ast.Stmt
	at := -1
	for i := 1; i < len(path) && at < 0; i++ {
		if blk, ok := path[i].(*ast.BlockStmt); ok {
			list = blk.List
			for j, s := range list {
				if s == path[i-1] {
					at = j
				}
			}
		}
	}
	if at < 0 {
		return analysis.SuggestedFix{}, false
	}
	last := at
	if _, isIf := list[at].(*ast.IfStmt); !isIf {
		checked := a.results(c)
		for last+1 < len(list) && a.guard(list[last+1], checked) {
			last++
		}
	}
	pos := list[last].End()
	if obj := a.pass.Pkg.Scope().Innermost(pos); obj == nil {
		return analysis.SuggestedFix{}, false
	} else if _, v := obj.LookupParent(errVar.Name(), pos); v != errVar {
		return analysis.SuggestedFix{}, false
	}
	remove, args := "Del", types.ExprString(c.Key)
	if c.Remove != "" {
		if c.Member == nil {
			return analysis.SuggestedFix{}, false
		}
		remove, args = c.Remove, args+", "+types.ExprString(c.Member)
	}
	sel, ok := ast.Unparen(c.Call.Fun).(*ast.SelectorExpr)
	if !ok || len(c.Call.Args) == 0 || !a.hasMethod(sel.X, remove) || pipeline(a.pass.TypesInfo.TypeOf(sel.X)) {
		// a script's Run (scripts.Claim.Run, a wrapper's) is made on no
		// client to send the DEL through; a DEL queued on the claim's
		// pipeline after its Exec would never be sent
		return analysis.SuggestedFix{}, false
	}
	ctx := types.ExprString(c.Call.Args[0])
	if imports(file, "context") {
		ctx = "context.WithoutCancel(" + ctx + ")"
	}
	indent := strings.Repeat("\t", a.pass.Fset.Position(list[at].Pos()).Column-1)
	text := fmt.Sprintf("\n%[1]sdefer func() {\n%[1]s\tif %[2]s != nil {\n%[1]s\t\t%[3]s.%[4]s(%[5]s, %[6]s)\n%[1]s\t}\n%[1]s}()",
		indent, errVar.Name(), types.ExprString(sel.X), remove, ctx, args)
	what := "the key"
	if c.Remove != "" {
		what = "the member"
	}
	return analysis.SuggestedFix{
		Message:   fmt.Sprintf("Defer a %s of %s when the function returns an error", remove, what),
		TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}},
	}, true
}

// pipeline reports whether t is a go-redis pipeline (Pipeliner, or
// *Pipeline), which queues commands until its Exec.
func pipeline(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	p := n.Obj().Pkg().Path()
	goRedis := strings.HasPrefix(p, "github.com/redis/go-redis/") || strings.HasPrefix(p, "github.com/go-redis/redis/")
	return goRedis && (n.Obj().Name() == "Pipeliner" || n.Obj().Name() == "Pipeline")
}

// hasMethod reports whether the value a claim is made on has the method
// that gives it back (Del, SRem): a go-redis client, not a script.
func (a *checker) hasMethod(x ast.Expr, name string) bool {
	t := a.pass.TypesInfo.TypeOf(x)
	if t == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	_, ok := obj.(*types.Func)
	return ok
}

// results returns the variables the claim's statement sets.
func (a *checker) results(c *claim.Claim) map[types.Object]bool {
	out := map[types.Object]bool{}
	if as, ok := c.Stmt.(*ast.AssignStmt); ok {
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				if obj := a.pass.TypesInfo.ObjectOf(id); obj != nil {
					out[obj] = true
				}
			}
		}
	}
	return out
}

// guard reports whether s checks the claim's results and leaves: if err
// != nil || !ok { return err }.
func (a *checker) guard(s ast.Stmt, checked map[types.Object]bool) bool {
	is, ok := s.(*ast.IfStmt)
	if !ok || is.Init != nil || is.Else != nil || len(is.Body.List) == 0 {
		return false
	}
	if _, ret := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt); !ret {
		return false
	}
	mentions := false
	ast.Inspect(is.Cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && checked[a.pass.TypesInfo.Uses[id]] {
			mentions = true
		}
		return !mentions
	})
	return mentions
}

func (a *checker) file(pos token.Pos) *ast.File {
	for _, f := range a.pass.Files {
		if f.FileStart <= pos && pos < f.FileEnd {
			return f
		}
	}
	return nil
}

// imports reports whether file imports path under its own name.
func imports(file *ast.File, path string) bool {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path && imp.Name == nil {
			return true
		}
	}
	return false
}
