package attemptkey

import (
	"go/ast"
	"go/types"
	"slices"

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
// markPublished), that runs SQL which sets a sent column or deletes the
// row, or that is a function of the package whose body runs such SQL.
func (c *checker) marksSent(body *ast.BlockStmt, v *types.Var) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if !slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return match.UsesVar(info, a, v) }) {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		switch {
		case fn != nil && sentName(fn.Name()):
			found = true
		case marksSQL(info, call):
			found = true
		case fn != nil && c.decls[fn.Origin()] != nil:
			ast.Inspect(c.decls[fn.Origin()].Body, func(m ast.Node) bool {
				if inner, ok := m.(*ast.CallExpr); ok && marksSQL(info, inner) {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
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
// table), or a DELETE from a table of records waiting to be (outbox,
// pending_events). A
// status column is no such mark: an order moved to "shipped" after its
// event went out is a transition, not a relay.
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
		return slices.ContainsFunc(st.Assigned, func(col string) bool {
			return slices.ContainsFunc(match.Words(col), func(w string) bool {
				return slices.Contains(sentWords, w) || queue && w == "processed"
			})
		})
	}
	return false
}

// queueWords name a table of records waiting to be passed on, whose row
// is deleted once it has been.
var queueWords = []string{"outbox", "pending", "unsent", "queue", "queued"}
