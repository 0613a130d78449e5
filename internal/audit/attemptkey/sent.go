package attemptkey

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

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
	calls map[*ast.CallExpr]string     // calls whose results are sent (newJob(...)), likewise
	keyed map[types.Object]bool        // variables holding a record with a key field set (v.EventID = ...)
}

// sendsIn finds what body sends.
func (c *checker) sendsIn(body *ast.BlockStmt) *sent {
	info := c.pass.TypesInfo
	s := &sent{lits: map[*ast.CompositeLit]string{}, vars: map[types.Object]string{}, calls: map[*ast.CallExpr]string{}, keyed: map[types.Object]bool{}}
	mark := func(e ast.Node, by string) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CompositeLit:
				if _, ok := s.lits[n]; !ok {
					s.lits[n] = by
				}
			case *ast.CallExpr:
				if _, ok := s.calls[n]; !ok {
					s.calls[n] = by
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
			if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && sendCall(info, fn, n) {
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
			if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok && entryMap(info.TypeOf(ix.X)) {
				if k, ok := match.ConstString(info, ix.Index); ok && dedupField(k) {
					s.keyed[v] = true // values["event_id"] = ...
				}
			}
			if i < len(a.rhs) {
				if lit := recordLit(a.rhs[i]); lit != nil && keyedLit(info, lit) {
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
			before := len(s.vars) + len(s.lits) + len(s.calls)
			for _, r := range a.rhs {
				mark(r, by)
			}
			changed = changed || len(s.vars)+len(s.lits)+len(s.calls) != before
		}
	}
	return s
}

// sendCall reports a call that passes what it is given on to a broker, a
// queue or a peer: one named for it (Publish, Enqueue, SendMessage,
// Produce), kafka-go's WriteMessages, or a durable enqueue named for
// something else (enqueues).
func sendCall(info *types.Info, fn *types.Func, call *ast.CallExpr) bool {
	return sendName(fn.Name()) || fn.Name() == "WriteMessages" || enqueues(info, fn, call)
}

// enqueues reports a call that puts what it is given on a queue a worker
// takes it from, though it is not named for sending: go-redis's XADD of a
// stream entry and LPUSH or RPUSH of a list's (a job marshalled into it),
// and river's Client.Insert, InsertTx, InsertMany and InsertManyTx of a
// job's args.
func enqueues(info *types.Info, fn *types.Func, call *ast.CallExpr) bool {
	if r, ok := match.Redis(info, call); ok && !r.Script {
		return r.Op == match.RedisPush || r.Op == match.RedisXAdd
	}
	return riverInsert(fn)
}

// riverInsert reports river's Client.Insert and its kin, which store a
// job for its workers: github.com/riverqueue/river.
func riverInsert(fn *types.Func) bool {
	return fn.Pkg() != nil && fn.Pkg().Path() == "github.com/riverqueue/river" &&
		strings.HasPrefix(fn.Name(), "Insert") && isNamed(recvType(fn), "github.com/riverqueue/river", "Client")
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
	return match.KeyColumn(name) || msgID(name) ||
		len(w) > 1 && w[len(w)-1] == "key" && !slices.ContainsFunc(w, func(w string) bool { return slices.Contains(routeWords, w) })
}

// keyedLit reports a literal that sets a field its receiver may drop a
// repeat by (IdempotencyKey, EventID, ExecutionKey), or a map literal
// with such an entry ("event_id": ...).
func keyedLit(info *types.Info, lit *ast.CompositeLit) bool {
	return slices.ContainsFunc(lit.Elts, func(e ast.Expr) bool {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		if id, ok := kv.Key.(*ast.Ident); ok {
			return dedupField(id.Name)
		}
		k, ok := match.ConstString(info, kv.Key)
		return ok && dedupField(k)
	})
}

// entryMap reports a map keyed by strings: a record spelled as a map
// (go-redis's XAddArgs Values, a JSON body), whose entries are its
// fields.
func entryMap(t types.Type) bool {
	if t == nil {
		return false
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return false
	}
	b, ok := m.Key().Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// sentID reports whether field of a sent record of type typ is the ID its
// receiver drops a copy by: a field named for a key or an event's or
// message's ID (IdempotencyKey, EventID), or, when the record carries no
// such field (keyed), the record's own ID.
func sentID(typ, field string, keyed bool) bool {
	return match.KeyColumn(field) || !keyed && ownIDField(typ, field)
}

// workWords name what a sent map stands for when its ID is named for it:
// a job, a task, a command.
var workWords = []string{"job", "task", "command", "cmd"}

// entryID reports whether entry k of a sent map (a stream entry's Values,
// a JSON body) is the ID its receiver drops a copy by: one named for a key
// or an event's or message's ID ("event_id", "msg_id",
// "idempotency_key"), or, when the map carries no such entry (keyed),
// its own ID: "id", or one named for the job, task or command the map is
// ("job_id", "task_id"). A map has no type to name its own ID, and an
// entry naming another entity ("order_id") is a reference.
func entryID(k string, keyed bool) bool {
	if match.KeyColumn(k) || msgID(k) {
		return true
	}
	w := match.Words(k)
	return !keyed && (ownIDField("", k) || len(w) == 2 && w[1] == "id" && slices.Contains(workWords, w[0]))
}

// msgID reports a message's ID under its short name (msg_id, MsgID), a
// message_id.
func msgID(name string) bool {
	return slices.Equal(match.Words(name), []string{"msg", "id"})
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
