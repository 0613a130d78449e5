package attemptkey

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"net/http"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
	"github.com/idemkit/idemkit/internal/rules"
)

// sinks returns the places in body where a key is handed over.
func (c *checker) sinks(body *ast.BlockStmt) []sink {
	info := c.pass.TypesInfo
	var out []sink
	text := c.texts(body)
	litOf := c.literals(body)
	var created map[types.Object]*types.Func
	var sends *sent
	sentBy := func(lit *ast.CompositeLit, v types.Object) string {
		if sends == nil {
			sends = c.sendsIn(body)
		}
		if lit != nil {
			return sends.lits[lit]
		}
		return sends.vars[v]
	}
	keyedVar := func(v types.Object) bool { return sends != nil && sends.keyed[v] }
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			out = append(out, c.callSinks(n, text, litOf)...)
		case *ast.CompositeLit:
			t := info.TypeOf(n)
			name := typeName(t)
			msg := message(t) != notMessage
			record := match.DedupName(name)
			by, keyed := "", keyedLit(info, n)
			entries := entryMap(t)
			if sentRecord(t) || entries {
				by = sentBy(n, nil)
			}
			if hs, ok := c.brokerHeader(n); ok {
				out = append(out, hs)
			}
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					id, ok := kv.Key.(*ast.Ident)
					switch {
					case !ok:
						k, ok := match.ConstString(info, kv.Key)
						switch {
						case ok && match.KeyName(k):
							// a request body's "idempotency_key": ...
							out = append(out, sink{node: kv, value: kv.Value, what: "the " + k + " entry", lit: n})
						case ok && entries && by != "" && entryID(k, keyed):
							// a stream entry's "event_id" (XADD's Values), a map's
							// own "id": as a sent record's ID
							out = append(out, sink{node: kv, value: kv.Value, what: fmt.Sprintf("the %q entry of a map sent by %s", k, by), only: []kind{retry, relay}, lit: n})
						}
					case amqpMessageID(t, id.Name):
						// the ID an AMQP consumer (or the broker's deduplication
						// plugin) drops a copy by; also a new message's own ID
						out = append(out, sink{node: kv, value: kv.Value, what: "the AMQP MessageId", only: []kind{retry, relay}, lit: n})
					case keyField(info.Uses[id]):
						out = append(out, sink{node: kv, value: kv.Value, what: id.Name, lit: n})
					case workflowStartID(t, id.Name):
						out = append(out, sink{node: kv, value: kv.Value, what: "the workflow ID of a " + name, lit: n})
					case record && (match.KeyColumn(id.Name) || idName(id.Name) || slices.Contains(match.Words(id.Name), "key")):
						// a dedup record's key: ProcessedMessage{MessageID: ...}
						out = append(out, sink{node: kv, value: kv.Value, what: "the " + id.Name + " of a " + name, lit: n})
					case msg && messageIDName(id.Name) && (match.KeyColumn(id.Name) || !keyed):
						// a message's ID, unless it carries a key besides
						// (an Envelope's EventID) that its receivers go by
						out = append(out, sink{node: kv, value: kv.Value, what: "the " + id.Name + " of a " + name, only: []kind{retry, delivery, relay}, msg: t, lit: n})
					case by != "" && sentID(name, id.Name, keyed):
						// a Job, a Command sent with a new ID of its own: new on
						// each turn of a retry or pass of a relay
						out = append(out, sink{node: kv, value: kv.Value, what: "the " + id.Name + " of a " + name + " sent by " + by, only: []kind{retry, relay}, lit: n})
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				break
			}
			for i, l := range n.Lhs {
				switch l := l.(type) {
				case *ast.SelectorExpr:
					if created == nil {
						created = c.createdVars(body)
					}
					if keyField(info.Uses[l.Sel]) {
						out = append(out, sink{node: n, value: n.Rhs[i], what: l.Sel.Name})
					} else if what, ok := createdField(info, created, l); ok {
						// req.Task.Name = ...; CreateTask(ctx, req)
						out = append(out, sink{node: n, value: n.Rhs[i], what: what, only: []kind{retry}})
					} else if t := info.TypeOf(l.X); workflowStartID(t, l.Sel.Name) {
						out = append(out, sink{node: n, value: n.Rhs[i], what: "the workflow ID of a " + typeName(t)})
					} else if t := info.TypeOf(l.X); message(t) != notMessage && messageIDName(l.Sel.Name) {
						// env.ID = uuid.NewString(): as the literal's field
						out = append(out, sink{node: n, value: n.Rhs[i], what: "the " + l.Sel.Name + " of a " + typeName(t), only: []kind{retry, delivery, relay}, msg: t})
					} else if v := effect.RootVar(info, l.X); sentRecord(t) && v != nil {
						if by := sentBy(nil, v); by != "" && sentID(typeName(t), l.Sel.Name, keyedVar(v)) { // n.NotificationID = ulid.Make().String(); send(n)
							out = append(out, sink{node: n, value: n.Rhs[i], what: "the " + l.Sel.Name + " of a " + typeName(t) + " sent by " + by, only: []kind{retry, relay}})
						}
					}
				case *ast.IndexExpr:
					if name, ok := keyHeader(info, l.X, l.Index); ok { // req.Header["Idempotency-Key"] = []string{key}
						v := n.Rhs[i]
						if lit, ok := v.(*ast.CompositeLit); ok && len(lit.Elts) == 1 {
							v = lit.Elts[0]
						}
						out = append(out, sink{node: n, value: v, what: "the " + name + " header"})
					} else if _, ok := info.TypeOf(l.X).Underlying().(*types.Map); ok && match.DedupName(text(l.X)) {
						out = append(out, sink{node: n, value: l.Index, what: "the key of " + types.ExprString(l.X)}) // seen[key] = true
					} else if k, ok := match.ConstString(info, l.Index); ok && entryMap(info.TypeOf(l.X)) && !isNamed(info.TypeOf(l.X), wmMessage, "Metadata") {
						// values["event_id"] = uuid.NewString(); rdb.XAdd(ctx, &redis.XAddArgs{Values: values})
						if v := effect.RootVar(info, l.X); v != nil {
							if by := sentBy(nil, v); by != "" && entryID(k, keyedVar(v)) {
								out = append(out, sink{node: n, value: n.Rhs[i], what: fmt.Sprintf("the %q entry of a map sent by %s", k, by), only: []kind{retry, relay}})
							}
						}
					}
				}
			}
		}
		return true
	})
	return append(out, c.wmSinks(body)...)
}

