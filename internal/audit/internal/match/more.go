package match

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// classifyMore reports the accesses of the libraries Classify learned
// after its first three: calls that send no SQL text and are no gorm or
// go-redis command.
func classifyMore(info *types.Info, call *ast.CallExpr) (Access, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil {
		return Access{}, false
	}
	fn = fn.Origin()
	if a, ok := copyFrom(call, fn, info); ok {
		return a, true
	}
	if a, ok := gormRaw(info, call, fn); ok {
		return a, true
	}
	if a, ok := prepared(info, call, fn); ok {
		return a, true
	}
	if a, ok := syncMap(call, fn); ok {
		return a, true
	}
	if a, ok := redisGuarded(info, call, fn); ok {
		return a, true
	}
	if a, ok := redigo(info, call, fn); ok {
		return a, true
	}
	if a, ok := rueidis(info, call, fn); ok {
		return a, true
	}
	if a, ok := bunQuery(info, call, fn); ok {
		return a, true
	}
	if a, ok := squirrelQuery(info, call, fn); ok {
		return a, true
	}
	if a, ok := goquQuery(info, call, fn); ok {
		return a, true
	}
	return Access{}, false
}
