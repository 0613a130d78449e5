package checkthenact

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
	"github.com/idemkit/idemkit/internal/audit/internal/report"
)

// Analyzer reports a dedup record read and then written as two steps.
var Analyzer = &analysis.Analyzer{
	Name:     "checkthenact",
	Doc:      report.Doc("checkthenact"),
	Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, report.Analyzer},
	Run:      run,
}

type role uint8

const (
	check role = iota + 1 // reads whether the record exists
	act                   // writes it whether or not it exists
)

type library uint8

const (
	sqlLib library = iota + 1
	gormLib
	redisLib
)

// access is one read or write of a dedup record.
type access struct {
	role   role
	lib    library
	call   *ast.CallExpr
	record string // what identifies the record across accesses: a normalised table or model name, or a Redis key's shape
	dedup  bool   // the record's name or key column says it records what was already done
	what   string // the operation as a message names it: SELECT, First, EXISTS, INSERT, Create, SET
	target string // the table, model or key as written
	sql    match.SQLCall
	stmt   match.Statement
}

// event is an access as one function sees it: its own call, or the call
// of a function of the package that performs it.
type event struct {
	acc   *access
	node  *ast.CallExpr // the call in this function
	block *cfg.Block
}

func run(pass *analysis.Pass) (any, error) {
	a := &checker{
		pass:     pass,
		r:        report.New(pass),
		cfgs:     pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs),
		decls:    map[*types.Func]*ast.FuncDecl{},
		summary:  map[*types.Func][]*access{},
		accesses: map[*ast.CallExpr]*access{},
		reported: map[*ast.CallExpr]bool{},
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var units []ast.Node
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if fn, ok := pass.TypesInfo.Defs[n.Name].(*types.Func); ok && n.Body != nil {
				a.decls[fn] = n
				units = append(units, n)
			}
		case *ast.FuncLit:
			units = append(units, n)
		case *ast.CallExpr:
			a.firstOrCreate(n)
		}
	})
	for _, u := range units {
		a.unit(u)
	}
	return nil, nil
}

type checker struct {
	pass     *analysis.Pass
	r        *report.Reporter
	cfgs     *ctrlflow.CFGs
	decls    map[*types.Func]*ast.FuncDecl
	summary  map[*types.Func][]*access // nil while being computed: recursion adds nothing
	accesses map[*ast.CallExpr]*access // memo of classify; nil for a call that is none
	reported map[*ast.CallExpr]bool
}

// unit pairs the checks and acts of one function body: every act
// reachable from a check of the same record is reported once.
func (a *checker) unit(u ast.Node) {
	var g *cfg.CFG
	switch u := u.(type) {
	case *ast.FuncDecl:
		g = a.cfgs.FuncDecl(u)
	case *ast.FuncLit:
		g = a.cfgs.FuncLit(u)
	}
	if g == nil {
		return
	}
	var events []event
	for _, b := range g.Blocks {
		for _, n := range b.Nodes {
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false // its own unit
				case *ast.CallExpr:
					for _, acc := range a.performs(n) {
						events = append(events, event{acc: acc, node: n, block: b})
					}
				}
				return true
			})
		}
	}
	reach := map[*cfg.Block]map[*cfg.Block]bool{}
	for _, c := range events {
		if c.acc.role != check {
			continue
		}
		for _, w := range events {
			if w.acc.role != act || w.node == c.node || a.reported[w.acc.call] ||
				w.acc.record != c.acc.record || !(w.acc.dedup || c.acc.dedup) {
				continue
			}
			if c.block == w.block {
				if c.node.End() >= w.node.End() {
					continue
				}
			} else {
				if reach[c.block] == nil {
					reach[c.block] = reachable(c.block)
				}
				if !reach[c.block][w.block] {
					continue
				}
			}
			a.reported[w.acc.call] = true
			a.report(c, w)
		}
	}
}

// reachable returns the blocks reachable from b's successors.
func reachable(b *cfg.Block) map[*cfg.Block]bool {
	seen := map[*cfg.Block]bool{}
	stack := slices.Clone(b.Succs)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !seen[x] {
			seen[x] = true
			stack = append(stack, x.Succs...)
		}
	}
	return seen
}

