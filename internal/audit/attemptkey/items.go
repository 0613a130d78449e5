package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// takeWords name a call that hands over the next item of a stream, a
// queue or a cursor: a reader's FetchMessage or ReadMessage, a
// subscription's Fetch, NextMsg or Receive, a gRPC stream's Recv, a
// Redis list's BRPop or a stream's XReadGroup, a listener's Accept, a
// cursor's Next or Scan, a decoder's Decode.
var takeWords = []string{"fetch", "receive", "recv", "next", "read", "pop", "dequeue", "accept", "scan", "poll", "pull", "take", "decode",
	"brpop", "blpop", "blmove", "brpoplpush", "bzpopmin", "bzpopmax", "xread", "xreadgroup"}

// redisPrefixes begin the name of a Redis command in a client's method
// (BRPop, XReadGroup, LPop): the command's verb comes after.
var redisPrefixes = []string{"b", "bl", "br", "bz", "l", "r", "x", "z"}

// takeCommands are the Redis commands that pop or read the next entry of
// a list or a stream, given as a command's name (conn.Do("BRPOP", ...)).
var takeCommands = []string{"BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BZPOPMIN", "BZPOPMAX", "LPOP", "RPOP", "LMOVE", "XREAD", "XREADGROUP"}

// turn is the body of a loop, to tell whether each turn takes a new item.
type turn struct {
	info *types.Info
	body *ast.BlockStmt
}

// takesItem reports a loop whose every turn takes a new item to work on,
// and returns the item's type: a receive from a channel made before the
// loop whose value the turn uses (p, ok := <-in; case job := <-jobs:), or
// a call that takes the next item of a stream, queue or cursor held from
// before the loop whose result the turn uses (msg, err :=
// r.FetchMessage(ctx); if !rows.Next() { break }; for it.Next(ctx)), taken
// before the turn sends anything. Such a loop walks items, each a new
// operation that may rightly get its own key, however it waits between
// them; it retries none of them. A receive whose value is dropped
// (<-time.After(d), case <-ctx.Done():) is a wait, and a value received
// after the turn has sent something (a reply awaited before resending) is
// the answer to that send, not an item. A loop that leaves once a turn
// succeeds (if err == nil { break }) retries the taking itself: a
// client's Next or Fetch asked again until it answers.
func takesItem(info *types.Info, cond ast.Expr, body *ast.BlockStmt) (types.Type, bool) {
	if leavesTurnOnSuccess(body) {
		return nil, false
	}
	t := turn{info: info, body: body}
	if cond != nil {
		if call := t.takeIn(cond); call != nil {
			return info.TypeOf(call), true
		}
	}
	firstSend := token.NoPos
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false // their turns are their own
		case *ast.CallExpr:
			if sendName(calledName(n)) && (!firstSend.IsValid() || n.Pos() < firstSend) {
				firstSend = n.Pos()
			}
		}
		return true
	})
	var item types.Type
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if n != nil && firstSend.IsValid() && n.Pos() >= firstSend {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.ExprStmt:
			// a value taken and dropped: a wait, or a pop discarded
			return !t.take(n.X)
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 || !t.take(n.Rhs[0]) {
				return true
			}
			for _, l := range n.Lhs {
				if t.usedValue(l) {
					item, found = info.TypeOf(l), true
					break
				}
			}
			return false
		case ast.Expr:
			if t.take(n) {
				// an operand: if !rows.Next(), handle(<-in)
				item, found = info.TypeOf(n), true
				return false
			}
		}
		return true
	})
	return item, found
}

// take reports an expression that takes the next item: a receive from a
// channel held from before the loop, carrying values (not time.Time, an
// empty struct or an error), or a call that takes one, directly or under
// a result wrapper (rdb.BRPop(ctx, 0, q).Result()).
func (t turn) take(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		ch, ok := t.info.TypeOf(u.X).Underlying().(*types.Chan)
		if !ok || !t.before(u.X) {
			return false
		}
		switch el := ch.Elem(); {
		case isNamed(el, "time", "Time"), types.Identical(el, types.Universe.Lookup("error").Type()):
			return false
		default:
			s, ok := el.Underlying().(*types.Struct)
			return !ok || s.NumFields() > 0
		}
	}
	return t.takeIn(e) != nil
}

// takeIn returns the call in e, outside function literals, that takes the
// next item of a stream, a queue or a cursor: a method so named of a value
// held from before the loop (r.FetchMessage, c.sub.NextMsg, rdb.BRPop), a
// function so named whose arguments are all held from before it, or a
// Redis command that pops or reads an entry (conn.Do("BRPOP", q, 0)).
func (t turn) takeIn(e ast.Expr) *ast.CallExpr {
	var out *ast.CallExpr
	ast.Inspect(e, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if t.takeCall(n) {
				out = n
			}
		}
		return out == nil
	})
	return out
}

