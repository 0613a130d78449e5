package attemptkey

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// sentWords name the mark an outbox relay leaves on a record it has
// passed on: published_at, MarkSent, SetDelivered. "Processed" is the
// mark of an inbox (a consumer's MarkProcessed(ctx, msg.ID)) too, and
// counts only on an outbox table.
var sentWords = []string{"sent", "published", "publish", "delivered", "dispatched", "relayed", "forwarded"}

// relayOf returns the record a function relays: a parameter that is a
// stored record with an identity of its own (a struct with an ID field:
// an outbox row, an event; not a message a queue delivered, such as an
// SQS message) which the function marks as passed on after
// sending it (markSent(ctx, row.ID), UPDATE outbox SET published_at =
// now() WHERE id = $1, repo.MarkPublished(ctx, evt.ID)). A record not
// marked (a publish that did not go through, a crash before the mark) is
// picked up and sent again by the next pass, so each call is one attempt
// of sending it, and a message ID made in the call differs on each.
//
// scopeAt asks for every position it places, so the answer is kept.
func (c *checker) relayOf(decl *ast.FuncDecl) *types.Var {
	if v, ok := c.relays[decl]; ok {
		return v
	}
	var relayed *types.Var
	if fn, ok := c.pass.TypesInfo.Defs[decl.Name].(*types.Func); ok {
		for p := range fn.Signature().Params().Variables() {
			if storedRecord(p.Type()) && message(p.Type()) != receivedMessage && c.marksSent(decl.Body, p) {
				relayed = p
				break
			}
		}
	}
	c.relays[decl] = relayed
	return relayed
}

// relayLoop returns the record a range statement relays: its value
// variable, a stored record the loop body marks as passed on.
func (c *checker) relayLoop(n *ast.RangeStmt) *types.Var {
	id, ok := n.Value.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := c.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || !storedRecord(v.Type()) || message(v.Type()) == receivedMessage || !c.marksSent(n.Body, v) {
		return nil
	}
	return v
}

// storedRecord reports a struct, or a pointer to one, with a field named
// for an ID: a row or event that keeps its identity between passes.
func storedRecord(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return false
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range s.Fields() {
		if idName(f.Name()) {
			return true
		}
	}
	return false
}

