package attemptkey

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// kind is what one run of a scope stands for: an attempt of one logical
// operation, which a correct key names the same way every time.
type kind uint8

const (
	retry     kind = iota + 1 // an attempt of a retry loop or retry helper
	request                   // one request to an HTTP handler
	delivery                  // one delivery of a message to a consumer
	scheduled                 // one run of a scheduled job
	// startup is one start of a process: no scope, but the kind of a key
	// made once per process, for sinks that name the kinds they count in.
	startup
	relay // one pass of an outbox relay over a stored record
)

// scope is a piece of code run once per attempt: a loop, a function
// literal, or a whole function.
type scope struct {
	node ast.Node
	kind kind
	what string       // retry loop, function retried by backoff.Retry, consumer Handle, ...
	msgs []types.Type // for a delivery, the types of the messages delivered
	call bool         // a retry scope run for each attempt of an outgoing call (perCall)
}

// scopeAt returns the innermost attempt around pos in decl: a retry loop
// or retried function literal, or a function that handles one request,
// one message delivery or one run of a scheduled job.
func (c *checker) scopeAt(decl *ast.FuncDecl, pos token.Pos) *scope {
	info := c.pass.TypesInfo
	var sc *scope
	if fn, ok := info.Defs[decl.Name].(*types.Func); ok {
		if v := c.relayOf(decl); v != nil {
			// before funcRole: ForwardEvent(ctx, e) that marks e sent relays
			// a stored record, which no queue delivered
			sc = &scope{node: decl, kind: relay, what: "relay " + decl.Name.Name + " of " + v.Name()}
		} else if k, what, msgs := funcRole(info, decl.Name.Name, recvName(fn), fn.Signature(), decl.Body); k != 0 {
			sc = &scope{node: decl, kind: k, what: what, msgs: msgs}
		} else if c.registered(); c.jobs[fn] || scheduleDoc(decl.Doc) {
			sc = &scope{node: decl, kind: scheduled, what: "scheduled job " + decl.Name.Name}
		} else if c.activities[fn] || activity(decl, recvName(fn)) {
			// run again by its workflow engine (or its caller) on failure
			sc = &scope{node: decl, kind: retry, what: "activity " + decl.Name.Name}
		} else if c.handlers[fn] || namedHandler(fn) {
			// a watermill cqrs handler: run for each delivery of its command or event
			var msgs []types.Type
			if ev := eventParam(fn.Signature()); ev != nil {
				msgs = []types.Type{ev}
			}
			sc = &scope{node: decl, kind: delivery, what: "handler " + decl.Name.Name, msgs: msgs}
		} else if rpcMethod(fn) {
			sc = &scope{node: decl, kind: request, what: decl.Name.Name}
		} else if c.retriesItself(decl, fn) {
			sc = &scope{node: decl, kind: retry, what: "function " + decl.Name.Name + ", retried by calling itself,"}
		} else if what, ok := perCall(decl.Name.Name, fn.Signature()); ok {
			sc = &scope{node: decl, kind: retry, what: what + " " + decl.Name.Name, call: true}
		} else if k, _, msgs := funcRole(info, "", "", fn.Signature(), decl.Body); c.callbacks[fn] && k == delivery {
			// handed over as a callback (nc.Subscribe(subj, c.orders)): called per delivery
			sc = &scope{node: decl, kind: delivery, what: "consumer " + decl.Name.Name, msgs: msgs}
		}
	}
	roles := c.litRoles(decl)
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil || !within(n, pos) {
			return n == nil
		}
		switch n := n.(type) {
		case *ast.ForStmt:
			if cl, item, ok := selectTurn(info, n, pos); ok {
				// a select taking inputs and ticks: each case is its own turn
				switch {
				case cl == nil:
				case item == nil:
					sc = &scope{node: cl, kind: scheduled, what: "ticker case"}
				case message(item) != notMessage:
					sc = &scope{node: cl, kind: delivery, what: "case receiving messages", msgs: []types.Type{item}}
				}
				break
			}
			item, items := takesItem(info, n.Cond, n.Body)
			if items && message(item) == notMessage {
				item = narrowed(info, n.Body, item)
			}
			switch {
			case periodic(info, n):
				sc = &scope{node: n, kind: scheduled, what: "ticker loop"}
			case retryLoop(info, n, n.Cond, n.Body):
				sc = &scope{node: n, kind: retry, what: "retry loop"}
			case items && message(item) != notMessage:
				sc = &scope{node: n, kind: delivery, what: "loop over received messages", msgs: []types.Type{item}}
			}
		case *ast.RangeStmt:
			if v := c.relayLoop(n); v != nil {
				sc = &scope{node: n, kind: relay, what: "relay loop over " + v.Name()}
			} else if k, what := rangeRole(info, n); k != 0 {
				sc = &scope{node: n, kind: k, what: what}
				if k == delivery {
					sc.msgs = []types.Type{elem(info.TypeOf(n.X))}
				}
			}
		case *ast.FuncLit:
			if r, ok := roles[n]; ok && r.kind == 0 {
				sc = nil // run by the caller of something else: an in-process bus's publish
			} else if ok {
				sc = &r
			} else if sig, ok := info.TypeOf(n).(*types.Signature); ok {
				if k, what, msgs := funcRole(info, "", "", sig, n.Body); k != 0 {
					sc = &scope{node: n, kind: k, what: what, msgs: msgs}
				} else if what, ok := perCall("", sig); ok {
					sc = &scope{node: n, kind: retry, what: what, call: true}
				}
			}
		}
		return true
	})
	return sc
}

