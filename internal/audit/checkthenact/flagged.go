package checkthenact

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// A record can be stored whatever its lookup found, with the answer kept
// in it: an event whose idempotency key was seen before is stored with
// IsDuplicate set (the index on the key is not unique, duplicates are
// kept on purpose), and the work (the deliveries) runs only for one not
// flagged. The answer decides the work as an if on it would: two
// concurrent events with one key both find nothing, both are stored
// unflagged, and both are delivered.

// carrier is where an insert keeps what a lookup answered: a field of the
// record it stores (ev.IsDuplicate = dup; receipt{Repeat: n > 0}), or the
// answer itself handed to it as an argument of its own.
type carrier struct {
	v     *types.Var // the record's variable, or the answer's
	field *types.Var // the record's field; nil for the answer itself
	arg   int        // the index of the insert's argument that passes v
	// foundWhenTrue says which way round the flag is: true when it is set
	// for a record found (IsDuplicate, Repeat), false when for one not
	// found (IsNew, First).
	foundWhenTrue bool
	at            ast.Node // where the answer is put in it
}

func (c carrier) name() string {
	if c.field != nil {
		return c.field.Name()
	}
	return c.v.Name()
}

// absentWords name a flag that is set for a record not found before.
var absentWords = []string{"new", "first", "fresh", "unique", "original", "novel", "unseen"}

// flagged reports w, an insert that runs whatever rd found, when it
// stores rd's answer and that stored answer, tested after it, decides
// whether work runs, here or in a helper of the package given the
// record. An insert that is atomic (a handled duplicate-key error, ON
// CONFLICT, a reread on failure) decides for itself, and so does one whose
// callee sets the flag again (it looked under a lock of its own); a
// lock or claim held across the lookup and the insert was ruled out
// before.
func (f *fn) flagged(rd, w *event, t *taint) bool {
	if w.use.Op != match.OpWrite || !w.use.Appends || f.rereadOnError(w) || f.addedDecides(w) {
		return false
	}
	call, ok := w.at.(*ast.CallExpr)
	if !ok {
		return false
	}
	for _, c := range f.carriers(rd, w, call, t) {
		if c.field != nil && w.use.Callee != nil && f.eff.SetsField(call, c.arg, c.field.Name()) {
			continue // the insert flags the record again: its answer, not rd's, is tested
		}
		answer := func(obj types.Object) bool {
			v, ok := obj.(*types.Var)
			return ok && (t.vars[v] || v == c.field)
		}
		if f.duplicateHandledBut(w, answer) {
			return false // a unique key decides, and the failed insert says so
		}
		if cond, work := f.flagDecides(rd, w, c); cond != nil {
			f.reportFlagged(rd, w, c, cond, work)
			return true
		}
	}
	return false
}

// carriers returns the places where the insert call keeps what rd
// answered.
func (f *fn) carriers(rd, w *event, call *ast.CallExpr, t *taint) []carrier {
	info := f.pass.TypesInfo
	var out []carrier
	add := func(c carrier, value ast.Expr) {
		way, ok := f.flagWay(c, value, t)
		if !ok {
			return
		}
		c.foundWhenTrue = way
		out = append(out, c)
	}
	for i, a := range call.Args {
		a = ast.Unparen(a)
		if u, ok := a.(*ast.UnaryExpr); ok && u.Op == token.AND {
			a = ast.Unparen(u.X)
		}
		switch a := a.(type) {
		case *ast.Ident:
			v, ok := info.Uses[a].(*types.Var)
			if !ok {
				continue
			}
			if t.vars[v] && isBoolType(v.Type()) {
				add(carrier{v: v, arg: i, at: a}, a) // insert(ctx, id, seen)
				continue
			}
			for _, c := range f.fieldsSet(v, rd, w, t) {
				c.arg = i
				add(c, c.at.(ast.Expr))
			}
		case *ast.SelectorExpr:
			// INSERT ... VALUES (..., $3) with rc.Repeat: a field set before.
			v := effect.RootVar(info, a)
			fv, ok := info.Uses[a.Sel].(*types.Var)
			if v == nil || !ok || !fv.IsField() {
				continue
			}
			for _, c := range f.fieldsSet(v, rd, w, t) {
				if c.field == fv {
					c.arg = i
					add(c, c.at.(ast.Expr))
				}
			}
		}
	}
	return out
}

