package attemptkey

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

const (
	riverPath = "github.com/riverqueue/river"
	asynqPath = "github.com/hibiken/asynq"
)

// byContent is a job or task handed to a queue that drops a copy whose
// content it already holds: river's Insert or InsertTx with UniqueOpts
// ByArgs (in the call's options or the args' own InsertOpts), asynq's
// Enqueue with Unique (on the call or the task), and asynq's NewTask with
// Unique, as a task's constructor makes it. The content is the
// dedup key, whatever calls it: a field made fresh for each enqueue makes
// every copy unique, and the dedup never drops one.
type byContent struct {
	content ast.Expr // the args, or the task's payload
	queue   ast.Node // the call that enqueues, or a batch insert's params
	what    string   // "the arguments of a job inserted with UniqueOpts ByArgs"
	unit    string   // "arguments", "payload"
	option  string   // "UniqueOpts ByArgs", "asynq.Unique"
	tagged  bool     // river: only the fields tagged river:"unique" count, when any is
	// maker is the function of the package, or of another, that built the
	// task and returns it; content is nil then.
	maker *types.Func
}

// uniqueContent reports a field or entry made fresh in the content of a job
// or task that its queue deduplicates by content: no two enqueues carry
// the same content, so the option that asks for the dedup does nothing.
// It is reported wherever the enqueue is, since the option says the caller
// meant repeats to be dropped.
func (c *checker) uniqueContent(decl *ast.FuncDecl, reported map[ast.Node]bool) {
	var f *flow
	litOf := c.literals(decl.Body)
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		var q byContent
		var ok bool
		switch n := n.(type) {
		case *ast.CallExpr:
			if q, ok = c.dedupByContent(n, litOf); !ok {
				return true
			}
		case *ast.CompositeLit:
			if q, ok = c.manyParams(n, litOf); !ok {
				return true
			}
		default:
			return true
		}
		if q.maker != nil {
			if part := c.freshPayload(q.maker); part != "" && !reported[q.queue] {
				reported[q.queue] = true
				c.r.Report(analysis.Diagnostic{
					Pos: q.queue.Pos(), End: q.queue.End(),
					Message: fmt.Sprintf("idempotency key made fresh for each enqueue: the task %s returns carries %s, and reaches %s: no two have the same %s, so %s never finds a duplicate; leave the fresh value out of the payload, or derive it from the operation (attemptkey)",
						q.maker.Name(), part, q.what, q.unit, q.option),
				})
			}
			return true
		}
		lit := litOf(c.unmarshalled(q.content, litOf))
		if lit == nil {
			return true
		}
		if f == nil {
			f = c.flow(decl.Body, nil)
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok || reported[kv.Value] {
				continue
			}
			part, ok := c.contentPart(lit, kv, q.tagged)
			if !ok {
				continue
			}
			if o := f.origin(kv.Value); o.fresh() {
				reported[kv.Value] = true
				c.r.Report(analysis.Diagnostic{
					Pos: kv.Value.Pos(), End: kv.Value.End(),
					Message: fmt.Sprintf("idempotency key made fresh for each enqueue: %s made by %s at %s reaches %s at %s: no two have the same %s, so %s never finds a duplicate; leave the fresh value out of what is compared, or derive it from the operation (attemptkey)",
						part, o.what, c.where(o.pos), q.what, c.where(q.queue.Pos()), q.unit, q.option),
					Related: []analysis.RelatedInformation{{Pos: o.pos, Message: "the value is made here"}, {Pos: q.queue.Pos(), Message: "the queue compares " + q.unit + " here"}},
				})
			}
		}
		return true
	})
}

// contentPart names an element of a content literal that the queue
// compares: a field the JSON encoding keeps (and, when tagged, one tagged
// river:"unique"), or a map's entry.
func (c *checker) contentPart(lit *ast.CompositeLit, kv *ast.KeyValueExpr, tagged bool) (string, bool) {
	t := c.pass.TypesInfo.TypeOf(lit)
	if k, ok := match.ConstString(c.pass.TypesInfo, kv.Key); ok {
		if _, isMap := t.Underlying().(*types.Map); isMap {
			return fmt.Sprintf("the %q entry of a map", k), true
		}
		return "", false
	}
	id, ok := kv.Key.(*ast.Ident)
	st, isStruct := t.Underlying().(*types.Struct)
	if !ok || !isStruct {
		return "", false
	}
	unique := tagged && slices.ContainsFunc(slices.Collect(st.Fields()), func(v *types.Var) bool { return uniqueTag(st, v) })
	for i := range st.NumFields() {
		v := st.Field(i)
		if v.Name() != id.Name {
			continue
		}
		tag := reflect.StructTag(st.Tag(i))
		if tag.Get("json") == "-" || unique && !uniqueTag(st, v) {
			return "", false
		}
		return "the " + id.Name + " of the " + typeName(t), true
	}
	return "", false
}