// funcRole says whether a function (a literal when name is empty) handles
// one HTTP request, one message, or one run of a scheduled job. A function
// taking a message handles its delivery when it is a literal (a
// subscription's callback), when it is named for it, when the message is
// of a type only ever received (an SQS message, a JetStream Msg, an AMQP
// Delivery), or when it acknowledges the message.
//
// A scheduled job is a function named for its schedule (nightlyPayout,
// runHourlyJob, Tick), or a method of a type named for one (SettlementJob).
// An HTTP handler that holds a Pub/Sub push envelope (pushEnvelope)
// handles a delivery. For a delivery it also returns the types of the
// messages delivered.
func funcRole(info *types.Info, name, recv string, sig *types.Signature, body *ast.BlockStmt) (kind, string, []types.Type) {
	var writer, req, webCtx bool
	var msgs []*types.Var
	var msgTypes []types.Type
	received := false
	for p := range sig.Params().Variables() {
		t := p.Type()
		writer = writer || types.TypeString(t, nil) == "net/http.ResponseWriter"
		req = req || isPointer(t) && isNamed(t, "net/http", "Request")
		webCtx = webCtx || requestContext(t)
		if m := message(t); m != notMessage {
			msgs = append(msgs, p)
			msgTypes = append(msgTypes, t)
			received = received || m == receivedMessage
		}
	}
	words := match.Words(name)
	recvWords := match.Words(recv)
	msg := len(msgs) > 0
	var env types.Type
	if writer && req {
		env = pushEnvelope(info, body)
	}
	switch {
	case env != nil:
		// a Pub/Sub push endpoint: one request per delivery of a message
		return delivery, strings.TrimSpace("Pub/Sub push handler " + name), []types.Type{env}
	case writer && req && name == "":
		return request, "the handler", nil
	case writer && req:
		return request, name, nil
	case webCtx && name == "":
		return request, "the handler", nil
	case webCtx:
		return request, name, nil // gin's func(c *gin.Context), echo's func(c echo.Context) error
	case msg && name == "":
		return delivery, "message handler", msgTypes
	case msg && (received || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(consumerWords, w) }) || acks(info, body, msgs)):
		return delivery, "consumer " + name, msgTypes
	case name == "":
	case slices.ContainsFunc(words, func(w string) bool { return slices.Contains(scheduleWords, w) }),
		name == "Tick",
		len(words) > 1 && (words[0] == "run" || words[0] == "execute") && words[len(words)-1] == "job",
		len(recvWords) > 0 && slices.Contains(jobTypeWords, recvWords[len(recvWords)-1]):
		return scheduled, "scheduled job " + name, nil
	}
	return 0, "", nil
}

// consumerWords name a function that handles one delivered message.
var consumerWords = []string{"handle", "handler", "consume", "consumer", "process", "receive", "on", "deliver", "subscribe", "worker", "relay", "forward", "ingest"}

// ackMethods acknowledge, or refuse, a delivered message.
var ackMethods = []string{"Ack", "AckSync", "Nak", "NakWithDelay", "Term", "InProgress", "Nack", "Reject", "DoubleAck"}

// settleWords name a call that settles a delivered message handed to it
// as an argument: Azure Service Bus's CompleteMessage, AbandonMessage and
// DeadLetterMessage, kafka's CommitMessage(s), sarama's MarkMessage.
var settleWords = []string{"ack", "nack", "complete", "abandon", "dead", "commit", "mark", "reject", "settle"}

// acks reports whether body acknowledges one of msgs, by a method of the
// message (m.Ack()) or by handing it to a call that settles it
// (receiver.CompleteMessage(ctx, m, nil)): only a consumer does.
func acks(info *types.Info, body *ast.BlockStmt, msgs []*types.Var) bool {
	found := false
	isMsg := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		v, _ := info.Uses[id].(*types.Var)
		return slices.Contains(msgs, v)
	}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if slices.Contains(ackMethods, sel.Sel.Name) && isMsg(sel.X) {
			found = true
		} else if w := match.Words(sel.Sel.Name); len(w) > 0 && slices.Contains(settleWords, w[0]) && slices.ContainsFunc(call.Args, isMsg) {
			found = true
		}
		return true
	})
	return found
}

// rpcMethod reports a method of a gRPC service implementation, one per
// call: the receiver embeds the Unimplemented...Server that
// protoc-gen-go-grpc generates, and the method takes a context and a
// request and returns a response and an error. A client's retry calls it
// again.
func rpcMethod(fn *types.Func) bool {
	sig := fn.Signature()
	if sig.Recv() == nil || !fn.Exported() || sig.Params().Len() != 2 || sig.Results().Len() != 2 ||
		!isNamed(sig.Params().At(0).Type(), "context", "Context") ||
		!types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range st.Fields() {
		if n := typeName(f.Type()); f.Embedded() && strings.HasPrefix(n, "Unimplemented") && strings.HasSuffix(n, "Server") {
			return true
		}
	}
	return false
}

// takesAttempt reports a function literal handed the number of the
// attempt it makes (func(attempt int) (bool, error), as matryer/try's Do
// calls it): whatever calls it, it is called once per attempt.
func takesAttempt(info *types.Info, lit *ast.FuncLit) bool {
	for _, field := range lit.Type.Params.List {
		if b, ok := info.TypeOf(field.Type).Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			continue
		}
		for _, name := range field.Names {
			if slices.ContainsFunc(match.Words(name.Name), func(w string) bool {
				return w == "attempt" || w == "attempts" || w == "try" || w == "tries" || w == "retry" || w == "retries"
			}) {
				return true
			}
		}
	}
	return false
}

