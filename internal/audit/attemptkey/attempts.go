package attemptkey

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// attemptNumber reports the number of the attempt or delivery that a job
// queue, broker or workflow engine hands the code it runs: a field or
// method of one of its types (river's job.Attempt, Pub/Sub's
// DeliveryAttempt, JetStream's NumDelivered, Temporal's
// activity.GetInfo(ctx).Attempt), or a function of its package
// (asynq.GetRetryCount(ctx)); pkg, the package checked, declares none of
// them. It counts up with each retry, so a key built from it is new on
// each.
func attemptNumber(info *types.Info, pkg *types.Package, e ast.Expr) (string, bool) {
	var obj types.Object
	switch e := e.(type) {
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil {
			obj = sel.Obj()
		}
	case *ast.CallExpr:
		switch f := ast.Unparen(e.Fun).(type) {
		case *ast.SelectorExpr:
			obj = info.Uses[f.Sel]
		case *ast.Ident:
			obj = info.Uses[f]
		}
	}
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == pkg || !attemptName(obj.Name()) {
		return "", false
	}
	var t types.Type
	switch o := obj.(type) {
	case *types.Var:
		if _, isCall := e.(*ast.CallExpr); isCall || !o.IsField() {
			return "", false
		}
		t = o.Type()
	case *types.Func:
		if _, isCall := e.(*ast.CallExpr); !isCall || o.Signature().Results().Len() == 0 {
			return "", false
		}
		t = o.Signature().Results().At(0).Type()
	default:
		return "", false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return "", false
	}
	return types.ExprString(e) + ", the number of the attempt", true
}

// countEntry reports an entry of a message's attributes or headers that a
// broker keeps the count of its deliveries in: SQS's
// m.Attributes["ApproximateReceiveCount"], a quorum queue's
// d.Headers["x-delivery-count"], and an incoming request's header read
// as an entry (requestHeader). Like attemptNumber's fields it counts up
// with each delivery.
func countEntry(info *types.Info, e *ast.IndexExpr) (string, bool) {
	sel, ok := ast.Unparen(e.X).(*ast.SelectorExpr)
	if !ok || message(info.TypeOf(sel.X)) == notMessage && !requestHeader(info, sel) {
		return "", false
	}
	if _, ok := info.TypeOf(e.X).Underlying().(*types.Map); !ok {
		return "", false
	}
	k, ok := match.ConstString(info, e.Index)
	if !ok || !attemptName(k) {
		return "", false
	}
	return types.ExprString(e) + ", the number of the attempt", true
}

// requestHeader reports the headers of an incoming HTTP request
// (r.Header), whose entries countEntry reads as countHeader reads Get's:
// r.Header["X-CloudTasks-TaskRetryCount"].
func requestHeader(info *types.Info, sel *ast.SelectorExpr) bool {
	return sel.Sel.Name == "Header" && isNamed(info.TypeOf(sel.X), "net/http", "Request")
}

// countHeader reports a header of an HTTP request that the system calling
// the handler again after a failure numbers its tries in
// (r.Header.Get("X-CloudTasks-TaskRetryCount"), App Engine's
// X-AppEngine-TaskRetryCount): a key built from it is new on each.
func countHeader(info *types.Info, call *ast.CallExpr) (string, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Get" || len(call.Args) != 1 {
		return "", false
	}
	h, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
	if !ok || !requestHeader(info, h) {
		return "", false
	}
	k, ok := match.ConstString(info, call.Args[0])
	if !ok || !attemptName(k) {
		return "", false
	}
	return types.ExprString(call) + ", the number of the attempt", true
}

// attemptName reports a name for the count of attempts or deliveries:
// Attempt, DeliveryAttempt, NumDelivered, GetRetryCount, RetryCount,
// ApproximateReceiveCount, x-delivery-count, Cloud Tasks'
// TaskExecutionCount.
func attemptName(name string) bool {
	w := match.Words(name)
	switch {
	case slices.Contains(w, "attempt"):
		return true
	case slices.Contains(w, "delivered") && (slices.Contains(w, "num") || slices.Contains(w, "times")):
		return true
	case slices.Contains(w, "retry") || slices.Contains(w, "retried") || slices.Contains(w, "delivery") || slices.Contains(w, "receive") || slices.Contains(w, "execution"):
		return slices.Contains(w, "count") || slices.Contains(w, "number") || slices.Contains(w, "num")
	}
	return false
}