func (t turn) takeCall(call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if s, ok := match.ConstString(t.info, a); ok && slices.Contains(takeCommands, strings.ToUpper(s)) {
			return true
		}
	}
	if !takeName(calledName(call)) {
		return false
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if _, method := t.info.Selections[sel]; method {
			return t.held(sel.X)
		}
	}
	if !t.held(call.Fun) {
		return false
	}
	return !slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return !t.before(a) })
}

// takeName reports a name whose verb is one of takeWords, after a Redis
// command's prefix if it has one (BRPop, XReadGroup).
func takeName(name string) bool {
	w := match.Words(name)
	if len(w) > 1 && slices.Contains(redisPrefixes, w[0]) {
		w = w[1:]
	}
	return slices.ContainsFunc(w, func(w string) bool { return slices.Contains(takeWords, w) })
}

// calledName returns the name of the function or method a call calls;
// "" for another callee.
func calledName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// held reports a path to a value held from before the loop: a variable
// declared outside it, its fields, and what its methods without arguments
// return (sub.Messages(), c.B()), no matter what the turn made.
func (t turn) held(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return t.outside(x)
		case *ast.SelectorExpr:
			e = x.X
		case *ast.CallExpr:
			if len(x.Args) > 0 {
				return false
			}
			e = x.Fun
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			if !t.before(x.Index) {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}

// before reports an expression that uses no variable declared in the
// turn.
func (t turn) before(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if id, isID := n.(*ast.Ident); isID && !t.outside(id) {
			ok = false
		}
		return ok
	})
	return ok
}

// outside reports an identifier that is not a variable declared in the
// turn.
func (t turn) outside(id *ast.Ident) bool {
	v, ok := t.info.ObjectOf(id).(*types.Var)
	return !ok || v.IsField() || !within(t.body, v.Pos())
}

// usedValue reports a left-hand side that keeps a taken value the turn
// goes on to use: an element or field it stores into, or a variable, not
// an error, read somewhere in the turn.
func (t turn) usedValue(l ast.Expr) bool {
	id, ok := ast.Unparen(l).(*ast.Ident)
	if !ok {
		return true // w.cur = <-in, batch[i] = <-in
	}
	obj := t.info.ObjectOf(id)
	if obj == nil || id.Name == "_" || types.Identical(obj.Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	used := false
	ast.Inspect(t.body, func(n ast.Node) bool {
		if u, ok := n.(*ast.Ident); ok && u != id && t.info.Uses[u] == obj {
			used = true
		}
		return !used
	})
	return used
}

// itemLoop reports a loop whose turns each take a new item: a for loop
// that takes one (takesItem), or a range over a channel or an iterator
// function. A function called once a turn in one is called once for each
// item, not retried.
func (c *checker) itemLoop(n ast.Node) bool {
	info := c.pass.TypesInfo
	switch n := n.(type) {
	case *ast.ForStmt:
		_, items := takesItem(info, n.Cond, n.Body)
		return items && !countsTries(n.Cond)
	case *ast.RangeStmt:
		switch info.TypeOf(n.X).Underlying().(type) {
		case *types.Chan, *types.Signature:
			return n.Key != nil || n.Value != nil
		}
	}
	return false
}

// leavesTurnOnSuccess reports a loop body that leaves the loop when a turn
// succeeds (if err == nil { break }, if err == nil && ok { return }), not
// counting a nested loop's own retries, whose break leaves only that loop,
// nor a break that leaves only a select or a switch.
func leavesTurnOnSuccess(body *ast.BlockStmt) bool {
	found := false
	var walk func(n ast.Node, nested bool)
	walk = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
				return false
			case *ast.SelectStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
				if m != n {
					walk(m, true)
					return false
				}
			case *ast.IfStmt:
				if !successCond(m.Cond) {
					return true
				}
				for _, st := range m.Body.List {
					switch st := st.(type) {
					case *ast.ReturnStmt:
						found = true
					case *ast.BranchStmt:
						found = found || st.Tok == token.BREAK && (!nested || st.Label != nil)
					}
				}
			}
			return !found
		})
	}
	walk(body, false)
	return found
}

// successCond reports a condition that holds when a turn succeeded:
// err == nil, or one joined to others by && or || (if err == nil ||
// attempt == max { return err }).
func successCond(cond ast.Expr) bool {
	c := ast.Unparen(cond)
	if errNil(c) {
		return true
	}
	b, ok := c.(*ast.BinaryExpr)
	return ok && (b.Op == token.LAND || b.Op == token.LOR) && (successCond(b.X) || successCond(b.Y))
}
