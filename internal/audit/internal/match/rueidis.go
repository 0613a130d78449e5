package match

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

const (
	rueidisPath = "github.com/redis/rueidis"
	// rueidisCompatPath is rueidis's go-redis-shaped adapter, whose
	// commands Redis reads as go-redis's.
	rueidisCompatPath = rueidisPath + "/rueidiscompat"
)

// rueidis reads a rueidis command, built and sent:
// client.Do(ctx, client.B().Set().Key(k).Value(v).Nx().Build()), or
// DoCache(ctx, client.B().Get().Key(k).Cache(), ttl); the built command
// may be held in a variable first. Xx and other conditions make a SET
// neither a blind write nor a claim, and it is not reported.
func rueidis(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !inPackage(fn, rueidisPath) || (fn.Name() != "Do" && fn.Name() != "DoCache") || len(call.Args) < 2 {
		return Access{}, false
	}
	cmd := call.Args[1]
	if id, ok := ast.Unparen(cmd).(*ast.Ident); ok {
		if v, _, later, ok := definition(info, id); ok && len(later) == 0 {
			cmd = v
		}
	}
	end, ok := ast.Unparen(cmd).(*ast.CallExpr)
	if !ok {
		return Access{}, false
	}
	if fn, _ := typeutil.Callee(info, end).(*types.Func); fn == nil || (fn.Name() != "Build" && fn.Name() != "Cache") {
		return Access{}, false
	}
	var links []*ast.CallExpr // the builder's calls, last first
	name := ""
	nx := false
	for x := receiver(end); x != nil && name == ""; x = receiver(x) {
		link, _ := typeutil.Callee(info, x).(*types.Func)
		if link == nil || !inPackage(link, rueidisPath+"/...") || link.Signature().Recv() == nil {
			return Access{}, false
		}
		switch {
		case typeName(link.Signature().Recv().Type()) == "Builder":
			name = link.Name()
		case link.Name() == "Nx":
			nx = true
		case link.Name() == "Xx":
			return Access{}, false
		default:
			links = append(links, x)
		}
	}
	var words []ast.Expr // the key, then fields, values and members
	for _, x := range slices.Backward(links) {
		words = append(words, x.Args...)
	}
	if name == "" || len(words) == 0 {
		return Access{}, false
	}
	c, ok := redisWords(info, fn.Name(), name, words)
	if !ok {
		return Access{}, false
	}
	if nx && c.Op == RedisSet {
		c.Op = RedisSetNX
	}
	return redisAccess(info, call, c)
}
