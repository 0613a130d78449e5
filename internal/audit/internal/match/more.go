package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// moreLibraries read the calls Classify learned after its first three:
// calls that send no SQL text and are no gorm or go-redis command as
// SQL, ORM and Redis read them. Each is given the call's callee, in its
// generic origin.
var moreLibraries = []func(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool){
	batch, copyFrom, gormRaw, prepared, syncMap, memCache, redisGuarded, redigo, rueidis, bunQuery, squirrelQuery, goquQuery, mongo, dynamo, ent, sqlboiler, jet,
}

// classifyMore reports the access of a call that moreLibraries know, or
// else of one that runs a Lua script kept away from it (see keptScript),
// the one reader that needs the file set: for scripts embedded from the
// package's directory.
func classifyMore(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr) (Access, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil {
		return Access{}, false
	}
	for _, read := range moreLibraries {
		if a, ok := read(info, call, fn.Origin()); ok {
			return a, true
		}
	}
	if c, ok := keptScript(fset, info, call, fn.Origin()); ok {
		return redisAccess(info, call, c)
	}
	return Access{}, false
}

// batchLibraries read the calls that write many records at once, one
// Access for each: DynamoDB's TransactWriteItems and BatchWriteItem,
// MongoDB's BulkWrite and InsertMany.
var batchLibraries = []func(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Access, bool){
	dynamoBatch, mongoBulk,
}

// ClassifyAll reports every record call accesses: the parts of a
// transaction or a bulk write, each with its Part, or Classify's one.
func ClassifyAll(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr) []Access {
	if fn, ok := typeutil.Callee(info, call).(*types.Func); ok {
		for _, read := range batchLibraries {
			if parts, ok := read(info, call, fn.Origin()); ok {
				return parts
			}
		}
	}
	if a, ok := Classify(fset, info, call); ok {
		return []Access{a}
	}
	return nil
}

// batchRank orders what a part of a batch does by how much it says of
// the whole: a transaction that claims a key is a claim whatever else it
// writes beside it, one that deletes the key releases it.
var batchRank = []Op{OpClaim, OpDelete, OpGuarded, OpUpdate, OpWrite, OpRead}

// batch reads a call that writes many records as the one part that says
// most of it, for the callers that take one access per call.
func batch(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	for _, read := range batchLibraries {
		parts, ok := read(info, call, fn)
		if !ok || len(parts) == 0 {
			continue
		}
		best := parts[0]
		for _, p := range parts[1:] {
			if slices.Index(batchRank, p.Op) < slices.Index(batchRank, best.Op) {
				best = p
			}
		}
		return best, true
	}
	return Access{}, false
}

// WrittenBy returns the fields an access stores: its part's, or its
// call's as Written reads them.
func WrittenBy(info *types.Info, a Access) ([]Field, bool) {
	if a.Part != nil {
		return a.written, len(a.written) > 0
	}
	if a.Call == nil {
		return nil, false
	}
	return Written(info, a.Call)
}