// retriesItself reports a function that retries by calling itself on
// failure: the call sits in a branch taken on an error (if err != nil,
// errors.Is(err, ...)), and the function waits before it (a sleep, a
// backoff) or counts its attempts in a parameter. Each call is one
// attempt.
func (c *checker) retriesItself(decl *ast.FuncDecl, fn *types.Func) bool {
	if c.selfRetry == nil {
		c.selfRetry = map[*types.Func]bool{}
	}
	if r, ok := c.selfRetry[fn]; ok {
		return r
	}
	r := c.callsItselfOnError(decl, fn)
	c.selfRetry[fn] = r
	return r
}

// callsItselfOnError is retriesItself's look, once per function.
func (c *checker) callsItselfOnError(decl *ast.FuncDecl, fn *types.Func) bool {
	info := c.pass.TypesInfo
	counts := false
	for p := range fn.Signature().Params().Variables() {
		counts = counts || slices.ContainsFunc(match.Words(p.Name()), func(w string) bool {
			return slices.Contains(retryWords, w) || w == "try" || w == "tries"
		})
	}
	if !counts && !waits(info, decl.Body) {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || found {
			return !found
		}
		if !mentionsError(info, ifs.Cond) {
			return true
		}
		ast.Inspect(ifs.Body, func(m ast.Node) bool {
			if _, ok := m.(*ast.FuncLit); ok {
				return false
			}
			if call, ok := m.(*ast.CallExpr); ok {
				if callee := typeutil.StaticCallee(info, call); callee != nil && callee.Origin() == fn {
					found = true
				}
			}
			return !found
		})
		return !found
	})
	return found
}

// mentionsError reports a condition that reads an error value.
func mentionsError(info *types.Info, cond ast.Expr) bool {
	found := false
	errType := types.Universe.Lookup("error").Type()
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && types.Identical(v.Type(), errType) {
				found = true
			}
		}
		return !found
	})
	return found
}

// hookOf returns the value whose method call is (c in
// c.OnBeforeRequest(...)); nil for a call of a function.
func hookOf(call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}

// requestHook reports a function literal taking an outgoing request
// (*http.Request, resty's *Request) that is handed to, or set on, a
// client that retries (one with a method or field named for retries:
// resty's SetRetryCount, go-retryablehttp's RetryMax): the client runs
// it before each attempt (resty's OnBeforeRequest, go-retryablehttp's
// PrepareRetry and RequestLogHook), so a key it makes is new on every
// retry.
func (c *checker) requestHook(client ast.Expr, lit *ast.FuncLit) bool {
	info := c.pass.TypesInfo
	sig, ok := info.TypeOf(lit).(*types.Signature)
	if !ok || !slices.ContainsFunc(slices.Collect(sig.Params().Variables()), func(p *types.Var) bool {
		return isPointer(p.Type()) && typeName(p.Type()) == "Request"
	}) {
		return false
	}
	t := info.TypeOf(client)
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named := func(name string) bool {
		return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(retryWords, w) })
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := range ms.Len() {
		if named(ms.At(i).Obj().Name()) {
			return true
		}
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		for f := range st.Fields() {
			if f.Exported() && named(f.Name()) {
				return true
			}
		}
	}
	return false
}

// handlerMaker reports a function that makes a message handler of the
// function it is given (watermill cqrs's NewEventHandler,
// NewCommandHandler, NewGroupEventHandler), or subscribes it to a topic
// or queue (a broker client's Subscribe, a consumer's Consume): the
// router calls that function for each delivery of the command or event,
// and again after it fails, which its error result tells it.
func handlerMaker(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() == "net/http" {
		return false
	}
	w := match.Words(fn.Name())
	if len(w) > 1 && w[0] == "new" && w[len(w)-1] == "handler" {
		return true
	}
	return slices.ContainsFunc(w, func(w string) bool { return w == "subscribe" || w == "subscriber" || w == "consume" })
}

// eventParam returns the command or event a handler function decodes and
// is given, in the shape of func(ctx context.Context, ev *T) error: the
// type of its second parameter; nil for another shape (an HTTP handler).
func eventParam(sig *types.Signature) types.Type {
	p, r := sig.Params(), sig.Results()
	if p.Len() != 2 || r.Len() != 1 || !isNamed(p.At(0).Type(), "context", "Context") ||
		!types.Identical(r.At(0).Type(), types.Universe.Lookup("error").Type()) {
		return nil
	}
	return p.At(1).Type()
}

// namedHandler reports the Handle method of a type that names itself as
// a handler to a router (HandlerName beside it, as watermill cqrs's
// CommandHandler and EventHandler interfaces ask) and takes a command or
// event after a context.
func namedHandler(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if fn.Name() != "Handle" || recv == nil || eventParam(fn.Signature()) == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(recv.Type(), true, fn.Pkg(), "HandlerName")
	m, ok := obj.(*types.Func)
	return ok && m.Signature().Params().Len() == 0
}

