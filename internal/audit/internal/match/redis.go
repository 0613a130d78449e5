package match

import (
	"go/ast"
	"go/types"
	"strings"
)

// RedisOp is what a Redis command does to a key.
type RedisOp uint8

// The commands the checks tell apart.
const (
	RedisGet    RedisOp = iota + 1 // GET: reads the value
	RedisExists                    // EXISTS: asks whether the key is there
	RedisSet                       // SET (SetEx, SetArgs without a mode): writes whether or not the key exists
	RedisSetNX                     // SET NX (SetNX, SetArgs{Mode: "NX"}): writes only a key that is absent, atomically
	RedisDel                       // DEL, UNLINK: removes the key
	RedisHSetNX                    // HSETNX: writes a hash field only when it is absent, atomically: a claim of the field
	RedisHSet                      // HSET, HMSET: writes hash fields whether or not they exist
	RedisHDel                      // HDEL: removes hash fields
)

func (op RedisOp) String() string {
	switch op {
	case RedisGet:
		return "GET"
	case RedisExists:
		return "EXISTS"
	case RedisSet:
		return "SET"
	case RedisSetNX:
		return "SET NX"
	case RedisDel:
		return "DEL"
	case RedisHSetNX:
		return "HSETNX"
	case RedisHSet:
		return "HSET"
	case RedisHDel:
		return "HDEL"
	}
	return "Redis"
}

// RedisCall is a go-redis v9 command on one key.
type RedisCall struct {
	Op     RedisOp
	Method string   // Get, SetNX, Do, ...
	Key    ast.Expr // the key argument (the first key of a multi-key command)
}

const redisPath = "github.com/redis/go-redis/v9"

var redisMethods = map[string]RedisOp{
	"Get": RedisGet, "Exists": RedisExists,
	"Set": RedisSet, "SetEx": RedisSet, "SetArgs": RedisSet,
	"SetNX": RedisSetNX,
	"Del":   RedisDel, "Unlink": RedisDel,
	"HSetNX": RedisHSetNX, "HSet": RedisHSet, "HMSet": RedisHSet, "HDel": RedisHDel,
}

// Redis reports whether call is a go-redis v9 GET, EXISTS, SET, SET NX,
// DEL, HSETNX, HSET or HDEL, on any client (Client, ClusterClient, Ring, Tx, Conn, a pipeline, the
// Cmdable and UniversalClient interfaces), spelled as a method or as
// Do(ctx, "set", key, value, "nx"). A SetArgs or Do whose mode is not
// constant, or is a condition other than NX (XX, IFEQ, ...), is not
// reported: it is neither a blind write nor a claim.
func Redis(info *types.Info, call *ast.CallExpr) (RedisCall, bool) {
	fn := method(info, call)
	if fn == nil || !inPackage(fn, redisPath) {
		return RedisCall{}, false
	}
	if fn.Name() == "Do" {
		return redisDo(info, call)
	}
	op, ok := redisMethods[fn.Name()]
	if !ok || len(call.Args) < 2 {
		return RedisCall{}, false
	}
	c := RedisCall{Op: op, Method: fn.Name(), Key: call.Args[1]}
	if fn.Name() == "SetArgs" {
		if len(call.Args) < 4 {
			return RedisCall{}, false
		}
		mode, ok := setArgsMode(info, call.Args[3])
		switch {
		case !ok:
			return RedisCall{}, false
		case strings.EqualFold(mode, "NX"):
			c.Op = RedisSetNX
		case mode != "":
			return RedisCall{}, false
		}
	}
	return c, true
}

// setArgsMode returns the Mode of a redis.SetArgs composite literal.
func setArgsMode(info *types.Info, e ast.Expr) (string, bool) {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if id, isIdent := kv.Key.(*ast.Ident); ok && isIdent && id.Name == "Mode" {
			return ConstString(info, kv.Value)
		}
	}
	return "", true
}

// redisDo reads Do(ctx, "SET", key, value, ...options).
func redisDo(info *types.Info, call *ast.CallExpr) (RedisCall, bool) {
	if len(call.Args) < 3 || call.Ellipsis.IsValid() {
		return RedisCall{}, false
	}
	cmd, ok := ConstString(info, call.Args[1])
	if !ok {
		return RedisCall{}, false
	}
	c := RedisCall{Method: "Do", Key: call.Args[2]}
	switch strings.ToUpper(cmd) {
	case "GET":
		c.Op = RedisGet
	case "EXISTS":
		c.Op = RedisExists
	case "DEL", "UNLINK":
		c.Op = RedisDel
	case "SETNX":
		c.Op = RedisSetNX
	case "HSETNX":
		c.Op = RedisHSetNX
	case "HSET", "HMSET":
		c.Op = RedisHSet
	case "HDEL":
		c.Op = RedisHDel
	case "SET":
		c.Op = RedisSet
		if len(call.Args) < 4 {
			return RedisCall{}, false
		}
		for _, a := range call.Args[4:] { // the options after the value
			opt, isConst := ConstString(info, a)
			switch {
			case !isConst:
				continue // an expiry number
			case strings.EqualFold(opt, "NX"):
				c.Op = RedisSetNX
			case strings.EqualFold(opt, "XX"), strings.HasPrefix(strings.ToUpper(opt), "IF"):
				return RedisCall{}, false
			}
		}
	default:
		return RedisCall{}, false
	}
	return c, true
}