// uniqueTag reports a field tagged river:"unique".
func uniqueTag(st *types.Struct, v *types.Var) bool {
	for i := range st.NumFields() {
		if st.Field(i) == v {
			return slices.Contains(strings.Split(reflect.StructTag(st.Tag(i)).Get("river"), ","), "unique")
		}
	}
	return false
}

// unmarshalled returns what a payload is the encoding of: the argument of
// a Marshal (json.Marshal(p)), through a local that holds its result.
func (c *checker) unmarshalled(e ast.Expr, litOf func(ast.Expr) *ast.CompositeLit) ast.Expr {
	info := c.pass.TypesInfo
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, ok := info.Uses[id].(*types.Var); ok {
			if call := c.assignedCall(v); call != nil {
				e = call
			}
		}
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && fn.Name() == "Marshal" {
			return call.Args[0]
		}
	}
	return e
}

// assignedCall returns the call a local variable is set to where it is
// declared (payload, err := json.Marshal(p)); nil for another.
func (c *checker) assignedCall(v *types.Var) *ast.CallExpr {
	var found *ast.CallExpr
	for _, f := range c.pass.Files {
		if f.Pos() > v.Pos() || v.Pos() >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			a, ok := n.(*ast.AssignStmt)
			if !ok || found != nil || len(a.Rhs) != 1 {
				return found == nil
			}
			if id, ok := a.Lhs[0].(*ast.Ident); ok && c.pass.TypesInfo.Defs[id] == v {
				found, _ = ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
			}
			return found == nil
		})
	}
	return found
}

// dedupByContent reports an enqueue whose queue drops a copy by content.
func (c *checker) dedupByContent(call *ast.CallExpr, litOf func(ast.Expr) *ast.CompositeLit) (byContent, bool) {
	info := c.pass.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return byContent{}, false
	}
	switch {
	case fn.Pkg().Path() == riverPath && (fn.Name() == "Insert" || fn.Name() == "InsertTx") && len(call.Args) >= 3:
		args, opts := call.Args[len(call.Args)-2], call.Args[len(call.Args)-1]
		if !byArgs(info, litOf(opts)) && !c.argsByArgs(info.TypeOf(args)) {
			return byContent{}, false
		}
		return byContent{content: args, queue: call, what: "the arguments of a job inserted with UniqueOpts ByArgs", unit: "arguments", option: "UniqueOpts ByArgs", tagged: true}, true
	case fn.Pkg().Path() == asynqPath && fn.Name() == "NewTask" && len(call.Args) > 2:
		// a task that asks for uniqueness itself, as a task's constructor
		// builds it: asynq.NewTask(typ, payload, asynq.Unique(ttl))
		if !slices.ContainsFunc(call.Args[2:], func(e ast.Expr) bool { return asynqUnique(info, e) }) {
			return byContent{}, false
		}
		return byContent{content: call.Args[1], queue: call, what: "the payload of a task made with asynq.Unique", unit: "payload", option: "asynq.Unique"}, true
	case fn.Pkg().Path() == asynqPath && (fn.Name() == "Enqueue" || fn.Name() == "EnqueueContext"):
		task := call.Args[0]
		if fn.Name() == "EnqueueContext" && len(call.Args) > 1 {
			task = call.Args[1]
		}
		newTask, _ := ast.Unparen(task).(*ast.CallExpr)
		if id, ok := ast.Unparen(task).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				newTask = c.assignedCall(v)
			}
		}
		if newTask == nil {
			return byContent{}, false
		}
		f, ok := typeutil.Callee(info, newTask).(*types.Func)
		if !ok || f.Pkg() == nil {
			return byContent{}, false
		}
		q := byContent{queue: call, what: "a task enqueued with asynq.Unique at " + c.where(call.Pos()), unit: "payload", option: "asynq.Unique"}
		if f.Pkg().Path() != asynqPath {
			// task, err := tasks.NewExportTask(id): a constructor's task
			q.maker = f.Origin()
			return q, slices.ContainsFunc(call.Args, func(e ast.Expr) bool { return asynqUnique(info, e) })
		}
		if f.Name() != "NewTask" || len(newTask.Args) < 2 {
			return byContent{}, false
		}
		if !slices.ContainsFunc(append(slices.Clone(call.Args), newTask.Args[2:]...), func(e ast.Expr) bool { return asynqUnique(info, e) }) {
			return byContent{}, false
		}
		q.content, q.what = newTask.Args[1], "the payload of a task enqueued with asynq.Unique"
		return q, true
	}
	return byContent{}, false
}

