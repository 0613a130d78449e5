package directive

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// DocStore reports whether a record match.Classify names is one whose
// writes name their fields one by one, as match.Written reads them: a
// MongoDB collection, a DynamoDB table, or an entity ent generated
// builders for (its SetStatus, SetResponseBody). Such a record is claimed,
// released and completed by its collection, table or entity, as a SQL row
// is by its table.
func DocStore(record string) bool {
	return strings.HasPrefix(record, "mongo ") || strings.HasPrefix(record, "dynamo ") || strings.HasPrefix(record, "ent ")
}

// ClaimDoc reports whether a document store's access claims a key: it
// writes only an absent document (an InsertOne whose duplicate-key error
// is read, a put conditioned on attribute_not_exists, an upsert that only
// sets on insert) and what it writes says the work has begun (a status
// 'processing', 'running') or its collection, table or key names a lock.
// A done marker written once is no claim: nothing is left to release.
//
// ent's writes claim the same way, and two more: an update guarded by
// what it changes that sets such a status (Where(job.StatusEQ("pending"))
// .SetStatus("running")) takes the row for one caller, as an UPDATE ...
// WHERE status = 'pending' does in SQL; a Create into an entity named for
// keys (IdempotencyKey, ProcessedEvent) claims whether or not its
// constraint error is read, its unique index refusing the second. A
// "pending" status of any other entity (a payment, an order) is its
// business state, not a claim of the key it was created under.
func ClaimDoc(info *types.Info, a match.Access) bool {
	ent := strings.HasPrefix(a.Record, "ent ")
	keyed := match.KeyName(a.Target) || match.DedupName(a.Target) || Lockish(a.Target)
	takes := ent && (a.Op == match.OpGuarded || a.Op == match.OpWrite && a.Appends && keyed)
	if a.Op != match.OpClaim && !takes || !DocStore(a.Record) || a.Call == nil {
		return false
	}
	if Lockish(a.Target) || len(a.Keys) > 0 && Lockish(types.ExprString(a.Keys[0])) {
		return true
	}
	fields, _ := match.WrittenBy(info, a)
	return slices.ContainsFunc(fields, func(f match.Field) bool {
		return f.Value != nil && inProgressAttr(info, f.Value) && (!ent || keyed || !pendingState(info, f.Value))
	})
}

// pendingState reports whether a written value is a status that only
// says pending: a business state an entity starts in.
func pendingState(info *types.Info, e ast.Expr) bool {
	v, ok := match.ConstString(info, e)
	return ok && slices.Equal(match.Words(v), []string{"pending"})
}

// inProgressAttr reports whether a written value is a constant saying
// the work has begun: "processing", or a DynamoDB attribute made of one
// (&types.AttributeValueMemberS{Value: "running"}, or a helper given it).
func inProgressAttr(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && !found {
			if v, ok := match.ConstString(info, x); ok && InProgress(v) {
				found = true
			}
		}
		return !found
	})
	return found
}

// docStatusOnly reports whether a document store's write stores fields
// none of which holds a response: a $set of the state, an UpdateExpression
// setting the status and a timestamp.
func docStatusOnly(info *types.Info, call *ast.CallExpr) bool {
	fields, ok := match.Written(info, call)
	return ok && len(fields) > 0 && !slices.ContainsFunc(fields, func(f match.Field) bool { return BodyName(f.Name) })
}

// errorPredicate reports whether call only asks what an error is: a
// function of the package given errors alone that answers a bool
// (conditionFailed(err), isDuplicate(err)), which a claim helper reads
// its write's outcome with.
func errorPredicate(info *types.Info, call *ast.CallExpr, fn *types.Func) bool {
	sig := fn.Signature()
	if sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type().Underlying(), types.Typ[types.Bool]) || len(call.Args) == 0 {
		return false
	}
	errType := types.Universe.Lookup("error").Type()
	return !slices.ContainsFunc(call.Args, func(a ast.Expr) bool { return !types.Identical(info.TypeOf(a), errType) })
}
