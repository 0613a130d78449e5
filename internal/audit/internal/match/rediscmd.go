package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
	"strings"
)

// redisV8Path is go-redis v8, whose commands have v9's names and
// signatures.
const redisV8Path = "github.com/go-redis/redis/v8"

// operands completes a command from the arguments after its key (rest,
// spread with ... when ellipsis): the command's name, the fields or
// members, and XADD's stream, which travels in its arguments struct.
func (c RedisCall) operands(rest []ast.Expr, ellipsis bool) (RedisCall, bool) {
	if c.Command == "" {
		c.Command = strings.ToUpper(c.Method)
		switch c.Method {
		case "SetArgs":
			c.Command = "SET"
		case "ZAddNX", "ZAddArgs":
			c.Command = "ZADD"
		}
	}
	if ellipsis {
		rest = nil // SAdd(ctx, key, members...): the members are not known one by one
	}
	switch c.Op {
	case RedisHGet, RedisHExists, RedisHSetNX, RedisHDel, RedisSIsMember, RedisSAdd, RedisSRem:
		if c.Op == RedisHSetNX {
			rest = rest[:min(len(rest), 1)] // the value follows the field
		}
		c.Fields = rest
	case RedisHSet:
		if len(rest) >= 2 { // field, value, field, value; a lone map or struct names no field
			for i := 0; i < len(rest); i += 2 {
				c.Fields = append(c.Fields, rest[i])
			}
		}
	case RedisZScore, RedisZRem:
		c.Fields = rest
	case RedisZAdd:
		members, ok := zaddMembers(c.Method, rest)
		if !ok {
			return RedisCall{}, false
		}
		c.Fields = members
	case RedisXAdd:
		if c.Method != "XAdd" {
			break
		}
		stream, ok := fieldValue(c.Key, "Stream")
		if !ok {
			return RedisCall{}, false
		}
		c.Key = stream
	}
	return c, true
}

// zaddMembers returns the members a ZADD adds, from what follows its
// key: redis.Z literals (ZAdd, ZAddNX), a redis.ZAddArgs literal's
// Members, or the words of Do("ZADD", key, "NX", score, member). A ZADD
// that only updates (XX) or answers with a score (INCR) or with the
// members changed as well as added (CH) is false: its reply does not say
// whether the member was new.
func zaddMembers(method string, rest []ast.Expr) ([]ast.Expr, bool) {
	switch method {
	case "ZAdd", "ZAddNX":
		var out []ast.Expr
		for _, z := range rest {
			if m, ok := fieldValue(z, "Member"); ok {
				out = append(out, m)
			}
		}
		return out, true
	case "ZAddArgs":
		if len(rest) != 1 {
			return nil, false
		}
		for _, opt := range []string{"XX", "Ch"} {
			if v, ok := fieldValue(rest[0], opt); ok && types.ExprString(v) != "false" {
				return nil, false
			}
		}
		members, ok := fieldValue(rest[0], "Members")
		if !ok {
			return nil, true
		}
		lit, _ := ast.Unparen(members).(*ast.CompositeLit)
		if lit == nil {
			return nil, true
		}
		return zaddMembers("ZAdd", lit.Elts)
	}
	var out []ast.Expr
	for i := 0; i < len(rest); i++ {
		if id, ok := ast.Unparen(rest[i]).(*ast.BasicLit); ok && id.Kind == gotoken.STRING {
			switch strings.ToUpper(strings.Trim(id.Value, "`\"")) {
			case "NX", "GT", "LT":
				continue
			case "XX", "CH", "INCR":
				return nil, false
			}
		}
		if i+1 < len(rest) {
			out = append(out, rest[i+1]) // score, member
		}
		i++
	}
	return out, true
}

// fieldValue returns the value given to a field in a composite literal,
// or its address: &redis.XAddArgs{Stream: s}.
func fieldValue(e ast.Expr, name string) (ast.Expr, bool) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok {
		e = u.X
	}
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return nil, false
	}
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value, true
			}
		}
	}
	return nil, false
}

// redisRecord names the record of a hash, set, list or stream command:
// "redis hash payout:{} status" (the field when the first is constant),
// "redis set seen", "redis list jobs". Other commands keep the key's
// shape alone.
func redisRecord(info *types.Info, c RedisCall) string {
	shape := KeyShape(info, c.Key)
	switch c.Op {
	case RedisHGet, RedisHExists, RedisHSet, RedisHSetNX, RedisHDel:
		if len(c.Fields) > 0 {
			if f, ok := ConstString(info, c.Fields[0]); ok {
				return "redis hash " + shape + " " + f
			}
		}
		return "redis hash " + shape
	case RedisSIsMember, RedisSAdd, RedisSRem:
		return "redis set " + shape
	case RedisPush:
		return "redis list " + shape
	case RedisXAdd:
		return "redis stream " + shape
	case RedisZScore, RedisZAdd, RedisZRem:
		return "redis zset " + shape
	}
	return "redis " + shape
}