// narrowed returns the message type a turn narrows a taken item of an
// interface type to (ev := c.Poll(100); switch e := ev.(type) { case
// *kafka.Message: ... }, m, ok := ev.(*kafka.Message)); the item's own
// type otherwise.
func narrowed(info *types.Info, body *ast.BlockStmt, item types.Type) types.Type {
	if item == nil || !types.IsInterface(item) {
		return item
	}
	out := item
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.TypeAssertExpr:
			if n.Type != nil && types.Identical(info.TypeOf(n.X), item) && message(info.TypeOf(n.Type)) != notMessage {
				out = info.TypeOf(n.Type)
			}
		case *ast.TypeSwitchStmt:
			var x ast.Expr
			switch a := n.Assign.(type) {
			case *ast.ExprStmt:
				x = a.X
			case *ast.AssignStmt:
				x = a.Rhs[0]
			}
			if ta, ok := x.(*ast.TypeAssertExpr); !ok || !types.Identical(info.TypeOf(ta.X), item) {
				return true
			}
			for _, cl := range n.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					if t := info.TypeOf(e); t != nil && message(t) != notMessage && types.AssignableTo(t, item) {
						out = t
					}
				}
			}
		}
		return out == item
	})
	return out
}

// perCall reports a function that runs once for each attempt of an
// outgoing call, below every retry: an HTTP transport's RoundTrip (a
// literal of its shape, for a RoundTripper func adapter) and a gRPC client
// interceptor. A key it makes is new on every attempt, whichever layer
// above it retries (the caller, go-retryablehttp, grpc's retry policy): it
// can never name the operation, so it is never sent twice.
func perCall(name string, sig *types.Signature) (string, bool) {
	params, results := sig.Params(), sig.Results()
	if (name == "" || name == "RoundTrip") && params.Len() == 1 && results.Len() == 2 &&
		isPointer(params.At(0).Type()) && isNamed(params.At(0).Type(), "net/http", "Request") &&
		isPointer(results.At(0).Type()) && isNamed(results.At(0).Type(), "net/http", "Response") {
		return "HTTP transport", true
	}
	if params.Len() >= 2 && sig.Variadic() && isNamed(params.At(params.Len()-1).Type().(*types.Slice).Elem(), grpcPath, "CallOption") {
		switch t := params.At(params.Len() - 2).Type(); {
		case isNamed(t, grpcPath, "UnaryInvoker"), isNamed(t, grpcPath, "Streamer"):
			return "gRPC client interceptor", true
		}
	}
	return "", false
}

const grpcPath = "google.golang.org/grpc"

// scheduleDoc reports a doc comment that says its function runs on a
// schedule: a schedule's word beside one for a job or a run ("the hourly
// job that charges every subscription due", "runs nightly").
// activity reports a function that its doc comment or its receiver's
// name calls a workflow activity (Temporal's, Cadence's: the engine runs
// it again after a failure), or whose doc says it is retried as a whole.
// Each run is one attempt.
func activity(decl *ast.FuncDecl, recv string) bool {
	rw := match.Words(recv)
	if len(rw) > 0 && (rw[len(rw)-1] == "activity" || rw[len(rw)-1] == "activities") {
		return true
	}
	if decl.Doc == nil {
		return false
	}
	words := match.Words(decl.Doc.Text())
	for i, w := range words {
		switch w {
		case "activity":
			return true
		case "retries", "reruns", "redelivers":
			if i+1 < len(words) && words[i+1] == "it" {
				return true // "the engine retries it"
			}
		}
	}
	return false
}

func scheduleDoc(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	words := match.Words(doc.Text())
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(scheduleWords, w) }) &&
		slices.ContainsFunc(words, func(w string) bool { return slices.Contains(runWords, w) })
}

// runWords, beside a schedule's word, say that a function is run by it.
var runWords = []string{"job", "run", "runs", "cron", "scheduler", "every", "tick"}

// scheduleWords name a function that runs on a schedule.
var scheduleWords = []string{"cron", "cronjob", "scheduled", "nightly", "daily", "hourly", "weekly", "monthly", "periodic"}

// jobTypeWords end the name of a type whose methods make up a scheduled
// job: SettlementJob, ReportCron.
var jobTypeWords = []string{"job", "cron", "cronjob"}

// recvName returns the name of fn's receiver type; "" for a function.
func recvName(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// rangeRole says what a range statement walks: a count of attempts (one
// that looks like a retry loop), a retry schedule of durations, a
// ticker's channel, or a batch or channel of delivered messages.
func rangeRole(info *types.Info, n *ast.RangeStmt) (kind, string) {
	t := info.TypeOf(n.X)
	if t == nil {
		return 0, ""
	}
	if b, ok := t.Underlying().(*types.Basic); ok {
		if b.Info()&types.IsInteger != 0 && retryLoop(info, n, n.X, n.Body) {
			return retry, "retry loop"
		}
		return 0, ""
	}
	e := elem(t)
	switch {
	case e == nil:
	case isNamed(e, "time", "Time"):
		return scheduled, "ticker loop"
	case isNamed(e, "time", "Duration"):
		return retry, "retry loop over backoff delays"
	case message(e) != notMessage:
		return delivery, "loop over delivered messages"
	}
	return 0, ""
}

// counters returns the counters of decl's loops (for attempt := 1;
// attempt <= 4; attempt++) and retry ranges (for attempt := range
// maxAttempts), each a value that differs on every turn, as made inside
// its loop: fresh in a loop that retries, while one that walks items or
// makes a count of things numbers them.
func (c *checker) counters(decl *ast.FuncDecl) map[types.Object]*origin {
	info := c.pass.TypesInfo
	out := map[types.Object]*origin{}
	add := func(id *ast.Ident, body *ast.BlockStmt) {
		if obj := info.Defs[id]; obj != nil {
			out[obj] = &origin{pos: body.Lbrace, what: "the attempt counter " + id.Name, param: -1, counter: obj}
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			init, ok := n.Init.(*ast.AssignStmt)
			post, ok2 := n.Post.(*ast.IncDecStmt)
			if !ok || !ok2 || init.Tok != token.DEFINE {
				break // whether the loop retries, scopeAt tells
			}
			for _, l := range init.Lhs {
				if id, ok := l.(*ast.Ident); ok && types.ExprString(post.X) == id.Name {
					add(id, n.Body)
				}
			}
		case *ast.RangeStmt:
			if id, ok := n.Key.(*ast.Ident); ok && n.Tok == token.DEFINE {
				if k, _ := rangeRole(info, n); k == retry {
					add(id, n.Body)
				}
			}
		}
		return true
	})
	return out
}

