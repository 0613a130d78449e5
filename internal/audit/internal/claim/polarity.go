package claim

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// polarity decides, for a claim made through a helper, which value of
// each boolean it returns means the key was already taken or done. A
// "seen" from SADD or EXISTS is true when the work was done before; an
// "ok" from SET NX is true when this call took the key; helpers are named
// either way. A name that says it decides; otherwise the first branch on
// the boolean tells: the side that returns early without work is the
// "already done" one.
func (s *scope) polarity(f *Func, c *Claim) {
	c.done = map[*types.Var]bool{}
	if c.Via == Store && strings.HasPrefix(c.Record, "syncmap ") {
		// sync.Map's LoadOrStore: its loaded result is true when the key
		// was there before, and this call took nothing.
		for v := range c.own {
			if isBool(v.Type()) {
				c.done[v] = true
			}
		}
		return
	}
	if c.Via != Directive {
		return // SET NX, HSETNX and an INSERT's row count say "taken" when true
	}
	for v := range c.own {
		if isBool(v.Type()) {
			c.done[v] = s.doneSide(f, c, func(e ast.Expr) bool { return s.varOf(e) == v }, v.Name())
		}
	}
	c.doneCall = s.doneSide(f, c, func(e ast.Expr) bool { _, isClaim := s.root(c, e); return isClaim }, c.Callee.Name())
}

// doneSide reports whether the boolean is tells apart means "already
// done" when true: by its name when the name says (claimed, ok, acquired;
// seen, exists, duplicate), else from the first if statement after the
// claim that branches on it.
func (s *scope) doneSide(f *Func, c *Claim, is func(ast.Expr) bool, name string) bool {
	switch {
	case takenName(name):
		return false
	case doneName(name):
		return true
	}
	var (
		found  *ast.IfStmt
		rest   []ast.Stmt
		whenIn bool
	)
	visit := func(list []ast.Stmt) {
		for i, st := range list {
			ifs, ok := st.(*ast.IfStmt)
			if !ok || found != nil || ifs.Cond.End() < c.Call.End() {
				continue
			}
			if p, ok := sideOf(s.pass.TypesInfo, ifs.Cond, is); ok {
				found, rest, whenIn = ifs, list[i+1:], p
			}
		}
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if list, ok := stmtList(n); ok {
			visit(list)
		}
		return found == nil
	})
	if found != nil {
		if bodyDone, ok := s.earlySide(found, append(rest, continuation(f.Body, found)...)); ok {
			return whenIn == bodyDone
		}
	}
	return false
}

// continuation returns the statements that run after the block holding
// target is done, innermost first: what follows each enclosing statement
// in its own block, up to the function's body. An if whose body returns
// early, nested in an else-if chain, is compared with the work that runs
// after the whole chain, not only with the rest of its own branch.
func continuation(body *ast.BlockStmt, target ast.Stmt) []ast.Stmt {
	var path, found []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			path = path[:len(path)-1]
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok || found != nil || n.Pos() > target.Pos() || n.End() < target.End() {
			return false
		}
		path = append(path, n)
		if n == target {
			found = slices.Clone(path)
		}
		return true
	})
	var out []ast.Stmt
	// found[len-1] is target, and its own block's rest is the caller's.
	for i := len(found) - 3; i >= 0; i-- {
		list, _ := stmtList(found[i])
		for j, st := range list {
			if st == found[i+1] {
				out = append(out, list[j+1:]...)
			}
		}
	}
	return out
}