// fieldsSet returns the bool fields of v given a value from rd's answer
// before w: assigned (v.F = dup; v.F = true under an if on the answer) or
// in the composite literal v is made from (v := T{F: n > 0}). The
// carrier's at is the value given.
func (f *fn) fieldsSet(v *types.Var, rd, w *event, t *taint) []carrier {
	info := f.pass.TypesInfo
	var out []carrier
	field := func(e ast.Expr) *types.Var {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok || effect.RootVar(info, sel.X) != v {
			return nil
		}
		if id, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || info.Uses[id] != v {
			return nil // a field of a field
		}
		fv, ok := info.Uses[sel.Sel].(*types.Var)
		if !ok || !fv.IsField() || !isBoolType(fv.Type()) {
			return nil
		}
		return fv
	}
	ast.PreorderStack(f.body, nil, func(n ast.Node, stack []ast.Node) bool {
		if n.Pos() >= w.at.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if fv := field(l); fv != nil && n.Pos() > rd.at.Pos() {
					out = append(out, carrier{v: v, field: fv, at: n.Rhs[i]})
					continue
				}
				if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) == v {
					out = append(out, f.literalFields(v, n.Rhs[i])...)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if info.ObjectOf(id) == v && i < len(n.Values) {
					out = append(out, f.literalFields(v, n.Values[i])...)
				}
			}
		}
		return true
	})
	return out
}

// literalFields returns the bool fields a composite literal (or its
// address) sets, for v made from it.
func (f *fn) literalFields(v *types.Var, e ast.Expr) []carrier {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []carrier
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		if fv, ok := f.pass.TypesInfo.Uses[id].(*types.Var); ok && fv.IsField() && isBoolType(fv.Type()) {
			out = append(out, carrier{v: v, field: fv, at: kv.Value})
		}
	}
	return out
}

// flagWay reports which way round c holds rd's answer, given the value
// put in it: a condition on the answer (dup, n > 0, existing != nil), or
// a constant set under an if on it (if exists { rc.Repeat = true }). When
// the answer does not say, the flag's name does (IsDuplicate, IsNew).
// ok is false when the value is not made from the answer.
func (f *fn) flagWay(c carrier, value ast.Expr, t *taint) (foundWhenTrue, ok bool) {
	byName := func() (bool, bool) {
		ws := match.Words(c.name())
		switch {
		case slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(presentWords, w) }):
			return true, true
		case slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(absentWords, w) }):
			return false, true
		}
		return false, false
	}
	if f.mentions(value, t) {
		switch f.presentSide(value, t) {
		case 0:
			return true, true
		case 1:
			return false, true
		}
		return byName()
	}
	id, isConst := ast.Unparen(value).(*ast.Ident)
	if !isConst || (id.Name != "true" && id.Name != "false") {
		return false, false
	}
	// A constant: under which side of a condition on the answer?
	var way, found bool
	ast.PreorderStack(f.body, nil, func(n ast.Node, stack []ast.Node) bool {
		if found || n != value {
			return !found
		}
		for i := len(stack) - 1; i >= 0 && !found; i-- {
			ifs, ok := stack[i].(*ast.IfStmt)
			if !ok || !f.mentions(ifs.Cond, t) {
				continue
			}
			side := f.presentSide(ifs.Cond, t)
			if side < 0 {
				return false
			}
			inThen := contains(ifs.Body, value)
			foundHere := (side == 0) == inThen
			way, found = foundHere == (id.Name == "true"), true
		}
		return false
	})
	if !found {
		return false, false
	}
	return way, true
}