// elem returns the element type of a slice, array or channel; nil for
// another type.
func elem(t types.Type) types.Type {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	case *types.Chan:
		return u.Elem()
	}
	return nil
}

// retryLoop reports a loop that repeats one action until it works: one
// whose condition counts attempts or retries, one that goes round again
// only when a turn fails (it leaves on success, if err == nil { return },
// or at the end of a turn that did not continue, or it waits only after a
// failure), one that waits between turns (time.Sleep, a backoff,
// <-time.After) and sends the same thing again on each (sameEachTurn),
// or a loop with no condition that does not wait. A loop over items (i <
// len(x)), a count of things to make, or a loop whose turn takes a new
// input (takesItem) is none, unless its condition counts attempts; nor is
// one that waits and then sends something new, which repeats on a
// schedule (periodic).
func retryLoop(info *types.Info, loop ast.Node, cond ast.Expr, body *ast.BlockStmt) bool {
	switch {
	case cond != nil && walksCollection(cond):
		return false
	case countsTries(cond):
		return true
	}
	if _, items := takesItem(info, cond, body); items {
		return false
	}
	switch {
	case repeatsOnFailure(info, body), countsOwnTries(loop):
		return true
	case waitsOnClock(info, body):
		f, isFor := loop.(*ast.ForStmt)
		return !(isFor && runsUntilStopped(info, f)) && sameEachTurn(info, loop, body)
	case waits(info, body):
		return true // a backoff's or a helper's pause
	}
	return cond == nil
}

// countsOwnTries reports a loop whose own counter is named for attempts
// or tries (for attempt := 1; ; attempt++, for attempt := range 3).
func countsOwnTries(loop ast.Node) bool {
	switch l := loop.(type) {
	case *ast.ForStmt:
		a, ok := l.Init.(*ast.AssignStmt)
		return ok && slices.ContainsFunc(a.Lhs, countsTries)
	case *ast.RangeStmt:
		return l.Key != nil && countsTries(l.Key)
	}
	return false
}

// countsTries reports a loop condition that counts attempts or tries
// (attempt < maxAttempts, retries > 0).
func countsTries(cond ast.Expr) bool {
	if cond == nil {
		return false
	}
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && slices.ContainsFunc(match.Words(id.Name), func(w string) bool {
			return slices.Contains(retryWords, w) || w == "tries" || w == "try"
		}) {
			found = true
		}
		return !found
	})
	return found
}

// waitWords name a call that waits between attempts: time.Sleep, a
// backoff's, a helper's pause(ctx, attempt).
var waitWords = []string{"sleep", "backoff", "pause", "wait", "jitter", "delay"}

// waits reports a loop body that waits between turns: a sleep, a
// backoff, time.After or a timer, or a receive from a ticker.
func waits(info *types.Info, body ast.Node) bool { return waitsBy(info, body, waitCall) }

// waitsOnClock reports a loop body that waits by the clock: time.Sleep,
// time.After, a timer, a receive from a ticker.
func waitsOnClock(info *types.Info, body ast.Node) bool { return waitsBy(info, body, clockCall) }

// waitsBy reports a loop body with a call that wait says waits, outside
// function literals, or a receive from a ticker.
func waitsBy(info *types.Info, body ast.Node, wait func(*types.Info, *ast.CallExpr) bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			found = found || wait(info, n)
		}
		return !found
	})
	return found || ticks(info, body)
}

// clockCall reports a call of time.Sleep, time.After, time.NewTimer or
// time.Tick.
func clockCall(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return false
	}
	switch fn.Name() {
	case "Sleep", "After", "NewTimer", "Tick":
		return true
	}
	return false
}

// waitCall reports a call that waits or makes something to wait on:
// time.After, time.NewTimer, or one named for waiting (time.Sleep,
// b.Backoff(), pause(ctx, attempt)).
func waitCall(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return false
	}
	return fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "After" || fn.Name() == "NewTimer") ||
		slices.ContainsFunc(match.Words(fn.Name()), func(w string) bool { return slices.Contains(waitWords, w) })
}

// leavesOnSuccess reports a loop body that returns or breaks when a turn
// succeeds (if err == nil && code < 500 { return nil }): a loop that waits
// on time.After between such turns retries; it is no ticker.
func leavesOnSuccess(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			found = found || successCond(n.Cond) && leaves(n.Body)
		}
		return !found
	})
	return found
}

// errNil reports a condition err == nil.
func errNil(cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	return ok && b.Op == token.EQL && errCompare(b)
}

