package cacheresponse

import (
	"fmt"
	"go/ast"
	"go/constant"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// docStatus reports an update of a MongoDB document or DynamoDB item,
// the claimed one or one of an idempotency collection or table, that sets
// its state and no response field: a $set of state alone, an
// UpdateExpression "SET #s = :done". A repeat finds it completed and has
// nothing to answer with.
func (a *checker) docStatus(f *claim.Func, call *ast.CallExpr) {
	for _, acc := range match.ClassifyAll(a.pass.Fset, a.info, call) {
		if a.docStatusOf(f, call, acc) {
			return
		}
	}
}

// docStatusOf reports one update of a call (a transaction's Update among
// its items), and whether it did.
func (a *checker) docStatusOf(f *claim.Func, call *ast.CallExpr, acc match.Access) bool {
	if !directive.DocStore(acc.Record) || acc.Op != match.OpUpdate && acc.Op != match.OpGuarded {
		return false
	}
	fields, ok := match.WrittenBy(a.info, acc)
	if !ok {
		return false
	}
	var states []string
	for _, fd := range fields {
		if bodyName(fd.Name) || fd.Value != nil && a.inProgress(fd.Value) {
			return false // a response stored, or a lease renewed
		}
		if completionName(fd.Name) {
			states = append(states, fd.Name)
		}
	}
	if len(states) == 0 {
		return false
	}
	c := a.completes(f, call)
	what := "the key"
	if c != nil {
		what = fmt.Sprintf("the key claimed by %s at %s", c.What, a.where(c.Call.Pos()))
	} else if !match.KeyName(acc.Target) && !match.DedupName(acc.Target) || a.claimed(f, func(c *claim.Claim) bool { return c.Lock }) != nil {
		return false
	}
	a.r.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("%s of %s sets only %s: it marks %s completed without the response, so a retry cannot get back what this call answered; store the status code and the marshalled body with it (cacheresponse)",
			acc.What, acc.Target, strings.Join(states, ", "), what),
		Related: claimRelated(c),
	})
	return true
}

// inProgress reports whether a written value holds a constant saying the
// work is still under way.
func (a *checker) inProgress(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && !found {
			if tv := a.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.String && match.InProgress(constant.StringVal(tv.Value)) {
				found = true
			}
		}
		return !found
	})
	return found
}
