package match

import (
	"go/ast"
	"go/types"
)

// classifyMore reports the accesses of the libraries Classify learned
// after its first three: calls that send no SQL text and are no gorm or
// go-redis command.
func classifyMore(info *types.Info, call *ast.CallExpr) (Access, bool) {
	fn := method(info, call)
	if fn == nil {
		return Access{}, false
	}
	if a, ok := copyFrom(call, fn, info); ok {
		return a, true
	}
	if a, ok := gormRaw(info, call, fn); ok {
		return a, true
	}
	if a, ok := syncMap(call, fn); ok {
		return a, true
	}
	return Access{}, false
}