// keyField reports a struct field named for an idempotency or dedup key:
// stripe's IdempotencyKey, SQS's MessageDeduplicationId, and the AWS SDK's
// ClientToken and ClientRequestToken, its idempotency tokens.
func keyField(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.IsField() && (match.KeyName(v.Name()) || v.Name() == "ClientToken" || v.Name() == "ClientRequestToken")
}

// texts returns a function that spells a key expression together with
// what its local variables were assigned (key := "dedup:" + id), so that a
// key's prefix names its store wherever the key was built: in a local
// variable, a field its constructor sets, or a method returning the key.
func (c *checker) texts(body *ast.BlockStmt) func(ast.Expr) string {
	info := c.pass.TypesInfo
	var assigned map[types.Object][]string
	return func(e ast.Expr) string {
		if assigned == nil {
			assigned = map[types.Object][]string{}
			ast.Inspect(body, func(n ast.Node) bool {
				if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == len(a.Rhs) {
					for i, l := range a.Lhs {
						if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) != nil {
							assigned[info.ObjectOf(id)] = append(assigned[info.ObjectOf(id)], types.ExprString(a.Rhs[i]))
						}
					}
				}
				return true
			})
		}
		parts := []string{types.ExprString(e)}
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				parts = append(parts, assigned[info.Uses[n]]...)
				parts = append(parts, c.held[info.Uses[n]]...)
			case *ast.CallExpr: // d.key(id): what key returns
				if fn := typeutil.StaticCallee(info, n); fn != nil && c.decls[fn.Origin()] != nil {
					ast.Inspect(c.decls[fn.Origin()].Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) > 0 {
							parts = append(parts, types.ExprString(r.Results[0]))
							ast.Inspect(r.Results[0], func(m ast.Node) bool {
								if id, ok := m.(*ast.Ident); ok {
									parts = append(parts, c.held[info.Uses[id]]...)
								}
								return true
							})
						}
						return true
					})
				}
			}
			return true
		}
		ast.Inspect(e, visit)
		return strings.Join(parts, " ")
	}
}

