package match

import (
	"go/ast"
	"go/types"
)

const redigoPath = "github.com/gomodule/redigo/redis"

// redigo reads a redigo command: conn.Do("SET", key, value, "NX"), its
// DoContext method and function, and Send, which queues the command in
// the connection's pipeline so that its reply comes later, by Receive.
// Wrapping the reply (redis.String(conn.Do(...)), redis.Bool) changes
// nothing: the Do call is the access.
func redigo(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !inPackage(fn, redigoPath) || call.Ellipsis.IsValid() {
		return Access{}, false
	}
	args := call.Args
	switch {
	case fn.Name() == "Do" || fn.Name() == "Send":
	case fn.Name() == "DoContext" && fn.Signature().Recv() != nil:
		args = args[1:] // ctx
	case fn.Name() == "DoContext":
		args = args[min(2, len(args)):] // c, ctx
	default:
		return Access{}, false
	}
	if len(args) < 2 {
		return Access{}, false
	}
	c, ok := redisCommand(info, fn.Name(), args)
	if !ok {
		return Access{}, false
	}
	a, ok := redisAccess(info, call, c)
	a.Pipelined = fn.Name() == "Send"
	return a, ok
}
