package match

import (
	"go/ast"
	"go/types"
	"strings"
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
	a.InWatch = redigoWatched(info, call)
	return a, ok
}

// redigoWatched reports whether call, a command on a connection, comes
// after a WATCH on the same connection in its function with no EXEC or
// DISCARD between them: redigo's WATCH ... MULTI ... EXEC, which fails
// when a watched key changed.
func redigoWatched(info *types.Info, call *ast.CallExpr) bool {
	conn := redigoConn(info, call)
	if conn == nil {
		return false
	}
	body := innermostFunc(enclosing(info, call.Pos()))
	if body == nil {
		return false
	}
	watched := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || c.Pos() >= call.Pos() || len(c.Args) == 0 || redigoConn(info, c) != conn {
			return true
		}
		switch name, _ := ConstString(info, c.Args[0]); strings.ToUpper(name) {
		case "WATCH":
			watched = true
		case "EXEC", "DISCARD":
			watched = false
		}
		return true
	})
	return watched
}

// redigoConn returns the connection variable a redigo Do or Send is
// called on, or nil.
func redigoConn(info *types.Info, call *ast.CallExpr) types.Object {
	fn := method(info, call)
	if fn == nil || !inPackage(fn, redigoPath) || (fn.Name() != "Do" && fn.Name() != "Send") {
		return nil
	}
	id, ok := ast.Unparen(receiverOf(call)).(*ast.Ident)
	if !ok {
		return nil
	}
	return info.Uses[id]
}
