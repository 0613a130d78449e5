package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// selectTurn reads a loop whose turn is a select with both a case that
// takes an input (case msg := <-in:) and one that waits on a ticker or a
// time (case <-ticker.C:), before the turn sends anything: a batcher, a
// worker that also flushes or sweeps on a schedule. Such a loop is no
// attempt of anything; each case is a turn of its own: an input case is
// one operation for the input it takes, a ticker case a scheduled run.
// It returns the case holding pos (nil when pos is elsewhere in the loop)
// and, for an input case, the type of what it takes; ok is false for
// another loop.
func selectTurn(info *types.Info, loop *ast.ForStmt, pos token.Pos) (clause *ast.CommClause, item types.Type, ok bool) {
	t := turn{info: info, body: loop.Body}
	var sel *ast.SelectStmt
	for _, st := range loop.Body.List {
		if s, isSel := st.(*ast.SelectStmt); isSel {
			sel = s
			break
		}
		if callsSend(st) {
			return nil, nil, false // an answer awaited after a send, or a wait after it
		}
	}
	if sel == nil {
		return nil, nil, false
	}
	inputs, timers := 0, 0
	for _, st := range sel.Body.List {
		cc := st.(*ast.CommClause)
		in, timer := t.commInput(cc), timeComm(info, cc.Comm)
		switch {
		case timer:
			timers++
		case in != nil:
			inputs++
		}
		if within(cc, pos) {
			clause, item = cc, in
			if timer {
				item = nil
			} else if in == nil {
				clause = nil // ctx.Done(), a quit channel, a default
			}
		}
	}
	return clause, item, inputs > 0 && timers > 0
}

// callsSend reports a statement that calls something named for sending.
func callsSend(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && sendName(calledName(call)) {
			found = true
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// commInput returns the type of the input a select case takes (case job
// := <-jobs:, case m, ok := <-sub:) when the case uses it; nil for another
// case.
func (t turn) commInput(cc *ast.CommClause) types.Type {
	a, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || len(a.Rhs) != 1 || !t.take(a.Rhs[0]) {
		return nil
	}
	id, ok := a.Lhs[0].(*ast.Ident)
	if !ok {
		return nil
	}
	obj := t.info.ObjectOf(id)
	used := false
	ast.Inspect(cc, func(n ast.Node) bool {
		if u, ok := n.(*ast.Ident); ok && u != id && t.info.Uses[u] == obj {
			used = true
		}
		return !used
	})
	if !used {
		return nil
	}
	return t.info.TypeOf(id)
}

// timeComm reports a select case that receives from a time channel: a
// ticker's or a timer's C, time.After.
func timeComm(info *types.Info, comm ast.Stmt) bool {
	var x ast.Expr
	switch c := comm.(type) {
	case *ast.ExprStmt:
		x = c.X
	case *ast.AssignStmt:
		if len(c.Rhs) == 1 {
			x = c.Rhs[0]
		}
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	ch, ok := info.TypeOf(u.X).Underlying().(*types.Chan)
	return ok && isNamed(ch.Elem(), "time", "Time")
}

// periodic reports a loop that runs on a schedule: one with no condition,
// or one that only asks whether to go on (for ctx.Err() == nil), whose
// turns wait on a ticker, a timer, time.After or a sleep and go round
// again whatever they did. A loop that goes round again only after a
// failure retries (repeatsOnFailure); one that waits on time.After or
// sleeps and sends the same thing again on every turn retries too
// (sameEachTurn), unless it runs until stopped: a resend after a wait
// that leaves once a turn gets through. A ticker's turn is a run of its
// own whatever it sends.
func periodic(info *types.Info, loop *ast.ForStmt) bool {
	if loop.Init != nil || loop.Post != nil || countsTries(loop.Cond) || loop.Cond != nil && walksCollection(loop.Cond) {
		return false
	}
	if !waitsOnClock(info, loop.Body) || repeatsOnFailure(info, loop.Body) || countsOwnTries(loop) {
		return false
	}
	if ticker(info, loop.Body) {
		return true
	}
	if _, items := takesItem(info, loop.Cond, loop.Body); items {
		return false
	}
	return runsUntilStopped(info, loop) || !sameEachTurn(info, loop, loop.Body)
}

// runsUntilStopped reports a loop that sends on success too: no counter,
// a condition (if any) that reads nothing its turns assign (ctx.Err() ==
// nil, not a sent flag or the last error), and no way out but a stop (a
// receive from ctx.Done() or a quit channel, if ctx.Err() != nil,
// errors.Is(err, context.Canceled)) or a failure (if err != nil { return
// err }). A retry leaves once a turn gets through, or goes round only
// when one did not; a heartbeat or an announcement goes round after
// every turn, so each turn is a new operation with a record of its own,
// whatever it is built from.
func runsUntilStopped(info *types.Info, loop *ast.ForStmt) bool {
	if loop.Init != nil || loop.Post != nil {
		return false
	}
	if loop.Cond != nil {
		assigned := map[types.Object]bool{}
		ast.Inspect(loop.Body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs = n.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{n.X}
			}
			for _, l := range lhs {
				switch l := ast.Unparen(l).(type) {
				case *ast.Ident:
					assigned[info.ObjectOf(l)] = true
				case *ast.SelectorExpr:
					assigned[info.ObjectOf(l.Sel)] = true
				}
			}
			return true
		})
		reads := false
		ast.Inspect(loop.Cond, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && assigned[info.ObjectOf(id)] {
				reads = true
			}
			return !reads
		})
		if reads {
			return false
		}
	}
	only := true // every way out is a stop or a failure
	var walk func(n ast.Node, guarded, nested bool)
	walk = func(n ast.Node, guarded, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if !only || m == nil || m == n {
				return only && m != nil
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				only = guarded
			case *ast.BranchStmt:
				// an unlabelled break in a nested loop, switch or select
				// leaves only that
				if m.Tok == token.GOTO || m.Tok == token.BREAK && (m.Label != nil || !nested) {
					only = guarded
				}
			case *ast.IfStmt:
				walk(m.Body, guarded || stopCond(info, m.Cond), nested)
				if m.Else != nil {
					walk(m.Else, guarded || errNil(m.Cond), nested)
				}
				return false
			case *ast.SelectStmt:
				for _, st := range m.Body.List {
					cc := st.(*ast.CommClause)
					for _, b := range cc.Body {
						walk(b, guarded || stopComm(info, cc.Comm), true)
					}
				}
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
				walk(m, guarded, true)
				return false
			}
			return true
		})
	}
	walk(loop.Body, false, false)
	return only
}

