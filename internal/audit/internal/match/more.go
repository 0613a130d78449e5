package match

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// moreLibraries read the calls Classify learned after its first three:
// calls that send no SQL text and are no gorm or go-redis command as
// SQL, ORM and Redis read them. Each is given the call's callee, in its
// generic origin.
var moreLibraries = []func(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool){
	copyFrom, gormRaw, prepared, syncMap, redisGuarded, redigo, rueidis, bunQuery, squirrelQuery, goquQuery, mongo, dynamo, ent,
}

// classifyMore reports the access of a call that moreLibraries know.
func classifyMore(info *types.Info, call *ast.CallExpr) (Access, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil {
		return Access{}, false
	}
	for _, read := range moreLibraries {
		if a, ok := read(info, call, fn.Origin()); ok {
			return a, true
		}
	}
	return Access{}, false
}