// performs returns the accesses call makes: itself, or those of the
// package function it calls, transitively.
func (a *checker) performs(call *ast.CallExpr) []*access {
	if acc := a.classify(call); acc != nil {
		return []*access{acc}
	}
	fn := typeutil.StaticCallee(a.pass.TypesInfo, call)
	if fn == nil || a.decls[fn.Origin()] == nil {
		return nil
	}
	return a.summarize(fn.Origin())
}

// summarize returns every access fn's body makes, closures included.
func (a *checker) summarize(fn *types.Func) []*access {
	if s, done := a.summary[fn]; done {
		return s
	}
	a.summary[fn] = nil
	var s []*access
	ast.Inspect(a.decls[fn].Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			for _, acc := range a.performs(call) {
				if !slices.Contains(s, acc) {
					s = append(s, acc)
				}
			}
		}
		return true
	})
	a.summary[fn] = s
	return s
}

// classify returns call's access to a record, or nil.
func (a *checker) classify(call *ast.CallExpr) *access {
	if acc, done := a.accesses[call]; done {
		return acc
	}
	acc := a.classifyCall(call)
	a.accesses[call] = acc
	return acc
}

func (a *checker) classifyCall(call *ast.CallExpr) *access {
	info := a.pass.TypesInfo
	if c, ok := match.SQL(info, call); ok {
		st := c.Statement()
		acc := &access{lib: sqlLib, call: call, sql: c, stmt: st, target: st.Table, record: record(st.Table),
			dedup: match.DedupName(st.Table) || slices.ContainsFunc(st.Columns, match.KeyColumn)}
		switch {
		case st.Verb == match.Select:
			acc.role, acc.what = check, "SELECT"
			if st.ForUpdate {
				acc.what = "SELECT ... FOR UPDATE"
			}
		case st.Verb == match.Insert && !st.Conditional:
			acc.role, acc.what = act, "INSERT"
		case st.Verb == match.Update && !st.Guarded:
			acc.role, acc.what = act, "UPDATE"
		default:
			return nil
		}
		if st.Table == "" {
			return nil
		}
		return acc
	}
	if c, ok := match.ORM(info, call); ok && c.Model != "" {
		acc := &access{lib: gormLib, call: call, what: c.Method, target: c.Model, record: record(c.Model), dedup: match.DedupName(c.Model)}
		switch {
		case c.Op == match.ORMRead:
			acc.role = check
		case c.Op == match.ORMCreate && !c.OnConflict:
			acc.role = act
		default:
			return nil
		}
		return acc
	}
	if c, ok := match.Redis(info, call); ok {
		text := types.ExprString(c.Key)
		acc := &access{lib: redisLib, call: call, what: c.Op.String(), target: text,
			record: "redis " + keyShape(info, c.Key), dedup: match.DedupName(text) || match.KeyColumn(text)}
		switch c.Op {
		case match.RedisGet, match.RedisExists:
			acc.role = check
		case match.RedisSet:
			acc.role = act
		default:
			return nil
		}
		return acc
	}
	return nil
}

// record normalises a table or model name so that a gorm model and its
// table name the same record: ProcessedEvent and processed_events are
// both processed_event.
func record(name string) string {
	ws := match.Words(name)
	if n := len(ws); n > 0 {
		if w := ws[n-1]; len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			ws[n-1] = strings.TrimSuffix(w, "s")
		}
	}
	return strings.Join(ws, "_")
}

// keyShape returns a Redis key expression's constant skeleton, with
// "{}" for what varies: "seen:" + id and "seen:" + ev.ID are both
// "seen:{}", whatever the helper calls its parameter. A key with no
// constant part is known by its expression.
func keyShape(info *types.Info, e ast.Expr) string {
	var shape func(e ast.Expr) string
	shape = func(e ast.Expr) string {
		if s, ok := match.ConstString(info, e); ok {
			return s
		}
		switch e := ast.Unparen(e).(type) {
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				return shape(e.X) + shape(e.Y)
			}
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(info, e); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(e.Args) > 0 {
				if s, ok := match.ConstString(info, e.Args[0]); ok {
					return s
				}
			}
		}
		return "{}"
	}
	s := shape(e)
	if strings.Trim(s, "{}") == "" {
		return types.ExprString(e)
	}
	return s
}