// stopCond reports an if condition that holds only when the work stops or
// failed: err != nil, ctx.Err() != nil, errors.Is(err, context.Canceled),
// or these joined so that success never satisfies them.
func stopCond(info *types.Info, cond ast.Expr) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return stopCond(info, c.X) || stopCond(info, c.Y)
		case token.LOR:
			return stopCond(info, c.X) && stopCond(info, c.Y)
		case token.NEQ:
			if errCompare(c) {
				return true
			}
			call, ok := ast.Unparen(c.X).(*ast.CallExpr)
			sel, ok2 := ast.Unparen(c.Y).(*ast.Ident)
			return ok && ok2 && sel.Name == "nil" && ctxErr(info, call)
		}
	case *ast.CallExpr:
		// errors.Is(err, context.Canceled)
		fn, ok := typeutil.Callee(info, c).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "Is" || len(c.Args) != 2 {
			return false
		}
		v, ok := info.Uses[match.NameIdent(c.Args[1])].(*types.Var)
		return ok && v.Pkg() != nil && v.Pkg().Path() == "context"
	}
	return false
}

// ctxErr reports a call ctx.Err() on a context.
func ctxErr(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Err" && isContext(info.TypeOf(sel.X))
}

// stopComm reports a select case that waits for a stop: a receive whose
// value is dropped from a channel that carries no time (ctx.Done(), a
// quit channel).
func stopComm(info *types.Info, comm ast.Stmt) bool {
	x, ok := comm.(*ast.ExprStmt)
	if !ok {
		return false
	}
	u, ok := ast.Unparen(x.X).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	ch, ok := info.TypeOf(u.X).Underlying().(*types.Chan)
	return ok && !isNamed(ch.Elem(), "time", "Time")
}

// ticker reports a loop body that receives from a ticker's or a timer's
// C: a scheduled turn.
func ticker(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if sel, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && n.Op == token.ARROW && sel.Sel.Name == "C" {
				t := info.TypeOf(sel.X)
				found = found || isNamed(t, "time", "Ticker") || isNamed(t, "time", "Timer")
			}
		}
		return !found
	})
	return found
}

// repeatsOnFailure reports a loop body that goes round again only when a
// turn fails: it leaves when one succeeds (if err == nil { return }), or
// at the end of every turn that did not continue (if err != nil {
// <-time.After(d); continue }; break), or it waits only in a failure's
// branch (if err != nil { time.Sleep(d) }). One that also waits after a
// success (a heartbeat that beats sooner after a failed beat) goes round
// either way.
func repeatsOnFailure(info *types.Info, body *ast.BlockStmt) bool {
	if leavesOnSuccess(body) {
		return true
	}
	if n := len(body.List); n > 0 {
		switch last := body.List[n-1].(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if last.Tok == token.BREAK {
				return true
			}
		}
	}
	onFailure, besides := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.IfStmt:
			if errNotNil(n.Cond) {
				onFailure = onFailure || waits(info, n.Body)
				besides = besides || n.Else != nil && waits(info, n.Else)
				return false
			}
		case *ast.CallExpr:
			besides = besides || waitCall(info, n)
		case *ast.UnaryExpr:
			besides = besides || n.Op == token.ARROW && ticks(info, n)
		}
		return !besides
	})
	return onFailure && !besides
}

// errNotNil reports a condition err != nil, or one joined to others by
// || or &&.
func errNotNil(cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LOR, token.LAND:
		return errNotNil(b.X) || errNotNil(b.Y)
	case token.NEQ:
		return errCompare(b)
	}
	return false
}