// callSinks returns the arguments of call that are handed over as keys;
// text spells a key with what its variables hold, and litOf finds the
// literal a variable holds.
func (c *checker) callSinks(call *ast.CallExpr, text func(ast.Expr) string, litOf func(ast.Expr) *ast.CompositeLit) []sink {
	info := c.pass.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() != nil && fn.Pkg().Path() == wmMessage {
		return nil // watermill's messages: wmSinks
	}
	if s, ok := headerSet(info, fn, call); ok {
		return []sink{s}
	}
	if s, ok := syncMapKey(info, fn, call, text); ok {
		return []sink{s}
	}
	if s := metadataPairs(info, fn, call); s != nil {
		return s
	}
	if natsMsgID(fn) && len(call.Args) == 1 {
		return []sink{{node: call, value: call.Args[0], what: "the NATS message ID (" + fn.Name() + ")"}}
	}
	if asynqTaskID(fn) && len(call.Args) == 1 {
		// asynq refuses a task whose ID it holds: its dedup key, and a new
		// task's own ID too
		return []sink{{node: call, value: call.Args[0], what: "the asynq task ID (TaskID)", only: []kind{retry, relay}}}
	}
	if r, ok := match.Redis(info, call); ok && r.Op != match.RedisDel {
		switch {
		case match.DedupName(text(r.Key)):
			return []sink{{node: call, value: r.Key, what: "the Redis key of " + r.Method}}
		case r.Op == match.RedisSetNX:
			// A claim on any key: a fresh key per attempt may be a search
			// for a free one (a short code), but a key made once per
			// process is never right.
			return []sink{{node: call, value: r.Key, what: "the Redis key of " + r.Method, only: []kind{startup}}}
		}
	}
	if s, ok := insertKey(info, call); ok {
		return s
	}
	out := createRequest(fn, call, litOf)
	sig := fn.Signature()
	claim := c.dirs.Of(fn)&directive.Claim != 0
	summary := map[int]reach{}
	// A method of an interface, whatever implements it here, or a
	// function of a package without facts: its names tell too.
	unseen := fn.Signature().Recv() != nil && types.IsInterface(fn.Signature().Recv().Type())
	add := func(i int, r reach) {
		if _, ok := summary[i]; !ok {
			summary[i] = r
		}
	}
	for _, impl := range c.callees(call) {
		if c.decls[impl] != nil {
			for i, r := range c.paramSinks(impl) {
				add(i, r)
			}
		} else if k := c.fact(impl); k != nil {
			for _, p := range k.Params {
				add(p.Index, p.Reach)
			}
		} else {
			unseen = true
		}
	}
	for i, arg := range call.Args {
		if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
			break
		}
		p := sig.Params().At(i).Name()
		named := p
		if named == "" { // an interface method's unnamed parameter: http.RoundTripper's
			named = "request"
			if t := sig.Params().At(i).Type(); !isNamed(t, "net/http", "Request") {
				named = types.TypeString(t, types.RelativeTo(fn.Pkg()))
			}
		}
		switch {
		case match.KeyName(fn.Name()):
			out = append(out, sink{node: call, value: arg, what: fn.Name()})
		case match.KeyName(p):
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name())})
		case claim && p == "key":
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the key of %s, an //idemkit:claim", fn.Name())})
		case summary[i].What != "":
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("%s, whose %s parameter reaches %s", fn.Name(), named, summary[i].What), only: summary[i].Only})
		case targetHeaderParam(fn, p):
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name())})
		case workflowStartParam(fn, p):
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name())})
		case createName(fn, p):
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name()), only: []kind{retry}})
		case unseen && match.DedupName(fn.Name()) && (idName(p) || slices.Contains(match.Words(p), "key")):
			// inbox.MarkProcessed(ctx, id), dedup.Seen(ctx, key)
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name())})
		case unseen && match.KeyColumn(p):
			// publisher.Publish(ctx, eventID, body): the ID a receiver
			// deduplicates by, and a new event's own ID when it is new
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name()), only: []kind{retry, delivery, relay}})
		case unseen && sendName(fn.Name()) && messageIDName(p):
			// emitter.Emit(ctx, msgID, topic, body): the ID of what is
			// sent, new on each pass of a relay or turn of a retry
			out = append(out, sink{node: call, value: arg, what: fmt.Sprintf("the %s parameter of %s", p, fn.Name()), only: []kind{retry, relay}})
		}
	}
	return out
}