// errCompare reports a comparison of an error variable with nil.
func errCompare(b *ast.BinaryExpr) bool {
	x, ok1 := ast.Unparen(b.X).(*ast.Ident)
	y, ok2 := ast.Unparen(b.Y).(*ast.Ident)
	return ok1 && ok2 && y.Name == "nil" && strings.HasSuffix(strings.ToLower(x.Name), "err")
}

// leaves reports a block that returns or breaks out.
func leaves(b *ast.BlockStmt) bool {
	for _, st := range b.List {
		switch st := st.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if st.Tok == token.BREAK {
				return true
			}
		}
	}
	return false
}

// ticks reports a loop body that waits on a time channel (a ticker's C,
// time.After): each turn of the loop is a scheduled run.
func ticks(info *types.Info, body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			if ch, ok := info.TypeOf(u.X).Underlying().(*types.Chan); ok && isNamed(ch.Elem(), "time", "Time") {
				found = true
			}
		}
		return true
	})
	return found
}

// walksCollection reports a loop condition i < len(x): a loop over items,
// each of which may rightly get its own key.
func walksCollection(cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(b.Y).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "len"
}

// litRoles returns the function literals of decl that a retry helper
// retries or a scheduler runs, whether passed directly or through a local
// variable (op := func() error {...}; backoff.Retry(op, b)).
func (c *checker) litRoles(decl *ast.FuncDecl) map[*ast.FuncLit]scope {
	if r, ok := c.roles[decl]; ok {
		return r
	}
	info := c.pass.TypesInfo
	bound := map[types.Object]*ast.FuncLit{}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if lit, ok := n.Rhs[0].(*ast.FuncLit); ok {
					if id, ok := n.Lhs[0].(*ast.Ident); ok && info.ObjectOf(id) != nil {
						bound[info.ObjectOf(id)] = lit
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 1 && len(n.Values) == 1 {
				if lit, ok := n.Values[0].(*ast.FuncLit); ok {
					bound[info.Defs[n.Names[0]]] = lit
				}
			}
		}
		return true
	})
	roles := map[*ast.FuncLit]scope{}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
			// c.PrepareRetry = func(req *http.Request) error {...}
			if sel, ok := a.Lhs[0].(*ast.SelectorExpr); ok {
				if lit, ok := ast.Unparen(a.Rhs[0]).(*ast.FuncLit); ok && c.requestHook(sel.X, lit) {
					roles[lit] = scope{node: lit, kind: retry, what: "request hook " + sel.Sel.Name, call: true}
				}
			}
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok {
			return true
		}
		for i, arg := range call.Args {
			lit, ok := ast.Unparen(arg).(*ast.FuncLit)
			if id, isID := ast.Unparen(arg).(*ast.Ident); isID {
				lit, ok = bound[info.Uses[id]]
			}
			if !ok {
				continue
			}
			switch {
			case c.inProcess(fn):
				// an in-process bus's subscriber runs in the publisher's
				// call, once for each publish: no attempt of its own
				roles[lit] = scope{node: lit}
			case hookOf(call) != nil && c.requestHook(hookOf(call), lit):
				// c.OnBeforeRequest(func(_ *resty.Client, r *resty.Request) error {...})
				roles[lit] = scope{node: lit, kind: retry, what: "request hook given to " + fn.Name(), call: true}
			case c.retried(call, fn, i), takesAttempt(info, lit):
				// retry.Do(op), or try.Do(func(attempt int) (bool, error) {...})
				roles[lit] = scope{node: lit, kind: retry, what: "function retried by " + fn.Name()}
			case scheduling(fn):
				roles[lit] = scope{node: lit, kind: scheduled, what: "function scheduled by " + fn.Name()}
			case handlerMaker(fn):
				if sig, ok := info.TypeOf(lit).(*types.Signature); ok {
					if ev := eventParam(sig); ev != nil {
						roles[lit] = scope{node: lit, kind: delivery, what: "handler given to " + fn.Name(), msgs: []types.Type{ev}}
					}
				}
			}
		}
		return true
	})
	c.roles[decl] = roles
	return roles
}

// retried reports whether call, a call of fn, retries its i'th argument:
// fn is named, or is in a package or on a type named, for retries
// (retry.Do, backoff.Retry, RetryNotify, WithAttempts, Retrier.Do, a Poll
// until a condition holds), it runs the function under a retry policy it
// is given (failsafe.Run(fn, retryPolicy), or an executor built from one:
// failsafe.With(retryPolicy).Run(fn)), or it is a function of this package
// that calls that parameter in a loop or hands it to a retry helper.
func (c *checker) retried(call *ast.CallExpr, fn *types.Func, i int) bool {
	names := append(match.Words(fn.Name()), match.Words(recvName(fn))...)
	if fn.Pkg() != nil {
		names = append(names, match.Words(fn.Pkg().Name())...)
	}
	if slices.ContainsFunc(names, func(w string) bool { return slices.Contains(retryWords, w) }) {
		return true
	}
	if i < len(call.Args) && c.underRetryPolicy(call, i, 0) {
		return true
	}
	r := c.retriesParams(fn.Origin())
	return i < len(r) && r[i]
}