// asynqUnique reports asynq.Unique(ttl), the option that drops a task of
// the same queue, type and payload.
func asynqUnique(info *types.Info, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == asynqPath && fn.Name() == "Unique"
}

// byArgs reports river InsertOpts, or a literal holding them, whose
// UniqueOpts set ByArgs: true.
func byArgs(info *types.Info, lit *ast.CompositeLit) bool {
	found := false
	if lit == nil {
		return false
	}
	ast.Inspect(lit, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || found {
			return !found
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "ByArgs" {
			tv, ok := info.Types[kv.Value]
			found = ok && tv.Value != nil && tv.Value.ExactString() == "true"
		}
		return !found
	})
	return found
}

// argsByArgs reports river job args of a type of the package whose own
// InsertOpts method returns options that set ByArgs.
func (c *checker) argsByArgs(t types.Type) bool {
	if t == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, c.pass.Pkg, "InsertOpts")
	m, ok := obj.(*types.Func)
	if !ok || c.decls[m] == nil {
		return false
	}
	found := false
	ast.Inspect(c.decls[m].Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && byArgs(c.pass.TypesInfo, lit) {
			found = true
		}
		return !found
	})
	return found
}

// freshPayload returns the part of the payload made fresh in a function
// that builds an asynq task and returns it (NewExportTask marshalling
// time.Now into the payload it hands asynq.NewTask): "the RequestedAt of
// the exportPayload made by time.Now at tasks.go:12"; "" for none. A
// function of another package says so in its fact.
func (c *checker) freshPayload(fn *types.Func) string {
	decl := c.decls[fn]
	if decl == nil {
		if k := c.fact(fn); k != nil {
			return k.Payload
		}
		return ""
	}
	if r := fn.Signature().Results(); r.Len() == 0 || !isNamed(r.At(0).Type(), asynqPath, "Task") {
		return ""
	}
	info := c.pass.TypesInfo
	litOf := c.literals(decl.Body)
	var f *flow
	found := ""
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if _, lit := n.(*ast.FuncLit); lit || found != "" {
			return false
		}
		if !ok || len(ret.Results) == 0 {
			return true
		}
		call, _ := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
		if id, ok := ast.Unparen(ret.Results[0]).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				call = c.assignedCall(v)
			}
		}
		if call == nil || len(call.Args) < 2 {
			return true
		}
		if nt, ok := typeutil.Callee(info, call).(*types.Func); !ok || nt.Pkg() == nil || nt.Pkg().Path() != asynqPath || nt.Name() != "NewTask" {
			return true
		}
		lit := litOf(c.unmarshalled(call.Args[1], litOf))
		if lit == nil {
			return true
		}
		if f == nil {
			f = c.flow(decl.Body, nil)
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if part, ok := c.contentPart(lit, kv, false); ok {
				if o := f.origin(kv.Value); o.fresh() {
					found = fmt.Sprintf("%s made by %s at %s", part, o.what, c.where(o.pos))
					return false
				}
			}
		}
		return true
	})
	return found
}

// manyParams reports one job of a river batch insert, an InsertManyParams
// literal whose InsertOpts set UniqueOpts ByArgs (or whose args ask for it
// themselves).
func (c *checker) manyParams(lit *ast.CompositeLit, litOf func(ast.Expr) *ast.CompositeLit) (byContent, bool) {
	info := c.pass.TypesInfo
	if !isNamed(info.TypeOf(lit), riverPath, "InsertManyParams") {
		return byContent{}, false
	}
	var args, opts ast.Expr
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			switch id, _ := kv.Key.(*ast.Ident); {
			case id == nil:
			case id.Name == "Args":
				args = kv.Value
			case id.Name == "InsertOpts":
				opts = kv.Value
			}
		}
	}
	if args == nil || !byArgs(info, litOf(opts)) && !c.argsByArgs(info.TypeOf(args)) {
		return byContent{}, false
	}
	return byContent{content: args, queue: lit, what: "the arguments of a job inserted with UniqueOpts ByArgs", unit: "arguments", option: "UniqueOpts ByArgs", tagged: true}, true
}