// sendWords begin the name of a call that passes a message on: Publish,
// SendEvent, Emit.
var sendWords = []string{"publish", "send", "emit", "produce", "dispatch", "enqueue", "push", "deliver", "forward", "relay"}

// sendName reports a function named for passing a message on.
func sendName(name string) bool {
	w := match.Words(name)
	return len(w) > 0 && slices.Contains(sendWords, w[0])
}

// createWords begin the name of a call that creates a resource under a
// name or ID its caller chooses: asked again under the same one, the
// service refuses or returns the first.
var createWords = []string{"create", "provision", "insert", "register", "put"}

// workflowStartID reports the field of a workflow start's options or
// request that names the workflow (Temporal's and Cadence's
// StartWorkflowOptions' ID, a StartWorkflowExecutionRequest's
// WorkflowId, Step Functions' StartExecutionInput's Name): the engine
// refuses a second run under a name that is running, so the name is the
// start's idempotency key.
func workflowStartID(t types.Type, field string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	w := match.Words(n.Obj().Name())
	if !slices.Contains(w, "start") {
		return false
	}
	fw := match.Words(field)
	switch {
	case slices.Contains(w, "workflow"):
		return field == "ID" || len(fw) == 2 && fw[0] == "workflow" && fw[1] == "id"
	case slices.Contains(w, "execution"):
		return field == "Name" // Step Functions' StartExecutionInput
	}
	return false
}

// workflowStartParam reports the workflow ID parameter of a method that
// starts a workflow (SignalWithStartWorkflow(ctx, workflowID, ...)).
func workflowStartParam(fn *types.Func, p string) bool {
	w, pw := match.Words(fn.Name()), match.Words(p)
	return slices.Contains(w, "start") && slices.Contains(w, "workflow") && len(pw) == 2 && pw[0] == "workflow" && pw[1] == "id"
}

// createName reports a parameter p of fn that names what fn creates: the
// name parameter of createDatabase, the id of insertOrder.
func createName(fn *types.Func, p string) bool {
	w := match.Words(fn.Name())
	pw := match.Words(p)
	return len(w) > 0 && slices.Contains(createWords, w[0]) && len(pw) > 0 && (pw[len(pw)-1] == "name" || pw[len(pw)-1] == "id")
}