// redisMore completes the Access of a command redisAccess's first cases
// do not know: its operation, record, keys and result.
func redisMore(info *types.Info, c RedisCall, a Access) (Access, bool) {
	switch c.Op {
	case RedisHGet, RedisHExists, RedisSIsMember, RedisZScore:
		a.Op = OpRead
	case RedisHSet, RedisSAdd, RedisZAdd:
		a.Op = OpWrite
		a.ReportsAdded = c.Method != "HMSet" && c.Command != "HMSET"
	case RedisHSetNX:
		a.Op = OpClaim
	case RedisHDel, RedisSRem, RedisZRem:
		a.Op = OpDelete
	case RedisIncr, RedisPush, RedisXAdd:
		a.Op, a.Appends = OpWrite, true
		a.ReportsAdded = c.Op == RedisIncr
	default:
		return Access{}, false
	}
	a.What = c.Command
	a.Record = redisRecord(info, c)
	a.Keys = append([]ast.Expr{c.Key}, c.Fields...)
	return a, true
}

// redisPlace marks an access made in a pipeline, whose reply is a future
// that cannot gate what the same function does next, and one made in a
// WATCH transaction: on the *redis.Tx of a Watch callback, or in a
// pipeline that Tx opened (TxPipelined, TxPipeline).
func redisPlace(info *types.Info, call *ast.CallExpr, a *Access) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	switch redisType(info.TypeOf(sel.X)) {
	case "Tx":
		a.InWatch = true
	case "Pipeliner", "Pipeline":
		a.Pipelined = true
		a.InWatch = openedByTx(info, sel.X)
	}
}

// redisType returns the name of a go-redis type, under a pointer, or "".
func redisType(t types.Type) string {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	if p := n.Obj().Pkg().Path(); p != redisPath && p != redisV8Path {
		return ""
	}
	return n.Obj().Name()
}

// openedByTx reports whether the pipeline pipe was opened by a *redis.Tx:
// the parameter of a callback given to its TxPipelined or Pipelined, or a
// variable holding its TxPipeline() or Pipeline().
func openedByTx(info *types.Info, pipe ast.Expr) bool {
	id, ok := ast.Unparen(pipe).(*ast.Ident)
	if !ok {
		return false
	}
	if v, _, later, ok := definition(info, id); ok && len(later) == 0 {
		call, ok := ast.Unparen(v).(*ast.CallExpr)
		return ok && onTx(info, call)
	}
	obj := info.Uses[id]
	if obj == nil {
		return false
	}
	path := enclosing(info, obj.Pos())
	for i, n := range path {
		lit, ok := n.(*ast.FuncLit)
		if !ok || i+1 >= len(path) {
			continue
		}
		call, ok := path[i+1].(*ast.CallExpr)
		return ok && lit.Type.Params.Pos() <= obj.Pos() && obj.Pos() < lit.Type.Params.End() && onTx(info, call)
	}
	return false
}

// onTx reports whether call is a method called on a *redis.Tx.
func onTx(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && redisType(info.TypeOf(sel.X)) == "Tx"
}

// redisGuarded reads a go-redis SET that writes only over what is there:
// SetXX, SetArgs{Mode: "XX"}, Do(ctx, "SET", k, v, "XX") or a condition
// on the value (IFEQ, IFNE). Redis leaves these out, as neither a blind
// write nor a claim; to Classify they are guarded updates.
func redisGuarded(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !(inPackage(fn, redisPath) || inPackage(fn, redisV8Path)) || len(call.Args) < 3 || call.Ellipsis.IsValid() {
		return Access{}, false
	}
	key, mode := call.Args[1], ""
	switch fn.Name() {
	case "SetXX":
		mode = "XX"
	case "SetArgs":
		if len(call.Args) == 4 {
			mode, _, _ = setArgsMode(info, call.Args[3])
		}
	case "Do":
		if cmd, ok := ConstString(info, call.Args[1]); !ok || !strings.EqualFold(cmd, "SET") || len(call.Args) < 4 {
			return Access{}, false
		}
		key = call.Args[2]
		for _, a := range call.Args[4:] {
			if opt, ok := ConstString(info, a); ok && conditionalSet(opt) {
				mode = opt
			}
		}
	}
	if !conditionalSet(mode) {
		return Access{}, false
	}
	a := Access{Op: OpGuarded, What: "SET " + strings.ToUpper(mode), Record: "redis " + KeyShape(info, key),
		Target: types.ExprString(key), Keys: []ast.Expr{key}, Call: call}
	a.KeyRecord = a.Record
	redisPlace(info, call, &a)
	return a, true
}

// conditionalSet reports whether a SET option makes the write depend on
// what is stored: XX, IFEQ, IFNE.
func conditionalSet(opt string) bool {
	return strings.EqualFold(opt, "XX") || strings.HasPrefix(strings.ToUpper(opt), "IF")
}
