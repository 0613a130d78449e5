package attemptkey

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// Watermill (github.com/ThreeDotsLabs/watermill) names a message by the
// UUID its publisher gives it (message.NewMessage(uuid, payload)), and a
// consumer drops a copy by that UUID, by an ID in its metadata, or by the
// metadata field a Deduplicator's NewMessageHasherFromMetadataField reads.
const (
	wmPath    = "github.com/ThreeDotsLabs/watermill"
	wmMessage = wmPath + "/message"
	wmRouter  = wmPath + "/message/router/middleware"
)

// wmFresh reports watermill's ID generators, NewUUID, NewShortUUID and
// NewULID: each call makes another.
func wmFresh(info *types.Info, call *ast.CallExpr) (string, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != wmPath {
		return "", false
	}
	switch fn.Name() {
	case "NewUUID", "NewShortUUID", "NewULID":
		return "watermill." + fn.Name(), true
	}
	return "", false
}

// wmSinks returns the keys of watermill messages that body hands over: the
// UUID given to NewMessage, set in a Message literal or assigned
// (msg.UUID = ...), and a metadata entry (msg.Metadata.Set(k, v),
// msg.Metadata[k] = v) named for a key or an event's or message's ID, or
// read by the package's Deduplicator. A message whose metadata carries
// such a key is deduplicated by it: its UUID is then only a name for the
// copy, and no sink.
//
// The UUID is also a new message's own ID, so it counts in a retry or a
// relay only, as an AMQP MessageId does; an event's or message's ID in
// the metadata likewise; an idempotency key or a Deduplicator's field
// counts in every attempt.
func (c *checker) wmSinks(body *ast.BlockStmt) []sink {
	info := c.pass.TypesInfo
	keyed := map[types.Object]bool{} // messages whose metadata carries a key
	var metas []sink
	ast.Inspect(body, func(n ast.Node) bool {
		var recv, key, value ast.Expr
		var at ast.Node
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if fn, isFn := typeutil.Callee(info, n).(*types.Func); !isFn || !ok || fn.Name() != "Set" || !isNamed(recvType(fn), wmMessage, "Metadata") || len(n.Args) != 2 {
				return true
			}
			recv, key, value, at = sel.X, n.Args[0], n.Args[1], n
		case *ast.AssignStmt:
			if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
				return true
			}
			ix, ok := n.Lhs[0].(*ast.IndexExpr)
			if !ok || !isNamed(info.TypeOf(ix.X), wmMessage, "Metadata") {
				return true
			}
			recv, key, value, at = ix.X, ix.Index, n.Rhs[0], n
		default:
			return true
		}
		k, ok := match.ConstString(info, key)
		if !ok {
			return true
		}
		var only []kind
		switch {
		case match.KeyName(k) || c.wmDedupField(k):
		case match.KeyColumn(k):
			only = []kind{retry, relay}
		default:
			return true
		}
		if sel, ok := ast.Unparen(recv).(*ast.SelectorExpr); ok {
			if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && info.Uses[id] != nil {
				keyed[info.Uses[id]] = true
			}
		}
		metas = append(metas, sink{node: at, value: value, what: "the " + k + " metadata of a watermill message", only: only})
		return true
	})
	held := c.wmHeld(body)
	uuid := func(node ast.Node, value ast.Expr, msg ast.Node) sink {
		if obj := held[msg]; obj != nil && keyed[obj] {
			return sink{}
		}
		return sink{node: node, value: value, what: "the UUID of a watermill message", only: []kind{retry, relay}}
	}
	out := metas
	ast.Inspect(body, func(n ast.Node) bool {
		var s sink
		switch n := n.(type) {
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(info, n).(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != wmMessage {
				return true
			}
			switch {
			case fn.Name() == "NewMessage" && len(n.Args) == 2:
				s = uuid(n, n.Args[0], n)
			case fn.Name() == "NewMessageWithContext" && len(n.Args) == 3:
				s = uuid(n, n.Args[1], n)
			}
		case *ast.CompositeLit:
			if !isNamed(info.TypeOf(n), wmMessage, "Message") {
				return true
			}
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "UUID" {
						s = uuid(kv, kv.Value, n)
						s.lit = n
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
				return true
			}
			sel, ok := n.Lhs[0].(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "UUID" || !isNamed(info.TypeOf(sel.X), wmMessage, "Message") {
				return true
			}
			if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && keyed[info.Uses[id]] {
				return true
			}
			s = sink{node: n, value: n.Rhs[0], what: "the UUID of a watermill message", only: []kind{retry, relay}}
		}
		if s.node != nil {
			out = append(out, s)
		}
		return true
	})
	return out
}

// wmHeld maps the messages body makes (a NewMessage call, a Message
// literal) to the variables that hold them: msg := message.NewMessage(...).
func (c *checker) wmHeld(body *ast.BlockStmt) map[ast.Node]types.Object {
	info := c.pass.TypesInfo
	held := map[ast.Node]types.Object{}
	ast.Inspect(body, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || len(a.Lhs) != len(a.Rhs) {
			return true
		}
		for i, l := range a.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || info.ObjectOf(id) == nil {
				continue
			}
			r := ast.Unparen(a.Rhs[i])
			if u, ok := r.(*ast.UnaryExpr); ok {
				r = ast.Unparen(u.X)
			}
			switch r.(type) {
			case *ast.CallExpr, *ast.CompositeLit:
				held[r] = info.ObjectOf(id)
			}
		}
		return true
	})
	return held
}

// wmDedupField reports a metadata field that a Deduplicator of the package
// reads its key from: middleware.NewMessageHasherFromMetadataField(field).
func (c *checker) wmDedupField(field string) bool {
	if c.wmFields == nil {
		c.wmFields = map[string]bool{}
		info := c.pass.TypesInfo
		for _, f := range c.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				fn, ok := typeutil.Callee(info, call).(*types.Func)
				if ok && fn.Pkg() != nil && fn.Pkg().Path() == wmRouter && fn.Name() == "NewMessageHasherFromMetadataField" {
					if k, ok := match.ConstString(info, call.Args[0]); ok {
						c.wmFields[k] = true
					}
				}
				return true
			})
		}
	}
	return c.wmFields[field]
}