// syncMapKey reports the key of a sync.Map's Store, LoadOrStore or Swap on
// a map named for what it records (seen, processed).
func syncMapKey(info *types.Info, fn *types.Func, call *ast.CallExpr, text func(ast.Expr) string) (sink, bool) {
	if !isNamed(recvType(fn), "sync", "Map") || len(call.Args) == 0 {
		return sink{}, false
	}
	switch fn.Name() {
	case "Store", "LoadOrStore", "Swap":
	default:
		return sink{}, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !match.DedupName(text(sel.X)) {
		return sink{}, false
	}
	return sink{node: call, value: call.Args[0], what: "the key of " + types.ExprString(sel.X) + "." + fn.Name()}, true
}

// typeName names a named type, or what a pointer points to, without its
// package: ProcessedEvent; "" for another type.
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// createRequest returns the name or ID fields of a request literal handed
// to a create (CreateDatabase(ctx, &CreateDatabaseInput{Name: name})),
// which count in a retry only, as createName's parameters do, and those of
// the thing created when the request holds it, in a literal or a variable
// that holds one (CreateTask(ctx, &CreateTaskRequest{Task: &Task{Name:
// name}}): Cloud Tasks refuses a second task under a name it has seen).
func createRequest(fn *types.Func, call *ast.CallExpr, litOf func(ast.Expr) *ast.CompositeLit) []sink {
	w := match.Words(fn.Name())
	if len(w) == 0 || !slices.Contains(createWords, w[0]) {
		return nil
	}
	var out []sink
	for _, arg := range call.Args {
		lit := litOf(arg)
		if lit == nil {
			continue
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			id, ok := kv.Key.(*ast.Ident)
			if !ok {
				continue
			}
			if createName(fn, id.Name) {
				out = append(out, sink{node: kv, value: kv.Value, what: fmt.Sprintf("the %s of the request to %s", id.Name, fn.Name()), only: []kind{retry}})
				continue
			}
			inner := litOf(kv.Value)
			if inner == nil || !slices.Equal(match.Words(id.Name), w[1:]) {
				continue // a field named for what is created: CreateTask's Task
			}
			for _, elt := range inner.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if f, ok := kv.Key.(*ast.Ident); ok && (f.Name == "Name" || f.Name == "ID" || f.Name == "Id") {
						out = append(out, sink{node: kv, value: kv.Value, what: fmt.Sprintf("the %s of the %s of the request to %s", f.Name, id.Name, fn.Name()), only: []kind{retry}})
					}
				}
			}
		}
	}
	return out
}

// createdVars returns the local variables body hands to a create as its
// request (req, or &req), with the create.
func (c *checker) createdVars(body *ast.BlockStmt) map[types.Object]*types.Func {
	info := c.pass.TypesInfo
	out := map[types.Object]*types.Func{}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok {
			return true
		}
		if w := match.Words(fn.Name()); len(w) == 0 || !slices.Contains(createWords, w[0]) {
			return true
		}
		for _, arg := range call.Args {
			arg = ast.Unparen(arg)
			if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
				arg = ast.Unparen(u.X)
			}
			if id, ok := arg.(*ast.Ident); ok && info.Uses[id] != nil {
				out[info.Uses[id]] = fn
			}
		}
		return true
	})
	return out
}

// createdField reports a field set on a request a create is handed, that
// names what it creates, as createRequest's fields do: req.Name = name,
// or the Name or ID of the thing the request holds (req.Task.Name).
func createdField(info *types.Info, created map[types.Object]*types.Func, l *ast.SelectorExpr) (string, bool) {
	if id, ok := ast.Unparen(l.X).(*ast.Ident); ok {
		if fn := created[info.Uses[id]]; fn != nil && createName(fn, l.Sel.Name) {
			return fmt.Sprintf("the %s of the request to %s", l.Sel.Name, fn.Name()), true
		}
		return "", false
	}
	inner, ok := ast.Unparen(l.X).(*ast.SelectorExpr)
	if !ok || l.Sel.Name != "Name" && l.Sel.Name != "ID" && l.Sel.Name != "Id" {
		return "", false
	}
	id, ok := ast.Unparen(inner.X).(*ast.Ident)
	if !ok {
		return "", false
	}
	fn := created[info.Uses[id]]
	if fn == nil || !slices.Equal(match.Words(inner.Sel.Name), match.Words(fn.Name())[1:]) {
		return "", false
	}
	return fmt.Sprintf("the %s of the %s of the request to %s", l.Sel.Name, inner.Sel.Name, fn.Name()), true
}