// underRetryPolicy reports whether call runs its i'th argument, a
// function, under a retry policy: another argument is one, or the call is
// a method of an executor built, in a chain of calls or held in a local,
// from one (failsafe.With(rp).WithContext(ctx).Run(fn)). A policy is a
// value of a type named for retries or backoff (failsafe-go's
// RetryPolicy, a BackOff). i is -1 for the calls that built the executor.
func (c *checker) underRetryPolicy(call *ast.CallExpr, i, depth int) bool {
	info := c.pass.TypesInfo
	if depth > 4 {
		return false
	}
	if i >= 0 {
		if _, ok := info.TypeOf(call.Args[i]).Underlying().(*types.Signature); !ok {
			return false
		}
	}
	for j, arg := range call.Args {
		if j != i && retryPolicy(info.TypeOf(arg)) {
			return true
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || info.Selections[sel] == nil {
		return false
	}
	switch x := ast.Unparen(sel.X).(type) {
	case *ast.CallExpr:
		return c.underRetryPolicy(x, -1, depth+1)
	case *ast.Ident:
		v, _ := info.Uses[x].(*types.Var)
		if v == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return false
		}
		for _, decl := range c.decls {
			if decl.Pos() <= v.Pos() && v.Pos() < decl.End() {
				return c.builtFromPolicy(decl, v, depth)
			}
		}
	}
	return false
}

// builtFromPolicy reports whether the local v of decl is set to an
// executor built from a retry policy (exec := failsafe.With(rp)).
func (c *checker) builtFromPolicy(decl *ast.FuncDecl, v *types.Var, depth int) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || found || len(a.Lhs) != len(a.Rhs) {
			return !found
		}
		for k, l := range a.Lhs {
			if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) == v {
				if call, ok := ast.Unparen(a.Rhs[k]).(*ast.CallExpr); ok && c.underRetryPolicy(call, -1, depth+1) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// retryPolicy reports a type named for retries or backoff: a retry
// policy or a backoff schedule handed to whatever runs a function.
func retryPolicy(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	return slices.ContainsFunc(match.Words(n.Obj().Name()), func(w string) bool { return slices.Contains(retryWords, w) })
}

var retryWords = []string{"retry", "retries", "retrying", "retrier", "retryer", "backoff", "attempt", "attempts", "poll"}

// retriesParams returns, for each parameter of a package function, whether
// it is a function the body calls inside a loop, or hands to a retry
// helper: a hand-written retry helper, whatever its name.
func (c *checker) retriesParams(fn *types.Func) []bool {
	if r, done := c.retries[fn]; done {
		return r
	}
	decl := c.decls[fn]
	if decl == nil {
		return nil
	}
	c.retries[fn] = nil // recursion adds nothing
	info := c.pass.TypesInfo
	params := fn.Signature().Params()
	out := make([]bool, params.Len())
	index := map[types.Object]int{}
	for i := range params.Len() {
		if _, ok := params.At(i).Type().Underlying().(*types.Signature); ok {
			index[params.At(i)] = i
		}
	}
	var visit func(n ast.Node, loops int) bool
	visit = func(n ast.Node, loops int) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			// Only a turn of a retry loop runs the function again for the same
			// work; a loop over items, a count of workers started (go fn(...)) or
			// things to make hands each turn something else.
			turns := loops
			if c.retryTurns(n) {
				turns = loops + 1
			}
			ast.Inspect(n, func(m ast.Node) bool {
				if m == n {
					return true
				}
				return m == nil || visit(m, turns)
			})
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && loops > 0 {
				if i, ok := index[info.Uses[id]]; ok {
					out[i] = true
				}
			}
			if callee, ok := typeutil.Callee(info, n).(*types.Func); ok {
				for j, arg := range n.Args {
					if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
						if i, ok := index[info.Uses[id]]; ok && c.retried(n, callee, j) {
							out[i] = true
						}
					}
				}
			}
		}
		return true
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool { return n == nil || visit(n, 0) })
	c.retries[fn] = out
	return out
}

// retryTurns reports a loop whose turns are attempts of one action: a
// retry loop (see retryLoop), a range over a count that looks like one, or
// over backoff delays; not a loop that takes a new item each turn.
func (c *checker) retryTurns(n ast.Node) bool {
	info := c.pass.TypesInfo
	switch n := n.(type) {
	case *ast.ForStmt:
		return !c.itemLoop(n) && retryLoop(info, n, n.Cond, n.Body)
	case *ast.RangeStmt:
		k, _ := rangeRole(info, n)
		return k == retry
	}
	return false
}

// registered finds the functions of the package handed over by name as
// callbacks (nc.Subscribe(subj, c.orders)), and among them and the
// functions that function literals handed to a scheduler call, the
// scheduled jobs (c.AddFunc("@daily", s.Settle), func() { s.Settle(ctx) }):
// each call of one is a delivery or a run, and a key it makes is reported
// there, in the callback or the job.
func (c *checker) registered() {
	if c.jobs != nil {
		return
	}
	c.jobs, c.callbacks, c.activities, c.handlers = map[*types.Func]bool{}, map[*types.Func]bool{}, map[*types.Func]bool{}, map[*types.Func]bool{}
	info := c.pass.TypesInfo
	for _, decl := range c.decls {
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			maker := false
			if fn, ok := typeutil.Callee(info, call).(*types.Func); ok {
				if c.inProcess(fn) {
					return true // an in-process bus: its subscribers run in each publish
				}
				maker = handlerMaker(fn)
			}
			for _, arg := range call.Args {
				if f := funcRef(info, arg); f != nil && c.decls[f.Origin()] != nil {
					c.callbacks[f.Origin()] = true
					if maker && eventParam(f.Signature()) != nil {
						c.handlers[f.Origin()] = true
					}
				}
			}
			if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && strings.HasPrefix(fn.Name(), "RegisterActivity") {
				for _, arg := range call.Args {
					if f := funcRef(info, arg); f != nil && c.decls[f.Origin()] != nil {
						c.activities[f.Origin()] = true
					}
				}
				return true
			}
			if fn, ok := typeutil.Callee(info, call).(*types.Func); !ok || !scheduling(fn) {
				return true
			}
			mark := func(e ast.Expr) {
				if f := funcRef(info, e); f != nil && c.decls[f.Origin()] != nil {
					c.jobs[f.Origin()] = true
				}
			}
			for _, arg := range call.Args {
				lit, ok := ast.Unparen(arg).(*ast.FuncLit)
				if !ok {
					mark(arg)
					continue
				}
				ast.Inspect(lit.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						mark(call.Fun)
					}
					_, nested := n.(*ast.FuncLit)
					return !nested
				})
			}
			return true
		})
	}
}