// marksSent reports whether body marks the record v as passed on: a call
// given v or one of its fields that is named for the mark (MarkSent,
// markPublished) or sets its status to a sent one
// (UpdateStatus(ctx, e.ID, StatusPublished)), that writes a sent mark
// (marksWrite: SQL, or a gorm update of v's row, db.Model(&e).Update(...)),
// or that is a function of the package whose body writes one.
func (c *checker) marksSent(body *ast.BlockStmt, v *types.Var) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		orm, isORM := match.ORM(info, call)
		chained := isORM && orm.Op == match.ORMUpdate && match.UsesVar(info, call.Fun, v) // db.Model(&e).Update(...)
		if !chained && !slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return match.UsesVar(info, a, v) }) {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		switch {
		case fn != nil && sentName(fn.Name()):
			found = true
		case fn != nil && setsSentStatus(info, fn, call):
			found = true
		case marksWrite(info, call, body, v):
			found = true
		case fn != nil && c.decls[fn.Origin()] != nil:
			decl := c.decls[fn.Origin()]
			ast.Inspect(decl.Body, func(m ast.Node) bool {
				if inner, ok := m.(*ast.CallExpr); ok && marksWrite(info, inner, decl.Body, nil) {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// setsSentStatus reports a call named for setting something
// (UpdateStatus, SetState, MarkAs) that is given a sent status as a
// constant: repo.UpdateStatus(ctx, e.ID, StatusPublished).
func setsSentStatus(info *types.Info, fn *types.Func, call *ast.CallExpr) bool {
	ws := match.Words(fn.Name())
	if len(ws) == 0 || !slices.Contains([]string{"update", "set", "mark", "change"}, ws[0]) {
		return false
	}
	return slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return sentValue(info, a) })
}

// marksWrite reports a write that marks rows passed on: marksSQL's SQL,
// or a gorm update that sets a sent column (Update("published", true),
// Updates(map[string]any{"sent_at": now})) or a status column to a sent
// status. A gorm Save of v writes the fields body sets on v before it
// (e.PublishedAt = &now; db.Save(&e)); v is nil where no record is
// known.
func marksWrite(info *types.Info, call *ast.CallExpr, body *ast.BlockStmt, v *types.Var) bool {
	if marksSQL(info, call) {
		return true
	}
	orm, ok := match.ORM(info, call)
	if !ok || orm.Op != match.ORMUpdate {
		return false
	}
	queue := slices.ContainsFunc(match.Words(orm.Model), func(w string) bool { return slices.Contains(queueWords, w) })
	cols, values := match.ORMAssigned(info, call)
	if orm.Method == "Save" {
		if v == nil || len(call.Args) == 0 || !match.UsesVar(info, call.Args[0], v) {
			return false
		}
		cols, values = fieldsSet(info, body, v)
	}
	for i, col := range cols {
		if sentColumn(col, queue) || match.StatusColumn(col) && sentValue(info, values[i]) {
			return true
		}
	}
	return false
}

// fieldsSet returns the fields of v that body assigns (e.PublishedAt =
// &now), as snake_case columns, with the values assigned.
func fieldsSet(info *types.Info, body *ast.BlockStmt, v *types.Var) ([]string, []ast.Expr) {
	var cols []string
	var values []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || len(a.Lhs) != len(a.Rhs) {
			return true
		}
		for i, l := range a.Lhs {
			if sel, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && match.UsesVar(info, sel.X, v) {
				cols, values = append(cols, strings.Join(match.Words(sel.Sel.Name), "_")), append(values, a.Rhs[i])
			}
		}
		return true
	})
	return cols, values
}

// sentName reports a function named for marking a record passed on:
// MarkSent, markAsPublished, SetDelivered; not Publish or Send, which do
// the passing on.
func sentName(name string) bool {
	ws := match.Words(name)
	if len(ws) < 2 {
		return false
	}
	return slices.ContainsFunc(ws[1:], func(w string) bool { return slices.Contains(sentWords, w) }) &&
		(ws[0] == "mark" || ws[0] == "set" || ws[0] == "update" || ws[0] == "flag")
}

// marksSQL reports SQL that marks rows passed on: an UPDATE that sets a
// column named for it (sent_at, published; processed_at on an outbox
// table) or a status column to a sent status (status = 'SENT', or a
// placeholder given StatusPublished), or a DELETE from a table of
// records waiting to be (outbox, pending_events). Another status is no
// such mark: an order moved to "shipped" after its event went out is a
// transition, not a relay.
func marksSQL(info *types.Info, call *ast.CallExpr) bool {
	q, ok := match.SQL(info, call)
	if !ok {
		return false
	}
	st := q.Statement()
	queue := slices.ContainsFunc(match.Words(st.Table), func(w string) bool { return slices.Contains(queueWords, w) })
	switch st.Verb {
	case match.Delete:
		return queue
	case match.Update:
		for col, val := range st.SetLiterals {
			if match.StatusColumn(col) && sentStatus(val) {
				return true // SET status = 'SENT'
			}
		}
		status := slices.ContainsFunc(st.Assigned, match.StatusColumn)
		return slices.ContainsFunc(st.Assigned, func(col string) bool { return sentColumn(col, queue) }) ||
			status && slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return sentValue(info, a) }) // SET status = $2, StatusPublished
	}
	return false
}

// sentColumn reports a column named for a sent mark (sent_at, published,
// delivered), or processed_at on a table of queued records.
func sentColumn(col string, queue bool) bool {
	return slices.ContainsFunc(match.Words(col), func(w string) bool {
		return slices.Contains(sentWords, w) || queue && w == "processed"
	})
}

// sentStates are the statuses of a record passed on.
var sentStates = []string{"sent", "published", "delivered", "dispatched", "relayed", "forwarded"}

// notWords deny or qualify a status: NOT_SENT, PUBLISH_FAILED,
// PENDING_DELIVERED.
var notWords = []string{"not", "no", "failed", "fail", "error", "pending", "retry", "un"}

// sentStatus reports a status value that says a record was passed on:
// 'SENT', "published"; not a sentence, nor a failure or a pending state.
func sentStatus(s string) bool {
	ws := match.Words(s)
	return len(ws) > 0 && len(ws) <= 3 &&
		slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(sentStates, w) }) &&
		!slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(notWords, w) })
}

// sentValue reports a constant string that is a sent status.
func sentValue(info *types.Info, e ast.Expr) bool {
	s, ok := match.ConstString(info, e)
	return ok && sentStatus(s)
}

// queueWords name a table of records waiting to be passed on, whose row
// is deleted once it has been.
var queueWords = []string{"outbox", "pending", "unsent", "queue", "queued"}