// literals returns a function that finds the composite literal an
// expression is, takes the address of, or names in a local variable that
// is only ever set to that one literal in body.
func (c *checker) literals(body *ast.BlockStmt) func(ast.Expr) *ast.CompositeLit {
	info := c.pass.TypesInfo
	var held map[types.Object][]ast.Expr
	var lit func(e ast.Expr, depth int) *ast.CompositeLit
	lit = func(e ast.Expr, depth int) *ast.CompositeLit {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		switch e := e.(type) {
		case *ast.CompositeLit:
			return e
		case *ast.Ident:
			if held == nil {
				held = map[types.Object][]ast.Expr{}
				ast.Inspect(body, func(n ast.Node) bool {
					if a, ok := n.(*ast.AssignStmt); ok {
						for i, l := range a.Lhs {
							if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) != nil {
								var r ast.Expr
								if len(a.Lhs) == len(a.Rhs) {
									r = a.Rhs[i]
								}
								held[info.ObjectOf(id)] = append(held[info.ObjectOf(id)], r)
							}
						}
					}
					return true
				})
			}
			if rhs := held[info.Uses[e]]; len(rhs) == 1 && rhs[0] != nil && depth < 4 {
				return lit(rhs[0], depth+1)
			}
		}
		return nil
	}
	return func(e ast.Expr) *ast.CompositeLit { return lit(e, 0) }
}

// natsMsgID reports nats.MsgId and jetstream.WithMsgID, the publish
// options that set the Nats-Msg-Id JetStream deduplicates by.
func natsMsgID(fn *types.Func) bool {
	if fn.Pkg() == nil || !strings.HasPrefix(fn.Pkg().Path(), "github.com/nats-io/nats.go") {
		return false
	}
	return fn.Name() == "MsgId" || fn.Name() == "WithMsgID"
}

// asynqTaskID reports asynq.TaskID, the option naming a task, by which
// asynq refuses a second one (github.com/hibiken/asynq).
func asynqTaskID(fn *types.Func) bool {
	return fn.Pkg() != nil && fn.Pkg().Path() == "github.com/hibiken/asynq" && fn.Name() == "TaskID"
}

// headerSet reports Set or Add of an Idempotency-Key (or another
// key-named) header, of an ID a receiver deduplicates by (Webhook-Id,
// X-Event-Id, X-Delivery-Id), or of Nats-Msg-Id, on an outgoing message: an
// *http.Request's or a *nats.Msg's Header. A response's header echoing a
// key is no sink, nor is a request or trace ID, which is made per attempt
// by design.
func headerSet(info *types.Info, fn *types.Func, call *ast.CallExpr) (sink, bool) {
	if fn.Name() == "SetHeader" && len(call.Args) == 2 { // a request builder's (resty)
		if h, ok := match.ConstString(info, call.Args[0]); ok && keyHeaderName(h) {
			return sink{node: call, value: call.Args[1], what: "the " + http.CanonicalHeaderKey(h) + " header"}, true
		}
	}
	if fn.Name() != "Set" && fn.Name() != "Add" || len(call.Args) != 2 {
		return sink{}, false
	}
	recv, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return sink{}, false
	}
	name, ok := keyHeader(info, recv.X, call.Args[0])
	if !ok {
		return sink{}, false
	}
	return sink{node: call, value: call.Args[1], what: "the " + name + " header"}, true
}