// sameEachTurn reports a loop turn that sends the same thing again: the
// calls it makes with a fresh value (the key), or names for sending, are
// otherwise given values held from before the loop (an event, a body, a
// parameter) and what the turn makes from those alone, and at least one
// such value that is not the receiver's. A turn that reads the clock,
// takes an input, uses the loop's own variables or sends only from a
// nested loop sends something new each time: a heartbeat, a poll, a
// batch.
func sameEachTurn(info *types.Info, loop ast.Node, body *ast.BlockStmt) bool {
	t := turn{info: info, body: body}
	own := map[types.Object]bool{} // the loop's own variables: a counter, a range's
	switch l := loop.(type) {
	case *ast.ForStmt:
		if a, ok := l.Init.(*ast.AssignStmt); ok {
			for _, x := range a.Lhs {
				if id, ok := x.(*ast.Ident); ok && info.Defs[id] != nil {
					own[info.Defs[id]] = true
				}
			}
		}
	case *ast.RangeStmt:
		for _, x := range []ast.Expr{l.Key, l.Value} {
			if id, ok := x.(*ast.Ident); ok && info.Defs[id] != nil {
				own[info.Defs[id]] = true
			}
		}
	}
	assigned := map[types.Object][]ast.Expr{}
	ast.Inspect(body, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok {
			for i, l := range a.Lhs {
				if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) != nil {
					var r ast.Expr // v, err := f(): f() for each
					if len(a.Rhs) == len(a.Lhs) {
						r = a.Rhs[i]
					} else if len(a.Rhs) == 1 {
						r = a.Rhs[0]
					}
					assigned[info.ObjectOf(id)] = append(assigned[info.ObjectOf(id)], r)
				}
			}
		}
		return true
	})
	var sends []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false // their turns are their own
		case *ast.CallExpr:
			if sendName(calledName(n)) || freshIn(info, n) {
				sends = append(sends, n)
				return false
			}
		}
		return true
	})
	if len(sends) == 0 {
		return false
	}
	held := false  // a value of the operation, not only the receiver's fields
	clock := false // whether a clock reading is a new turn's mark, not the key
	visiting := map[types.Object]bool{}
	var same func(e ast.Expr) bool
	same = func(e ast.Expr) bool {
		if e == nil {
			return false
		}
		ok := true
		ast.Inspect(e, func(n ast.Node) bool {
			if !ok {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.KeyValueExpr:
				if _, field := n.Key.(*ast.Ident); field {
					ok = same(n.Value) // a field's name is no value
					return false
				}
			case *ast.CallExpr:
				if clockReading(info, n) {
					ok = !clock // a timestamp beside another key: a new turn
					return false
				}
				if _, fresh := freshCall(info, n); fresh {
					return false // the key itself
				}
				if t.take(n) {
					ok = false
				}
			case *ast.SelectorExpr:
				if _, isSel := info.Selections[n]; !isSel {
					return false // pkg.Name
				}
				if id, isID := ast.Unparen(n.X).(*ast.Ident); isID {
					if v, isVar := info.Uses[id].(*types.Var); isVar && v.Kind() == types.RecvVar {
						return false // the receiver's field: the same, but no value of its own
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					ok = false
				}
			case *ast.Ident:
				v, isVar := info.Uses[n].(*types.Var)
				switch {
				case !isVar || v.IsField():
				case own[v]:
					ok = false
				case !within(body, v.Pos()):
					if v.Kind() != types.RecvVar && !isContext(v.Type()) {
						held = true
					}
				case visiting[v]:
				default:
					visiting[v] = true
					for _, r := range assigned[v] {
						ok = ok && same(r)
					}
					if len(assigned[v]) == 0 {
						ok = false // filled in the turn: rows.Scan(&v)
					}
				}
			}
			return ok
		})
		return ok
	}
	for _, call := range sends {
		clock = keyedBesidesClock(info, call)
		for _, a := range call.Args {
			if !same(a) {
				return false
			}
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && !same(sel.X) {
			return false
		}
	}
	return held
}

// clockReading reports time.Now or time.Since.
func clockReading(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "Now" || fn.Name() == "Since")
}

// keyedBesidesClock reports a call given a fresh value that is no clock
// reading (a UUID): a timestamp beside it marks what the turn sends as
// new, while a timestamp alone may be the key itself.
func keyedBesidesClock(info *types.Info, call *ast.CallExpr) bool {
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && c != call && !clockReading(info, c) {
			if _, fresh := freshCall(info, c); fresh {
				found = true
			}
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// freshIn reports a call given a fresh value made in its arguments:
// post(ctx, body, uuid.NewString()), Publish(ctx, Job{ID: ulid.Make()...}).
func freshIn(info *types.Info, call *ast.CallExpr) bool {
	found := false
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if _, fresh := freshCall(info, c); fresh {
					found = true
				}
			}
			_, lit := n.(*ast.FuncLit)
			return !found && !lit
		})
	}
	return found
}

// isContext reports a context.Context, which every call is given.
func isContext(t types.Type) bool {
	return isNamed(t, "context", "Context")
}