// flagDecides returns a condition after w that tests what c carries and
// the work that runs only on its side where nothing was found: here, or
// in a function of the package given the record that tests the flag.
// The carrier must not be given a new value between w and the condition.
func (f *fn) flagDecides(rd, w *event, c carrier) (ast.Expr, ast.Node) {
	for _, b := range f.g.Blocks {
		if !b.Live || len(b.Succs) != 2 || len(b.Nodes) == 0 || !(b == w.block || f.reaches(w.block, b, nil)) {
			continue
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok || cond.Pos() < w.at.End() || f.reassigned(c, w.at.End(), cond.Pos()) {
			continue
		}
		side := f.flagSide(cond, c)
		if side < 0 {
			continue
		}
		if work := f.gatedWork(b, side, rd, w); work != nil {
			return cond, work
		}
	}
	if c.field == nil {
		return nil, nil
	}
	// A helper of the package given the record tests the flag.
	for _, b := range f.g.Blocks {
		if !b.Live || !(b == w.block || f.reaches(w.block, b, nil)) {
			continue
		}
		for _, n := range b.Nodes {
			var cond ast.Expr
			var work ast.Node
			ast.Inspect(n, func(x ast.Node) bool {
				call, ok := x.(*ast.CallExpr)
				if cond != nil || !ok {
					return cond == nil
				}
				if _, ok := x.(*ast.FuncLit); ok {
					return false
				}
				if call.Pos() < w.at.End() || f.reassigned(c, w.at.End(), call.Pos()) {
					return true
				}
				cond, work = f.helperDecides(call, c)
				return cond == nil
			})
			if cond != nil {
				return cond, work
			}
		}
	}
	return nil, nil
}

// helperDecides reads a call of a function declared in the package that
// is given c's record: whether the function tests c's field of it, and
// work runs only on the side where nothing was found.
func (f *fn) helperDecides(call *ast.CallExpr, c carrier) (ast.Expr, ast.Node) {
	info := f.pass.TypesInfo
	callee, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || callee.Pkg() != f.pass.Pkg {
		return nil, nil
	}
	decl := f.decl(callee)
	if decl == nil || decl.Body == nil {
		return nil, nil
	}
	g := f.cfgs.FuncDecl(decl)
	if g == nil {
		return nil, nil
	}
	for i, a := range call.Args {
		if effect.RootVar(info, a) != c.v || i >= callee.Signature().Params().Len() {
			continue
		}
		if _, ok := ast.Unparen(a).(*ast.SelectorExpr); ok {
			continue // a field of the record, not the record
		}
		p := callee.Signature().Params().At(i)
		var recv *types.Var
		if r := callee.Signature().Recv(); r != nil {
			recv = r
		}
		h := f.newFn(decl.Body, g, recv)
		hc := carrier{v: p, field: c.field, foundWhenTrue: c.foundWhenTrue}
		for _, b := range g.Blocks {
			if !b.Live || len(b.Succs) != 2 || len(b.Nodes) == 0 {
				continue
			}
			cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
			if !ok || h.reassigned(hc, decl.Body.Pos(), cond.Pos()) {
				continue
			}
			if side := h.flagSide(cond, hc); side >= 0 {
				if work := h.gatedWork(b, side, nil, nil); work != nil {
					return cond, work
				}
			}
		}
	}
	return nil, nil
}

// decl returns the declaration of fn among the package's files.
func (c *checker) decl(fn *types.Func) *ast.FuncDecl {
	for _, file := range c.pass.Files {
		if file.Pos() > fn.Pos() || fn.Pos() > file.End() {
			continue
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && c.pass.TypesInfo.Defs[fd.Name] == fn {
				return fd
			}
		}
	}
	return nil
}

// reassigned reports whether c's flag (or its record, or its answer) is
// given a new value between from and to.
func (f *fn) reassigned(c carrier, from, to token.Pos) bool {
	info := f.pass.TypesInfo
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if found || !ok || as.Pos() < from || as.Pos() > to {
			return !found
		}
		for _, l := range as.Lhs {
			l = ast.Unparen(l)
			if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) == c.v {
				found = true
			}
			if sel, ok := l.(*ast.SelectorExpr); ok && c.field != nil && info.Uses[sel.Sel] == c.field && effect.RootVar(info, sel) == c.v {
				found = true
			}
		}
		return !found
	})
	return found
}

// flagSide returns the index of the successor of cond that runs when the
// flag c carries says the record was found, or -1 when cond does not test
// it alone: rc.Repeat, !ev.IsDuplicate, seen && ..., and || as presentSide
// reads them.
func (f *fn) flagSide(cond ast.Expr, c carrier) int {
	info := f.pass.TypesInfo
	found := 1
	if c.foundWhenTrue {
		found = 0
	}
	switch x := ast.Unparen(cond).(type) {
	case *ast.Ident:
		if c.field == nil && info.Uses[x] == c.v {
			return found
		}
	case *ast.SelectorExpr:
		if c.field != nil && info.Uses[x.Sel] == c.field && effect.RootVar(info, x.X) == c.v {
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && info.Uses[id] == c.v {
				return found
			}
		}
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			if s := f.flagSide(x.X, c); s >= 0 {
				return 1 - s
			}
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND:
			if f.flagSide(x.X, c) == 0 || f.flagSide(x.Y, c) == 0 {
				return 0
			}
		case token.LOR:
			if f.flagSide(x.X, c) == 1 || f.flagSide(x.Y, c) == 1 {
				return 1
			}
		}
	}
	return -1
}

