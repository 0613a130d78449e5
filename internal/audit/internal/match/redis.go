package match

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// RedisOp is what a Redis command does to a key.
type RedisOp uint8

// The commands the checks tell apart.
const (
	RedisGet       RedisOp = iota + 1 // GET: reads the value
	RedisExists                       // EXISTS: asks whether the key is there
	RedisSet                          // SET (SetEx, SetArgs without a mode): writes whether or not the key exists
	RedisSetNX                        // SET NX (SetNX, SetArgs{Mode: "NX"}): writes only a key that is absent, atomically
	RedisDel                          // DEL, UNLINK: removes the key
	RedisHSetNX                       // HSETNX: writes a hash field only when it is absent, atomically: a claim of the field
	RedisHSet                         // HSET, HMSET: writes hash fields whether or not they exist
	RedisHDel                         // HDEL: removes hash fields
	RedisHGet                         // HGET, HGETALL: reads a hash field or the whole hash
	RedisHExists                      // HEXISTS: asks whether a hash field is there
	RedisSIsMember                    // SISMEMBER, SMISMEMBER: asks whether a set holds a member
	RedisSAdd                         // SADD: adds set members; its count says how many were new
	RedisSRem                         // SREM: removes set members
	RedisIncr                         // INCR, INCRBY: adds to a counter and returns its new value
	RedisPush                         // LPUSH, RPUSH: appends to a list
	RedisXAdd                         // XADD: appends to a stream
	RedisZScore                       // ZSCORE, ZRANK, ZREVRANK, ZMSCORE: asks whether a sorted set holds a member
	RedisZAdd                         // ZADD (NX or not): adds sorted set members; its count says how many were new
	RedisZRem                         // ZREM: removes sorted set members
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
	case RedisHGet:
		return "HGET"
	case RedisHExists:
		return "HEXISTS"
	case RedisSIsMember:
		return "SISMEMBER"
	case RedisSAdd:
		return "SADD"
	case RedisSRem:
		return "SREM"
	case RedisIncr:
		return "INCR"
	case RedisPush:
		return "PUSH"
	case RedisXAdd:
		return "XADD"
	case RedisZScore:
		return "ZSCORE"
	case RedisZAdd:
		return "ZADD"
	case RedisZRem:
		return "ZREM"
	}
	return "Redis"
}

// RedisCall is a go-redis v9 command on one key.
type RedisCall struct {
	Op     RedisOp
	Method string   // Get, SetNX, Do, ...
	Key    ast.Expr // the key argument (the first key of a multi-key command)
	// Command is the Redis command sent, in upper case: HGETALL, SMISMEMBER,
	// INCRBY, RPUSH; SetArgs sends SET. Messages name it where Op groups
	// several.
	Command string
	// Fields pick the record within the key: a hash command's fields
	// (HSET's field names, not its values), a set command's members.
	Fields []ast.Expr
	// Script marks a Lua script run (Method is its Run, Eval, Do or Exec)
	// read as the command it amounts to on Key: see redisScript.
	Script bool
	// NilTaken marks a script that returns its SET NX's reply as it is:
	// nil when the key is held, which go-redis gives as the error
	// redis.Nil, as it does SetArgs's.
	NilTaken bool
	// NilClaims marks SET ... NX GET (SetArgs{Mode: "NX", Get: true}, Do
	// with "nx" and "get"), which answers the other way round from SET
	// NX: nil, the error redis.Nil, when this call set the key, and the
	// value that was there when it did not; and GETSET (GetSet, Do with
	// "getset"), which answers the same way and writes the key either
	// way: Op is RedisSetNX and Command GETSET, a claim only where its
	// caller asks whether it was nil.
	NilClaims bool
	// value and luaValue are what a script's SET stores: the Go argument
	// it is given, or a constant of the script's own (see Stored).
	value    ast.Expr
	luaValue constant.Value
}

const redisPath = "github.com/redis/go-redis/v9"

var redisMethods = map[string]RedisOp{
	"Get": RedisGet, "Exists": RedisExists,
	"Set": RedisSet, "SetEx": RedisSet, "SetArgs": RedisSet,
	"SetNX": RedisSetNX,
	"Del":   RedisDel, "Unlink": RedisDel,
	"HSetNX": RedisHSetNX, "HSet": RedisHSet, "HMSet": RedisHSet, "HDel": RedisHDel,
	"HGet": RedisHGet, "HGetAll": RedisHGet, "HExists": RedisHExists,
	"SIsMember": RedisSIsMember, "SMIsMember": RedisSIsMember, "SAdd": RedisSAdd, "SRem": RedisSRem,
	"Incr": RedisIncr, "IncrBy": RedisIncr, "LPush": RedisPush, "RPush": RedisPush, "XAdd": RedisXAdd,
	"GetSet": RedisSetNX,
	"ZScore": RedisZScore, "ZRank": RedisZScore, "ZRevRank": RedisZScore, "ZMScore": RedisZScore,
	"ZAdd": RedisZAdd, "ZAddNX": RedisZAdd, "ZAddArgs": RedisZAdd, "ZRem": RedisZRem,
}