// keyHeader reports whether header.name is a key header of an outgoing
// HTTP request or NATS message, and returns its canonical name.
func keyHeader(info *types.Info, header, name ast.Expr) (string, bool) {
	h, ok := match.ConstString(info, name)
	if !ok || !keyHeaderName(h) {
		return "", false
	}
	if id, ok := ast.Unparen(header).(*ast.Ident); ok && isNamed(info.TypeOf(id), "net/http", "Header") {
		// hdr := http.Header{}; hdr.Set(...): a header built to be sent
		return http.CanonicalHeaderKey(h), true
	}
	sel, ok := ast.Unparen(header).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Header" || !outgoing(info.TypeOf(sel.X)) {
		return "", false
	}
	return http.CanonicalHeaderKey(h), true
}

// keyHeaderName reports a header a receiver deduplicates by: an
// Idempotency-Key, an event's, message's or delivery's ID, or the header a
// downstream target of the rules catalogue takes its key in (Nats-Msg-Id,
// PayPal-Request-Id).
func keyHeaderName(h string) bool {
	return match.KeyColumn(h) || slices.ContainsFunc(targetHeaders(), func(t string) bool { return strings.EqualFold(h, t) })
}

// targetHeaderParam reports a parameter that a function's name says it
// sends as a catalogue target's key header: plutov/paypal's
// CaptureAuthorizationWithPaypalRequestId(ctx, id, req, requestID), whose
// name holds PayPal-Request-Id's words and whose parameter is named for
// the header's last words. A library's body is not read, so its name is
// what tells.
func targetHeaderParam(fn *types.Func, p string) bool {
	name, pw := strings.ToLower(fn.Name()), match.Words(p)
	for _, h := range targetHeaders() {
		hw := strings.Split(strings.ToLower(h), "-") // PayPal-Request-Id: [paypal request id], not Words' [pay pal ...]
		if len(hw) < 2 || len(pw) < 2 || len(pw) > len(hw) || !slices.Equal(pw, hw[len(hw)-len(pw):]) {
			continue
		}
		if strings.Contains(name, strings.Join(hw, "")) {
			return true
		}
	}
	return false
}

// targetHeaders are the headers the catalogue's targets deduplicate by.
var targetHeaders = sync.OnceValue(func() []string { return keyHeaders(rules.Default().Targets) })

// keyHeaders returns the headers targets deduplicate by, but for a bare
// request, correlation or trace ID (X-Request-Id): other receivers, and
// tracing, make one per attempt by design, so only a vendor's own name
// (PayPal-Request-Id) says which API dedupes by it.
func keyHeaders(targets []rules.Target) []string {
	var out []string
	for _, t := range targets {
		if t.Dedup != rules.DedupKey || t.Via.Kind != "header" {
			continue
		}
		w := match.Words(t.Via.Name)
		if len(w) > 0 && w[0] == "x" {
			w = w[1:]
		}
		if len(w) == 2 && (w[0] == "request" || w[0] == "correlation" || w[0] == "trace") && w[1] == "id" {
			continue
		}
		out = append(out, t.Via.Name)
	}
	return out
}

// metadataPairs returns the values of a gRPC metadata.Pairs or
// AppendToOutgoingContext whose keys name an idempotency key.
func metadataPairs(info *types.Info, fn *types.Func, call *ast.CallExpr) []sink {
	if fn.Pkg() == nil || fn.Pkg().Path() != "google.golang.org/grpc/metadata" || fn.Name() != "Pairs" && fn.Name() != "AppendToOutgoingContext" {
		return nil
	}
	args := call.Args
	if fn.Name() == "AppendToOutgoingContext" && len(args) > 0 {
		args = args[1:]
	}
	var out []sink
	for i := 0; i+1 < len(args); i += 2 {
		if h, ok := match.ConstString(info, args[i]); ok && keyHeaderName(h) {
			out = append(out, sink{node: call, value: args[i+1], what: "the " + h + " metadata"})
		}
	}
	return out
}