// gatedWork returns work that runs on the side of the condition ending
// b where nothing was found, and cannot run on the side where the record
// was found: a side effect (a request, a message, an insert into another
// record), a function value called, or a method of an interface the module
// declares. rd and w, when given, are the lookup and the insert: the
// insert is not the work, nor is a message sent under the key looked up.
func (f *fn) gatedWork(b *cfg.Block, found int, rd, w *event) ast.Node {
	missing, present := b.Succs[1-found], b.Succs[found]
	onlyMissing := func(x *cfg.Block) bool {
		return (x == missing || f.reaches(missing, x, b)) && x != present && !f.reaches(present, x, b)
	}
	for _, s := range f.events {
		if w != nil && (s.at == w.at || s.use.Record == w.use.Record) {
			continue
		}
		if rd != nil && s.use.External && len(s.use.Keys) > 0 && effect.SameKey(rd.atoms, s.atoms, rd.use.Keys, s.use.Keys) {
			continue // sent under an idempotency key made from the key looked up: its receiver runs it once
		}
		work := s.use.External || s.use.Op == match.OpWrite && s.use.Appends && !s.use.Shape ||
			s.use.Op == match.OpUpdate && s.use.Increments
		if work && onlyMissing(s.block) {
			return s.at
		}
	}
	info := f.pass.TypesInfo
	var work ast.Node
	for _, x := range f.g.Blocks {
		if work != nil || !x.Live || !onlyMissing(x) {
			continue
		}
		for _, n := range x.Nodes {
			ast.Inspect(n, func(y ast.Node) bool {
				switch y.(type) {
				case *ast.FuncLit, *ast.DeferStmt:
					return false
				}
				call, ok := y.(*ast.CallExpr)
				if work != nil || !ok {
					return work == nil
				}
				if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
					return true
				}
				if _, ok := typeutil.Callee(info, call).(*types.Var); ok || f.moduleWork(call) || f.helperWork(call, 2) {
					work = call
				}
				return work == nil
			})
		}
	}
	return work
}

// helperWork reports whether call calls a function of the package that
// does work somewhere in its body (fanOut(ctx, ev) queueing a delivery
// per subscription), following its own such calls depth deep.
func (f *fn) helperWork(call *ast.CallExpr, depth int) bool {
	callee, ok := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
	if !ok || depth == 0 || callee.Pkg() != f.pass.Pkg {
		return false
	}
	decl := f.decl(callee)
	if decl == nil || decl.Body == nil {
		return false
	}
	g := f.cfgs.FuncDecl(decl)
	if g == nil {
		return false
	}
	var recv *types.Var
	if r := callee.Signature().Recv(); r != nil {
		recv = r
	}
	h := f.newFn(decl.Body, g, recv)
	if slices.ContainsFunc(h.events, func(s *event) bool {
		return s.use.External || s.use.Op == match.OpWrite && s.use.Appends && !s.use.Shape || s.use.Op == match.OpUpdate && s.use.Increments
	}) {
		return true
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit, *ast.DeferStmt:
			return false
		}
		c, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		if tv, ok := f.pass.TypesInfo.Types[c.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
			return true
		}
		if _, ok := typeutil.Callee(f.pass.TypesInfo, c).(*types.Var); ok || h.moduleWork(c) || h.helperWork(c, depth-1) {
			found = true
		}
		return !found
	})
	return found
}

// reportFlagged reports the insert w, which stores c, rd's answer, that
// cond then reads to decide work.
func (f *fn) reportFlagged(rd, w *event, c carrier, cond ast.Expr, work ast.Node) {
	checkWhat := rd.use.What
	at := f.where(rd.at.Pos())
	if rd.use.Callee != nil && !rd.use.Shape {
		checkWhat = fmt.Sprintf("%s in %s", checkWhat, rd.use.Callee.Name())
		at = rd.use.Where + ", called at " + at
	}
	target := w.use.Target
	if w.use.Callee != nil && !w.use.Shape {
		target = fmt.Sprintf("%s (by %s, at %s)", target, w.use.Callee.Name(), w.use.Where)
	}
	subject := w.use.What + " of " + target
	if w.use.What == "INSERT" {
		subject = "INSERT into " + target
	}
	what := types.ExprString(work.(ast.Expr))
	if call, ok := work.(*ast.CallExpr); ok {
		what = types.ExprString(call.Fun)
	}
	stored := "false"
	if !c.foundWhenTrue {
		stored = "true"
	}
	msg := fmt.Sprintf("%s after the %s at %s races with a concurrent retry: both find nothing, both are stored with %s %s, and both run %s, which runs only for a record stored so; claim the key before the lookup (%s, or a lock held through the insert) and set %s from what the claim answered",
		subject, checkWhat, at, c.name(), stored, what, claimAdvice(w.use.Record), c.name())
	f.r.Report(analysis.Diagnostic{
		Pos:     w.at.Pos(),
		End:     w.at.End(),
		Message: msg + " (checkthenact)",
		Related: []analysis.RelatedInformation{
			{Pos: rd.at.Pos(), End: rd.at.End(), Message: "the " + rd.use.What + " that checks first"},
			{Pos: cond.Pos(), End: cond.End(), Message: "the stored answer decides the work here"},
			{Pos: work.Pos(), End: work.End(), Message: "the work"},
		},
	})
}
