package attemptkey

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// sent tells which values a function body passes on: a record of any name
// (a Job, a Command, a Notification) that is handed to a call named for
// sending it (Enqueue, Send, Publish), directly, by address, or through
// the variables that hold it or what is made of it (body, _ :=
// json.Marshal(n); pub.Publish(ctx, topic, body)). Such a record's own ID
// is the ID its receiver knows it by, whatever the type is called.
type sent struct {
	lits  map[*ast.CompositeLit]string // literals sent, with the call that sends them
	vars  map[types.Object]string      // variables sent, likewise
	keyed map[types.Object]bool        // variables holding a record with a key field set (v.EventID = ...)
}

// sendsIn finds what body sends.
func (c *checker) sendsIn(body *ast.BlockStmt) *sent {
	info := c.pass.TypesInfo
	s := &sent{lits: map[*ast.CompositeLit]string{}, vars: map[types.Object]string{}, keyed: map[types.Object]bool{}}
	mark := func(e ast.Node, by string) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CompositeLit:
				if _, ok := s.lits[n]; !ok {
					s.lits[n] = by
				}
			case *ast.Ident:
				if v, ok := info.Uses[n].(*types.Var); ok && !v.IsField() {
					if _, ok := s.vars[v]; !ok {
						s.vars[v] = by
					}
				}
			}
			return true
		})
	}
	type assignment struct {
		lhs []ast.Expr
		rhs []ast.Expr
	}
	var assigns []assignment
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && sendCall(fn) {
				for _, a := range n.Args {
					mark(a, fn.Name())
				}
			}
		case *ast.AssignStmt:
			assigns = append(assigns, assignment{n.Lhs, n.Rhs})
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			assigns = append(assigns, assignment{lhs, n.Values})
		}
		return true
	})
	for _, a := range assigns {
		for i, l := range a.lhs {
			v := effect.RootVar(info, l)
			if v == nil {
				continue
			}
			if sel, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && dedupField(sel.Sel.Name) {
				s.keyed[v] = true // job.IdempotencyKey = ...
			}
			if i < len(a.rhs) {
				if lit := recordLit(a.rhs[i]); lit != nil && keyedLit(lit) {
					s.keyed[v] = true // job := Job{ID: ..., EventID: ...}
				}
			}
		}
	}
	// What a sent variable is made of is sent too: the record marshalled
	// into it, the literal assigned to it.
	for changed := true; changed; {
		changed = false
		for _, a := range assigns {
			by := ""
			for _, l := range a.lhs {
				if obj := effect.RootVar(info, l); obj != nil && s.vars[obj] != "" {
					by = s.vars[obj]
					break
				}
			}
			if by == "" {
				continue
			}
			before := len(s.vars) + len(s.lits)
			for _, r := range a.rhs {
				mark(r, by)
			}
			changed = changed || len(s.vars)+len(s.lits) != before
		}
	}
	return s
}

// sendCall reports a call that passes what it is given on to a broker, a
// queue or a peer: one named for it (Publish, Enqueue, SendMessage,
// Produce) or kafka-go's WriteMessages.
func sendCall(fn *types.Func) bool {
	return sendName(fn.Name()) || fn.Name() == "WriteMessages"
}

// recordLit returns the composite literal e is, or points to; nil for
// another expression.
func recordLit(e ast.Expr) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	lit, _ := e.(*ast.CompositeLit)
	return lit
}

// routeWords name a key that routes or orders a record, not one that
// tells a repeat from a new one: a partition or routing key.
var routeWords = []string{"partition", "routing", "route", "shard", "sort", "ordering", "group", "cache", "api", "secret", "public", "private", "encryption", "signing"}

// dedupField reports a record's field that its receiver may drop a repeat
// by: one named for a key or an event's or message's ID (IdempotencyKey,
// EventID), or another key that is no routing key (ExecutionKey).
func dedupField(name string) bool {
	w := match.Words(name)
	return match.KeyColumn(name) ||
		len(w) > 1 && w[len(w)-1] == "key" && !slices.ContainsFunc(w, func(w string) bool { return slices.Contains(routeWords, w) })
}

// keyedLit reports a literal that sets a field its receiver may drop a
// repeat by (IdempotencyKey, EventID, ExecutionKey).
func keyedLit(lit *ast.CompositeLit) bool {
	return slices.ContainsFunc(lit.Elts, func(e ast.Expr) bool {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		id, ok := kv.Key.(*ast.Ident)
		return ok && dedupField(id.Name)
	})
}

// sentID reports whether field of a sent record of type typ is the ID its
// receiver drops a copy by: a field named for a key or an event's or
// message's ID (IdempotencyKey, EventID), or, when the record carries no
// such field (keyed), the record's own ID.
func sentID(typ, field string, keyed bool) bool {
	return match.KeyColumn(field) || !keyed && ownIDField(typ, field)
}

// ownIDField reports a field of a record type that is the record's own
// ID: ID, UUID, or one named for the type (JobID in a Job,
// NotificationID in a Notification); not the ID of another entity it
// refers to (OrderID), nor of the trace or request it belongs to.
func ownIDField(typ, field string) bool {
	fw := match.Words(field)
	if len(fw) == 0 || fw[len(fw)-1] != "id" && fw[len(fw)-1] != "uuid" ||
		slices.ContainsFunc(fw, func(w string) bool { return slices.Contains(traceWords, w) }) {
		return false
	}
	tw := match.Words(typ)
	return !slices.ContainsFunc(fw[:len(fw)-1], func(w string) bool { return !slices.Contains(tw, w) })
}

// sentRecord reports a named struct type with a field that is its own ID
// or a key, and not a queue client's message (those are message's), nor
// named for a request or a trace: the type of a record a relay or a retry
// may send.
func sentRecord(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	name := typeName(t)
	if name == "" || message(t) != notMessage || slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(traceWords, w) }) {
		return false
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range s.Fields() {
		if sentID(name, f.Name(), false) {
			return true
		}
	}
	return false
}