// scheduling reports a function that runs a function literal on a
// schedule: robfig/cron's AddFunc, gocron's Do, a Schedule or Every
// method.
func scheduling(fn *types.Func) bool {
	if fn.Name() == "AddFunc" || fn.Name() == "AddJob" {
		return true
	}
	names := match.Words(fn.Name())
	if fn.Pkg() != nil {
		names = append(names, match.Words(fn.Pkg().Name())...)
	}
	return slices.ContainsFunc(names, func(w string) bool { return w == "cron" || w == "gocron" || w == "schedule" || w == "every" })
}

// messageKind tells a delivered message from other values.
type messageKind uint8

const (
	notMessage      messageKind = iota
	anyMessage                  // a message, sent or received
	receivedMessage             // a message type only ever received
)

// knownMessages are the message types of the queue clients services use,
// each of which carries its own identity (a message ID, a stream sequence,
// a partition and offset), and whether the type is only ever received. A
// job queue's job (river, asynq) is delivered and retried the same way.
var knownMessages = map[string]messageKind{
	"github.com/aws/aws-sdk-go-v2/service/sqs/types.Message":      receivedMessage,
	"github.com/aws/aws-sdk-go/service/sqs.Message":               receivedMessage,
	"github.com/nats-io/nats.go.Msg":                              anyMessage,
	"github.com/nats-io/nats.go/jetstream.Msg":                    receivedMessage,
	"github.com/segmentio/kafka-go.Message":                       anyMessage,
	"github.com/IBM/sarama.ConsumerMessage":                       receivedMessage,
	"github.com/Shopify/sarama.ConsumerMessage":                   receivedMessage,
	"github.com/confluentinc/confluent-kafka-go/v2/kafka.Message": anyMessage,
	"github.com/confluentinc/confluent-kafka-go/kafka.Message":    anyMessage,
	"github.com/twmb/franz-go/pkg/kgo.Record":                     anyMessage,
	"github.com/rabbitmq/amqp091-go.Delivery":                     receivedMessage,
	"github.com/streadway/amqp.Delivery":                          receivedMessage,
	"cloud.google.com/go/pubsub.Message":                          receivedMessage,
	"cloud.google.com/go/internal/pubsub.Message":                 receivedMessage, // what pubsub's and pubsub/v2's Message alias
	"github.com/riverqueue/river.Job":                             receivedMessage,
	"github.com/hibiken/asynq.Task":                               receivedMessage,
	"github.com/ThreeDotsLabs/watermill/message.Message":          anyMessage,
}

// message reports a message that carries its own ID: a queue client's
// message type, or a type named for a message, event or delivery with a
// field or method named for an ID.
func message(t types.Type) messageKind {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return notMessage
	}
	if k, ok := knownMessages[n.Obj().Pkg().Path()+"."+n.Obj().Name()]; ok {
		return k
	}
	if !slices.ContainsFunc(match.Words(n.Obj().Name()), func(w string) bool {
		return w == "message" || w == "msg" || w == "event" || w == "delivery" || w == "envelope" || w == "task"
	}) {
		return notMessage
	}
	if s, ok := n.Underlying().(*types.Struct); ok {
		for f := range s.Fields() {
			// An ID, or a payload whose queue keeps the ID beside it (a
			// task queue's Task, whose ID the handler's context carries).
			if idName(f.Name()) || f.Name() == "Payload" {
				return anyMessage
			}
		}
	}
	for m := range n.Methods() {
		if idName(m.Name()) {
			return anyMessage
		}
	}
	return notMessage
}

// idName reports a name that ends in ID: ID, MessageId, EventID.
func idName(name string) bool {
	w := match.Words(name)
	return len(w) > 0 && w[len(w)-1] == "id"
}

// messageIDName reports a field naming a message's own ID (ID,
// MessageID, EventID), not the ID of the trace, request or conversation
// it belongs to (TraceID, CorrelationID), which is made per send by
// design.
func messageIDName(name string) bool {
	return idName(name) && !slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(traceWords, w) })
}

// traceWords name IDs that tie a message to a trace or a conversation.
var traceWords = []string{"trace", "span", "correlation", "causation", "request", "parent"}

func isPointer(t types.Type) bool {
	_, ok := t.(*types.Pointer)
	return ok
}

// isNamed reports whether t, or what it points to, is the named type
// path.name.
func isNamed(t types.Type, path, name string) bool {
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}