// outgoing reports *http.Request and *nats.Msg, whose Header travels with
// what is sent.
func outgoing(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
	case "net/http.Request", "github.com/nats-io/nats.go.Msg":
		return true
	}
	return false
}

// insertKey returns the key arguments of an INSERT into a dedup table
// (processed_messages, idempotency_keys) or of a key column (event_id,
// dedup_key): the first column of a dedup table, and every key column,
// matched to the arguments by position.
func insertKey(info *types.Info, call *ast.CallExpr) ([]sink, bool) {
	q, ok := match.SQL(info, call)
	if !ok {
		return nil, false
	}
	st := q.Statement()
	if st.Verb != match.Insert {
		return nil, false
	}
	var args []ast.Expr
	for i, a := range call.Args {
		if a == q.Query {
			args = call.Args[i+1:]
		}
	}
	var out []sink
	for i, col := range st.Columns {
		if i < len(args) && (match.KeyColumn(col) || i == 0 && match.DedupName(st.Table)) {
			out = append(out, sink{node: call, value: args[i], what: fmt.Sprintf("the %s column of an INSERT into %s", col, st.Table)})
		}
	}
	return out, len(out) > 0
}

// amqpMessageID reports the MessageId field of an AMQP 0-9-1 Publishing
// (rabbitmq/amqp091-go, streadway/amqp).
func amqpMessageID(t types.Type, field string) bool {
	return field == "MessageId" && (isNamed(t, "github.com/rabbitmq/amqp091-go", "Publishing") || isNamed(t, "github.com/streadway/amqp", "Publishing"))
}

// kafkaHeaders are the header types of the Kafka clients: a key and a
// value, as segmentio/kafka-go's protocol.Header, confluent-kafka-go's
// Header and sarama's RecordHeader spell them.
var kafkaHeaders = [][2]string{
	{"github.com/segmentio/kafka-go/protocol", "Header"},
	{"github.com/confluentinc/confluent-kafka-go/kafka", "Header"},
	{"github.com/confluentinc/confluent-kafka-go/v2/kafka", "Header"},
	{"github.com/IBM/sarama", "RecordHeader"},
	{"github.com/Shopify/sarama", "RecordHeader"},
}

// brokerHeader returns the value of a Kafka header literal whose key names
// an ID the consumers deduplicate by (message-id, event_id,
// Idempotency-Key): kafka.Header{Key: "event-id", Value: []byte(id)}.
// Kafka itself keeps every copy; the receiver drops a repeat only when
// the header is the same on each send. A header made for a new message
// is its own ID too, so it counts in a retry or a relay only.
func (c *checker) brokerHeader(lit *ast.CompositeLit) (sink, bool) {
	info := c.pass.TypesInfo
	t := info.TypeOf(lit)
	if !slices.ContainsFunc(kafkaHeaders, func(h [2]string) bool { return isNamed(t, h[0], h[1]) }) {
		return sink{}, false
	}
	var key, value ast.Expr
	for i, elt := range lit.Elts {
		switch e := elt.(type) {
		case *ast.KeyValueExpr:
			if id, ok := e.Key.(*ast.Ident); ok && id.Name == "Key" {
				key = e.Value
			} else if ok && id.Name == "Value" {
				value = e.Value
			}
		default:
			if i == 0 {
				key = e
			} else if i == 1 {
				value = e
			}
		}
	}
	if key == nil || value == nil {
		return sink{}, false
	}
	h, ok := match.ConstString(info, unconvert(info, key))
	if !ok || !keyHeaderName(h) {
		return sink{}, false
	}
	return sink{node: lit, value: unconvert(info, value), what: "the Kafka " + h + " header", only: []kind{retry, relay}}, true
}

// unconvert returns what a conversion converts ([]byte(id) is id), or e.
func unconvert(info *types.Info, e ast.Expr) ast.Expr {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
			return call.Args[0]
		}
	}
	return e
}