// sideOf returns the value the boolean is picks out has when cond holds:
// true for `seen`, false for `!ok` and `err != nil || !ok`.
func sideOf(info *types.Info, cond ast.Expr, is func(ast.Expr) bool) (bool, bool) {
	if is(cond) && isBool(info.TypeOf(cond)) {
		return true, true
	}
	switch e := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if p, ok := sideOf(info, e.X, is); ok && e.Op.String() == "!" {
			return !p, true
		}
	case *ast.BinaryExpr:
		switch e.Op.String() {
		case "||", "&&":
			if p, ok := sideOf(info, e.X, is); ok {
				return p, true
			}
			return sideOf(info, e.Y, is)
		case "==", "!=":
			x, y := e.X, e.Y
			if !is(x) {
				x, y = y, x
			}
			if tv := info.Types[y]; is(x) && tv.Value != nil && tv.Value.Kind() == constant.Bool {
				return constant.BoolVal(tv.Value) == (e.Op.String() == "=="), true
			}
		}
	}
	return false, false
}

// stmtList returns the statements of a block, a switch case or a select
// case, and whether n is one.
func stmtList(n ast.Node) ([]ast.Stmt, bool) {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List, true
	case *ast.CaseClause:
		return n.Body, true
	case *ast.CommClause:
		return n.Body, true
	}
	return nil, false
}

// earlySide reports whether an if statement's body is the side that
// returns early without work, comparing it with its else branch or, when
// it has none, with the statements after it; ok is false when neither
// side stands out.
func (s *scope) earlySide(ifs *ast.IfStmt, rest []ast.Stmt) (bodyDone, ok bool) {
	body := s.work(ifs.Body)
	if ifs.Else != nil {
		other := s.work(ifs.Else)
		return body < other, body != other
	}
	if !exits(ifs.Body) {
		return false, body > 0 // if ok { work() }
	}
	after := 0
	for _, st := range rest {
		after += s.work(st)
	}
	switch {
	case body == 0:
		return true, true
	case body != after:
		return body < after, true
	}
	return false, false
}

// exits reports whether a block ends by leaving: return, continue, break.
func exits(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	}
	return false
}

// work counts the calls in n that do something: neither logging,
// metrics, answering a failure, nor the standard library's plumbing.
func (s *scope) work(n ast.Node) int {
	info := s.pass.TypesInfo
	count := 0
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
			return true
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		switch {
		case !ok:
			count++
		case fn.Name() == "ServeHTTP" && fn.Signature().Recv() != nil || match.ChainNext(fn):
			count++ // the handler's run: the work itself, though net/http's or gin's
		case fn.Signature().Recv() != nil && (slices.Contains(frameworkAnswers, fn.Name()) || slices.Contains(answerParts, fn.Name())):
			// c.JSON(...), c.Header(k, v), c.Abort(): answering, through a
			// web framework's context
		case fn.Pkg() != nil && slices.Contains(plumbingPkgs, fn.Pkg().Path()):
		case slices.ContainsFunc(match.Words(fn.Name()), func(w string) bool { return slices.Contains(quietWords, w) }):
		case FailureStatus(info, call) != nil:
		default:
			count++
		}
		return true
	})
	return count
}

// plumbingPkgs are the standard packages whose calls do no work of their
// own in a branch: errors, formatting, logging, answering.
var plumbingPkgs = []string{"errors", "fmt", "log", "log/slog", "time", "strings", "strconv", "net/http", "encoding/json"}

// answerParts are the methods of a web framework's context that set up
// or end an answer without doing work: a header, an abort.
var answerParts = []string{"Header", "SetHeader", "Abort", "AbortWithStatus", "AbortWithStatusJSON", "AbortWithError"}

// quietWords name logging and metrics methods.
var quietWords = []string{"log", "logf", "info", "infof", "infow", "debug", "debugf", "debugw", "warn", "warnf", "warnw", "warning",
	"error", "errorf", "errorw", "print", "printf", "println", "inc", "observe", "count", "record", "metric", "metrics", "trace", "with"}

// doneNames mark a boolean that, when true, says the work was done before.
var doneNames = []string{"seen", "exists", "exist", "duplicate", "dup", "dupe", "already", "processed", "done", "handled", "found", "replay", "replayed", "known"}

func doneName(name string) bool {
	return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(doneNames, w) })
}