// firstOrCreate reports gorm's FirstOrCreate on a dedup model: a SELECT
// and an INSERT in one call, with the same race.
func (a *checker) firstOrCreate(call *ast.CallExpr) {
	c, ok := match.ORM(a.pass.TypesInfo, call)
	if !ok || c.Op != match.ORMFirstOrCreate || !match.DedupName(c.Model) {
		return
	}
	a.r.Reportf(call, "FirstOrCreate of %s is a SELECT then an INSERT and races with a concurrent retry; use Clauses(clause.OnConflict{DoNothing: true}).Create and treat RowsAffected == 0 as already done (checkthenact)", c.Model)
}

// report reports the act w after the check c.
func (a *checker) report(c, w event) {
	checkWhat := c.acc.what
	if c.acc.stmt.ForUpdate {
		checkWhat += " (which cannot lock a row that does not exist yet)"
	}
	var msg string
	switch {
	case w.acc.lib == sqlLib && w.acc.stmt.Verb == match.Insert:
		msg = "INSERT into %s after the %s at %s races with a concurrent retry; use INSERT ... ON CONFLICT DO NOTHING and treat no row inserted as already done"
	case w.acc.lib == sqlLib:
		msg = "UPDATE of %s after the %s at %s races with a concurrent retry; compare what was read in its WHERE clause (the status, or a version column) and treat no row updated as lost"
	case w.acc.lib == gormLib:
		msg = "Create of %s after the %s at %s races with a concurrent retry; use Clauses(clause.OnConflict{DoNothing: true}).Create and treat RowsAffected == 0 as already done"
	default:
		msg = "SET of %s after the %s at %s races with a concurrent retry; use SetNX (SET NX) and treat false as already done"
	}
	d := analysis.Diagnostic{
		Pos:     w.acc.call.Pos(),
		End:     w.acc.call.End(),
		Message: fmt.Sprintf(msg, w.acc.target, checkWhat, a.where(c.acc.call.Pos())) + " (checkthenact)",
		Related: []analysis.RelatedInformation{{Pos: c.acc.call.Pos(), End: c.acc.call.End(), Message: "the " + c.acc.what + " that checks first"}},
	}
	for _, e := range []event{c, w} {
		if e.node != e.acc.call {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: e.node.Pos(), End: e.node.End(),
				Message: fmt.Sprintf("reaches the %s at %s", e.acc.what, a.where(e.acc.call.Pos()))})
		}
	}
	if fix, ok := a.onConflict(c.acc, w.acc); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	a.r.Report(d)
}

// where names a position as file:line, the file by its base name.
func (a *checker) where(pos token.Pos) string {
	p := a.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

var (
	postgresPlaceholder = regexp.MustCompile(`\$[0-9]`)
	returning           = regexp.MustCompile(`(?i)\bRETURNING\b`)
	trailing            = regexp.MustCompile(`[\s;]*$`)
)

// onConflict is the mechanical fix of a Postgres INSERT written as one
// literal (in the call, or in a constant of this package): ON CONFLICT on
// the key column the check looked up, DO NOTHING.
func (a *checker) onConflict(c, w *access) (analysis.SuggestedFix, bool) {
	if w.lib != sqlLib || w.stmt.Verb != match.Insert || !postgresPlaceholder.MatchString(w.sql.Text) {
		return analysis.SuggestedFix{}, false
	}
	lit := a.literal(w.sql.Query)
	if lit == nil {
		return analysis.SuggestedFix{}, false
	}
	target := ""
	for _, col := range c.stmt.Columns {
		if slices.Contains(w.stmt.Columns, col) {
			target = "(" + col + ") "
			break
		}
	}
	if target == "" {
		if i := slices.IndexFunc(w.stmt.Columns, match.KeyColumn); i >= 0 {
			target = "(" + w.stmt.Columns[i] + ") "
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
func (a *checker) literal(e ast.Expr) *ast.BasicLit {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return e
	case *ast.Ident:
		obj, ok := a.pass.TypesInfo.Uses[e].(*types.Const)
		if !ok || obj.Pkg() != a.pass.Pkg {
			return nil
		}
		var lit *ast.BasicLit
		for _, f := range a.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				spec, ok := n.(*ast.ValueSpec)
				if !ok {
					return lit == nil
				}
				for i, name := range spec.Names {
					if a.pass.TypesInfo.Defs[name] == obj && i < len(spec.Values) {
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