// Redis reports whether call is a go-redis v9 or v8 GET, EXISTS, SET,
// SET NX, DEL, HSETNX, HSET, HDEL, or one of the hash, set, counter, list
// and stream commands of RedisOp, on any client (Client, ClusterClient, Ring, Tx, Conn, a pipeline, the
// Cmdable and UniversalClient interfaces), spelled as a method or as
// Do(ctx, "set", key, value, "nx"). A SetArgs or Do whose mode is not
// constant, or is a condition other than NX (XX, IFEQ, ...), is not
// reported: it is neither a blind write nor a claim. A Lua script whose
// source is in sight, run through go-redis, redigo or rueidis, is the
// command it amounts to on one of its keys (see redisScript).
func Redis(info *types.Info, call *ast.CallExpr) (RedisCall, bool) {
	fn := method(info, call)
	if c, ok := redisScript(info, call, fn); ok {
		return c, true
	}
	if fn == nil || !(inPackage(fn, redisPath) || inPackage(fn, redisV8Path) || inPackage(fn, rueidisCompatPath)) {
		return RedisCall{}, false
	}
	if fn.Name() == "Do" {
		return redisDo(info, call)
	}
	op, ok := redisMethods[fn.Name()]
	if !ok || len(call.Args) < 2 {
		return RedisCall{}, false
	}
	c := RedisCall{Op: op, Method: fn.Name(), Key: call.Args[1], NilClaims: fn.Name() == "GetSet"}
	if fn.Name() == "SetArgs" {
		if len(call.Args) < 4 {
			return RedisCall{}, false
		}
		mode, get, ok := setArgsMode(info, call.Args[3])
		switch {
		case !ok:
			return RedisCall{}, false
		case strings.EqualFold(mode, "NX"):
			c.Op, c.NilClaims = RedisSetNX, get
		case mode != "":
			return RedisCall{}, false
		}
	}
	return c.operands(call.Args[2:], call.Ellipsis.IsValid())
}

// setArgsMode returns the Mode of a redis.SetArgs composite literal, and
// whether its Get is the constant true.
func setArgsMode(info *types.Info, e ast.Expr) (mode string, get, ok bool) {
	lit, isLit := ast.Unparen(e).(*ast.CompositeLit)
	if !isLit {
		return "", false, false
	}
	ok = true
	for _, elt := range lit.Elts {
		kv, isKV := elt.(*ast.KeyValueExpr)
		id, isIdent := kv.Key.(*ast.Ident)
		switch {
		case !isKV || !isIdent:
		case id.Name == "Mode":
			mode, ok = ConstString(info, kv.Value)
		case id.Name == "Get":
			tv := info.Types[kv.Value]
			get = tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value)
		}
	}
	return mode, get, ok
}

// redisDo reads Do(ctx, "SET", key, value, ...options).
func redisDo(info *types.Info, call *ast.CallExpr) (RedisCall, bool) {
	if len(call.Args) < 3 || call.Ellipsis.IsValid() {
		return RedisCall{}, false
	}
	return redisCommand(info, "Do", call.Args[1:])
}

// redisCommand reads a command given as its words: the command's name,
// then its key, then the rest (go-redis's and redigo's Do).
func redisCommand(info *types.Info, method string, args []ast.Expr) (RedisCall, bool) {
	cmd, ok := ConstString(info, args[0])
	if !ok {
		return RedisCall{}, false
	}
	return redisWords(info, method, cmd, args[1:])
}

// redisWords reads a command by its name and the words after it: the
// key, then the rest.
func redisWords(info *types.Info, method, cmd string, args []ast.Expr) (RedisCall, bool) {
	c := RedisCall{Method: method, Key: args[0]}
	switch strings.ToUpper(cmd) {
	case "GET":
		c.Op = RedisGet
	case "EXISTS":
		c.Op = RedisExists
	case "DEL", "UNLINK":
		c.Op = RedisDel
	case "SETNX":
		c.Op = RedisSetNX
	case "GETSET":
		c.Op, c.NilClaims = RedisSetNX, true
	case "ZSCORE", "ZRANK", "ZREVRANK", "ZMSCORE":
		c.Op = RedisZScore
	case "ZADD":
		c.Op = RedisZAdd
	case "ZREM":
		c.Op = RedisZRem
	case "HSETNX":
		c.Op = RedisHSetNX
	case "HSET", "HMSET":
		c.Op = RedisHSet
	case "HDEL":
		c.Op = RedisHDel
	case "HGET", "HGETALL":
		c.Op = RedisHGet
	case "HEXISTS":
		c.Op = RedisHExists
	case "SISMEMBER", "SMISMEMBER":
		c.Op = RedisSIsMember
	case "SADD":
		c.Op = RedisSAdd
	case "SREM":
		c.Op = RedisSRem
	case "INCR", "INCRBY":
		c.Op = RedisIncr
	case "LPUSH", "RPUSH":
		c.Op = RedisPush
	case "XADD":
		c.Op = RedisXAdd
	case "SET":
		c.Op = RedisSet
		if len(args) < 2 {
			return RedisCall{}, false
		}
		for _, a := range args[2:] { // the options after the value
			opt, isConst := ConstString(info, a)
			switch {
			case !isConst:
				continue // an expiry number
			case strings.EqualFold(opt, "NX"):
				c.Op = RedisSetNX
			case strings.EqualFold(opt, "GET"):
				c.NilClaims = true
			case strings.EqualFold(opt, "XX"), strings.HasPrefix(strings.ToUpper(opt), "IF"):
				return RedisCall{}, false
			}
		}
	default:
		return RedisCall{}, false
	}
	c.NilClaims = c.NilClaims && c.Op == RedisSetNX
	c.Command = strings.ToUpper(cmd)
	return c.operands(args[1:], false)
}
