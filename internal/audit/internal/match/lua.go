package match

import (
	"go/ast"
	"go/constant"
	gotoken "go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A Lua script run through go-redis, redigo or rueidis is one command to
// the checks when its source is a constant in sight: the commands it calls
// on its KEYS decide which. A script that sets a key only when it is absent
// (SET ... NX, SETNX, HSETNX, or an EXISTS or GET test, in an if or before
// an and or or, that comes before a SET or HSET of the key) and returns
// something is a claim of the key, and so is a GETSET (or SET ... GET)
// whose old value it hands back or keeps: of two callers, one is told the
// key was absent; one that
// deletes the key, alone or after comparing its value with an argument
// (the token-guarded unlock), is a DEL; one that sets the key without a
// condition is a SET of the value it writes; one that only reads it is a
// GET or EXISTS. Any other command on the key (INCR, a compare-and-set, a
// PEXPIRE of a held lock) leaves the script unread.

// luaArg is one argument of a redis.call in a script.
type luaArg struct {
	text  string // a string literal's content
	isLit bool
	num   bool // a number literal
	key   int  // KEYS[n], from 1; 0 when not
	argv  int  // ARGV[n], from 1; 0 when not
}

// luaCall is one redis.call or redis.pcall of a script.
type luaCall struct {
	pos   int
	cmd   string   // upper case
	args  []luaArg // the words after the command
	bound string   // the variable its reply is assigned to, or ""
	// returned marks a call whose reply the script returns as it is
	returned bool
	// guards marks a call whose reply, compared or not, is the left
	// operand of an and or an or: the right one runs or not by it
	guards bool
	guard  string // the text between the call and that and or or
}

// luaKey is what a script does to one of its KEYS.
type luaKey struct {
	get, exists, set, setnx, hsetnx, del, other bool
	hset                                        bool // HSET or HMSET of the key's fields
	swap                                        bool // a GETSET whose old value the script hands back or keeps
	tested, compared                            bool
	nilTaken                                    bool // a SET NX whose reply is returned: nil when the key is held
	testAt, setAt                               int
	value                                       luaArg // what a SET or SETNX writes
	field                                       luaArg // HSETNX's field
}

var (
	luaComment = regexp.MustCompile(`(?s)--\[\[.*?\]\]|--[^\n]*`)
	luaCallRE  = regexp.MustCompile(`redis\.p?call\s*\(`)
	luaAlias   = regexp.MustCompile(`(?:local\s+)?([A-Za-z_]\w*)\s*=\s*(?:tonumber\s*\(\s*)?(KEYS|ARGV)\s*\[\s*(\d+)\s*\]`)
	luaAliases = regexp.MustCompile(`(?:local\s+)?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*=\s*([^\n;]+)`)
	luaGuard   = regexp.MustCompile(`^\s*((?:(?:==|~=|<=|>=|<|>)\s*(?:[\w.]+|'[^']*'|"[^"]*"|(?:KEYS|ARGV)\s*\[\s*\d+\s*\])\s*)?)(and|or)\b`)
	luaRef     = regexp.MustCompile(`^(?:tonumber\s*\(\s*)?(KEYS|ARGV)\s*\[\s*(\d+)\s*\]\s*\)?$`)
	luaBind    = regexp.MustCompile(`(?:local\s+)?([A-Za-z_]\w*)\s*=\s*$`)
	luaCond    = regexp.MustCompile(`(?s)\b(?:if|elseif)\b(.*?)\bthen\b`)
	luaNumber  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	luaReturn  = regexp.MustCompile(`\breturn\b`)
	luaReturns = regexp.MustCompile(`\breturn\s*$`)
)

// luaIgnored are commands that change no record a check tells apart: a
// key's expiry and its reading.
var luaIgnored = []string{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "TTL", "PTTL", "PERSIST"}

// readLua returns the calls of a script's source, the spans of its
// conditions, whether it returns a value, the source with its comments
// blanked (the spans' and calls' positions are in it) and the variables
// its arguments are assigned to (local token = ARGV[1]).
func readLua(src string) (calls []luaCall, conds [][2]int, returns bool, text string, alias map[string]luaArg) {
	src = luaComment.ReplaceAllStringFunc(src, func(s string) string { return strings.Repeat(" ", len(s)) })
	alias = map[string]luaArg{}
	for _, m := range luaAlias.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[3])
		if m[2] == "KEYS" {
			alias[m[1]] = luaArg{key: n}
		} else {
			alias[m[1]] = luaArg{argv: n}
		}
	}
	// local key, ttl = KEYS[1], ARGV[1]
	for _, m := range luaAliases.FindAllStringSubmatch(src, -1) {
		values, _ := luaWords(m[2] + ")")
		for i, name := range strings.Split(m[1], ",") {
			if i < len(values) {
				if a := luaWord(values[i], nil); a.key > 0 || a.argv > 0 {
					alias[strings.TrimSpace(name)] = a
				}
			}
		}
	}
	for _, loc := range luaCallRE.FindAllStringIndex(src, -1) {
		words, end := luaWords(src[loc[1]:])
		if len(words) == 0 {
			continue
		}
		name := luaWord(words[0], alias)
		if !name.isLit {
			continue
		}
		c := luaCall{pos: loc[0], cmd: strings.ToUpper(name.text)}
		for _, w := range words[1:] {
			c.args = append(c.args, luaWord(w, alias))
		}
		if m := luaBind.FindStringSubmatch(src[:loc[0]]); m != nil && m[1] != "return" {
			c.bound = m[1]
		}
		c.returned = luaReturns.MatchString(src[:loc[0]])
		// x or y with no comparison gives x a default ('' when absent), no test
		if m := luaGuard.FindStringSubmatch(src[loc[1]+end:]); m != nil && (m[2] == "and" || strings.TrimSpace(m[1]) != "") {
			c.guards, c.guard = true, m[1]
		}
		calls = append(calls, c)
	}
	for _, m := range luaCond.FindAllStringSubmatchIndex(src, -1) {
		conds = append(conds, [2]int{m[2], m[3]})
	}
	return calls, conds, luaReturn.MatchString(src), src, alias
}

// luaWords splits the arguments of a call whose open parenthesis has been
// read, up to its close, and returns where the text after the close
// starts; -1 when the call does not close.
func luaWords(s string) ([]string, int) {
	var words []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' && depth == 0:
			words = append(words, strings.TrimSpace(s[start:i]))
			return words, i + 1
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		case ch == ',' && depth == 0:
			words = append(words, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return nil, -1
}

// luaWord reads one argument.
func luaWord(w string, alias map[string]luaArg) luaArg {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return luaArg{text: w[1 : len(w)-1], isLit: true}
	}
	if m := luaRef.FindStringSubmatch(w); m != nil {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "KEYS" {
			return luaArg{key: n}
		}
		return luaArg{argv: n}
	}
	if a, ok := alias[w]; ok {
		return a
	}
	if luaNumber.MatchString(w) {
		return luaArg{text: w, num: true}
	}
	return luaArg{}
}

// luaKeys reads what a script does to each of its KEYS, and whether it
// returns a value.
func luaKeys(src string) (map[int]*luaKey, bool) {
	calls, conds, returns, src, alias := readLua(src)
	keys := map[int]*luaKey{}
	at := func(n int) *luaKey {
		if keys[n] == nil {
			keys[n] = &luaKey{}
		}
		return keys[n]
	}
	for _, c := range calls {
		if len(c.args) == 0 || c.args[0].key == 0 || slices.Contains(luaIgnored, c.cmd) {
			continue
		}
		k := at(c.args[0].key)
		switch c.cmd {
		case "GET":
			k.get = true
		case "EXISTS":
			k.exists = true
		case "DEL", "UNLINK":
			k.del = true
		case "SETNX":
			k.setnx = true
			if len(c.args) > 1 {
				k.value = c.args[1]
			}
		case "HSETNX":
			k.hsetnx = true
			if len(c.args) > 1 {
				k.field = c.args[1]
			}
		case "HSET", "HMSET":
			k.hset = true
			if k.setAt == 0 {
				k.setAt = c.pos + 1
			}
		case "GETSET":
			k.setSwap(c, 1)
		case "SET", "SETEX", "PSETEX":
			v := 1
			if c.cmd != "SET" {
				v = 2
			}
			if len(c.args) <= v {
				k.other = true
				continue
			}
			nx, swap := false, false
			for _, opt := range c.args[v+1:] {
				switch {
				case opt.isLit && strings.EqualFold(opt.text, "NX"):
					nx = true
				case opt.isLit && strings.EqualFold(opt.text, "GET"):
					swap = true
				case opt.isLit && (strings.EqualFold(opt.text, "XX") || strings.HasPrefix(strings.ToUpper(opt.text), "IF")):
					k.other = true
				}
			}
			switch {
			case swap && !nx && c.cmd == "SET":
				k.setSwap(c, v)
				continue
			case swap:
				k.other = true
			}
			if nx {
				k.setnx = true
				k.nilTaken = c.cmd == "SET" && c.returned
			} else {
				k.set = true
				if k.setAt == 0 {
					k.setAt = c.pos + 1
				}
			}
			k.value = c.args[v]
		default:
			k.other = true
		}
	}
	// the tests: a GET or EXISTS of a key in an if's condition, or its
	// reply held in a variable the condition reads; a condition that
	// reads an argument compares the value with it.
	for _, c := range calls {
		if len(c.args) == 0 || c.args[0].key == 0 || (c.cmd != "GET" && c.cmd != "EXISTS") {
			continue
		}
		if c.guards {
			// return redis.call('exists', KEYS[1]) < 1 and redis.call('setex', ...)
			k := keys[c.args[0].key]
			if strings.Contains(c.guard, "ARGV") || luaMentionsArgv(alias, c.guard) {
				k.compared = true
			} else if !k.tested {
				k.tested, k.testAt = true, c.pos+1
			}
		}
		for _, cond := range conds {
			in := cond[0] <= c.pos && c.pos < cond[1]
			text := src[cond[0]:cond[1]]
			if !in && (c.bound == "" || !luaMentions(text, c.bound) || cond[0] < c.pos) {
				continue
			}
			k := keys[c.args[0].key]
			if strings.Contains(text, "ARGV") || luaMentionsArgv(alias, text) {
				k.compared = true
				continue
			}
			if !k.tested {
				k.tested, k.testAt = true, c.pos+1
			}
		}
	}
	return keys, returns
}

// setSwap records a GETSET, or a SET ... GET, of the key: the value it
// writes is its argument v. Its old value handed back (returned, or kept
// in a variable) tells the one caller that found the key absent: a claim.
// Dropped, it is a SET.
func (k *luaKey) setSwap(c luaCall, v int) {
	if len(c.args) <= v {
		k.other = true
		return
	}
	k.value = c.args[v]
	if c.returned || c.bound != "" {
		k.swap = true
		return
	}
	k.set = true
	if k.setAt == 0 {
		k.setAt = c.pos + 1
	}
}

// luaMentionsArgv reports whether a condition reads a variable an
// argument was assigned to.
func luaMentionsArgv(alias map[string]luaArg, cond string) bool {
	for name, a := range alias {
		if a.argv > 0 && luaMentions(cond, name) {
			return true
		}
	}
	return false
}

// luaMentions reports whether text reads the variable name, as a whole
// word.
func luaMentions(text, name string) bool {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(text)
}

// op returns the command a script amounts to on the key, or 0.
func (k *luaKey) op(returns bool) RedisOp {
	switch {
	case k.other:
		return 0
	case k.compared:
		if k.del && !k.set && !k.setnx && !k.hsetnx {
			return RedisDel // compare-and-delete: the token-guarded unlock
		}
		return 0
	case k.del:
		if k.get || k.exists || k.set || k.setnx || k.hsetnx || k.hset || k.swap {
			return 0
		}
		return RedisDel
	case k.swap:
		if k.set || k.setnx || k.hsetnx || k.hset || k.get || k.exists || !returns {
			return 0
		}
		return RedisSetNX
	case k.hset:
		// HSET of a key an EXISTS or GET test found absent: a claim
		if k.tested && k.testAt < k.setAt && !k.set && !k.setnx && !k.hsetnx && returns {
			return RedisSetNX
		}
		return 0
	case k.setnx && !k.set:
		if !returns {
			return 0
		}
		return RedisSetNX
	case k.hsetnx && !k.set:
		if !returns {
			return 0
		}
		return RedisHSetNX
	case k.set && k.tested && k.testAt < k.setAt && !k.setnx && !k.hsetnx:
		if !returns {
			return 0
		}
		return RedisSetNX
	case k.set && !k.get && !k.exists && !k.setnx && !k.hsetnx:
		return RedisSet
	case k.setnx || k.hsetnx || k.set:
		return 0
	case k.get:
		return RedisGet
	case k.exists:
		return RedisExists
	}
	return 0
}

// luaRank orders what a script does to its keys by how much it says of the
// whole, as batchRank does a transaction's parts.
var luaRank = []RedisOp{RedisSetNX, RedisHSetNX, RedisDel, RedisSet, RedisGet, RedisExists}

// scriptRun is a call that runs a script: its source, the keys and the
// arguments it is given (args is nil when they are not known one by one).
type scriptRun struct {
	src  string
	keys []ast.Expr
	args []ast.Expr
}

// redisScript reads a call that runs a Lua script whose source is a
// constant in sight: go-redis's Script Run, RunRO, Eval, EvalRO, EvalSha
// and EvalShaRO, and a client's Eval and EvalRO given the source; redigo's
// Script Do, DoContext, Send and SendHash; rueidis's Lua Exec. The
// script's key (the element of the keys given at the KEYS index the
// script acts on) is the command's key.
func redisScript(info *types.Info, call *ast.CallExpr, fn *types.Func) (RedisCall, bool) {
	run, ok := scriptCall(info, call, fn, inSight(info))
	if !ok {
		return RedisCall{}, false
	}
	return scriptCommand(run, fn)
}

// scriptCommand reads what a script run does to the key it says most of.
func scriptCommand(run scriptRun, fn *types.Func) (RedisCall, bool) {
	keys, returns := luaKeys(run.src)
	best, bestOp := 0, RedisOp(0)
	for n, k := range keys {
		op := k.op(returns)
		if op == 0 || n > len(run.keys) {
			continue
		}
		r, rb := slices.Index(luaRank, op), slices.Index(luaRank, bestOp)
		if bestOp == 0 || r < rb || r == rb && n < best {
			best, bestOp = n, op
		}
	}
	if bestOp == 0 {
		return RedisCall{}, false
	}
	k := keys[best]
	c := RedisCall{Op: bestOp, Method: fn.Name(), Key: run.keys[best-1], Command: bestOp.String(), Script: true}
	switch bestOp {
	case RedisSet, RedisSetNX:
		c.Command = "SET"
		if bestOp == RedisSetNX {
			c.Command = "SET NX"
		}
		c.value, c.luaValue = scriptValue(run, k.value)
		c.NilTaken = bestOp == RedisSetNX && k.nilTaken
	case RedisHSetNX:
		c.Command = "HSETNX"
		if f, _ := scriptValue(run, k.field); f != nil {
			c.Fields = []ast.Expr{f}
		}
	}
	return c, true
}

// scriptValue returns the Go expression an argument of the script is
// given by, or the constant it is in the script.
func scriptValue(run scriptRun, a luaArg) (ast.Expr, constant.Value) {
	switch {
	case a.argv > 0 && a.argv <= len(run.args):
		return run.args[a.argv-1], nil
	case a.isLit:
		return nil, constant.MakeString(a.text)
	case a.num:
		kind := gotoken.INT
		if strings.Contains(a.text, ".") {
			kind = gotoken.FLOAT
		}
		return nil, constant.MakeFromLiteral(strings.TrimPrefix(a.text, "-"), kind, 0)
	}
	return nil, nil
}

// scriptSources read a script's source from what the call that runs it
// is given: script from the script value a Script or Lua method is
// called on (with redigo's count of keys, -1 where the script does not
// say), text from the source a client's Eval is given, sha from the SHA
// a client's EvalSha is given (nil: EvalSha is not read).
type scriptSources struct {
	script func(ast.Expr) (src string, keys int, ok bool)
	text   func(ast.Expr) (string, bool)
	sha    func(ast.Expr) (string, bool)
}

// inSight reads the sources redisScript does: constants in sight.
func inSight(info *types.Info) scriptSources {
	return scriptSources{
		script: func(e ast.Expr) (string, int, bool) { return scriptSource(info, e) },
		text:   func(e ast.Expr) (string, bool) { return stringValue(info, e) },
	}
}

// scriptCall reads the keys and arguments of a call that runs a script,
// and its source with read: go-redis's Script methods and a client's
// Eval, EvalRO, EvalSha and EvalShaRO, redigo's Script methods, rueidis's
// Lua Exec.
func scriptCall(info *types.Info, call *ast.CallExpr, fn *types.Func, read scriptSources) (scriptRun, bool) {
	if fn == nil || fn.Signature().Recv() == nil {
		return scriptRun{}, false
	}
	goRedis := inPackage(fn, redisPath) || inPackage(fn, redisV8Path)
	recv := typeName(fn.Signature().Recv().Type())
	var run scriptRun
	switch {
	case goRedis && recv == "Script":
		if !slices.Contains([]string{"Run", "RunRO", "Eval", "EvalRO", "EvalSha", "EvalShaRO"}, fn.Name()) || len(call.Args) < 3 {
			return scriptRun{}, false
		}
		src, _, ok := read.script(receiverOf(call))
		if !ok {
			return scriptRun{}, false
		}
		run = scriptRun{src: src, keys: sliceElems(info, call.Args[2]), args: variadic(info, call, 3)}
	case goRedis:
		if len(call.Args) < 3 {
			return scriptRun{}, false
		}
		var src string
		var ok bool
		switch fn.Name() {
		case "Eval", "EvalRO":
			src, ok = read.text(call.Args[1])
		case "EvalSha", "EvalShaRO":
			if read.sha != nil {
				src, ok = read.sha(call.Args[1])
			}
		}
		if !ok {
			return scriptRun{}, false
		}
		run = scriptRun{src: src, keys: sliceElems(info, call.Args[2]), args: variadic(info, call, 3)}
	case inPackage(fn, redigoPath) && recv == "Script":
		from := 1
		switch fn.Name() {
		case "Do", "Send", "SendHash":
		case "DoContext":
			from = 2
		default:
			return scriptRun{}, false
		}
		src, n, ok := read.script(receiverOf(call))
		if !ok || n < 0 || call.Ellipsis.IsValid() || len(call.Args) < from+n {
			return scriptRun{}, false
		}
		rest := call.Args[from:]
		run = scriptRun{src: src, keys: rest[:n], args: rest[n:]}
	case inPackage(fn, rueidisPath) && recv == "Lua":
		if fn.Name() != "Exec" || len(call.Args) < 4 {
			return scriptRun{}, false
		}
		src, _, ok := read.script(receiverOf(call))
		if !ok {
			return scriptRun{}, false
		}
		run = scriptRun{src: src, keys: sliceElems(info, call.Args[2]), args: sliceElems(info, call.Args[3])}
	default:
		return scriptRun{}, false
	}
	return run, len(run.keys) > 0
}

// variadic returns a call's arguments from i on, or the elements of the
// slice literal spread there, or nil.
func variadic(info *types.Info, call *ast.CallExpr, i int) []ast.Expr {
	if i > len(call.Args) {
		return nil
	}
	if call.Ellipsis.IsValid() {
		return sliceElems(info, call.Args[len(call.Args)-1])
	}
	return call.Args[i:]
}

// sliceElems returns the elements of a slice literal, given directly or
// through a local variable assigned once (see literalOf), or nil.
func sliceElems(info *types.Info, e ast.Expr) []ast.Expr {
	lit := literalOf(info, e, 0)
	if lit == nil {
		return nil
	}
	for _, elt := range lit.Elts {
		if _, ok := elt.(*ast.KeyValueExpr); ok {
			return nil
		}
	}
	return lit.Elts
}

// scriptSource returns the source of the script e holds, made by
// NewScript (go-redis, redigo, with redigo's count of keys) or rueidis's
// NewLuaScript, directly or through a local or package variable; keys is
// -1 where the script does not say.
func scriptSource(info *types.Info, e ast.Expr) (src string, keys int, ok bool) {
	if id, isIdent := ast.Unparen(e).(*ast.Ident); isIdent {
		if e = valueOf(info, id); e == nil {
			return "", 0, false
		}
	}
	call, isCall := ast.Unparen(e).(*ast.CallExpr)
	if !isCall {
		return "", 0, false
	}
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Signature().Recv() != nil {
		return "", 0, false
	}
	switch {
	case (inPackage(fn, redisPath) || inPackage(fn, redisV8Path)) && fn.Name() == "NewScript" && len(call.Args) == 1:
		src, ok = stringValue(info, call.Args[0])
		return src, -1, ok
	case inPackage(fn, redigoPath) && fn.Name() == "NewScript" && len(call.Args) == 2:
		tv := info.Types[call.Args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.Int {
			return "", 0, false
		}
		n, exact := constant.Int64Val(tv.Value)
		if !exact || n < 0 {
			return "", 0, false
		}
		src, ok = stringValue(info, call.Args[1])
		return src, int(n), ok
	case inPackage(fn, rueidisPath) && strings.HasPrefix(fn.Name(), "NewLuaScript") && len(call.Args) >= 1:
		src, ok = stringValue(info, call.Args[0])
		return src, -1, ok
	}
	return "", 0, false
}

// stringValue returns a constant string, or the one a variable is
// declared with and never assigned again (a local) or a package variable.
func stringValue(info *types.Info, e ast.Expr) (string, bool) {
	if s, ok := ConstString(info, e); ok {
		return s, true
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v := valueOf(info, id); v != nil {
			return ConstString(info, v)
		}
	}
	return "", false
}

// valueOf returns what a variable is declared with: a local assigned no
// more, or a package variable, whose value a script's is taken to be.
func valueOf(info *types.Info, id *ast.Ident) ast.Expr {
	if v, _, later, ok := definition(info, id); ok {
		if len(later) > 0 {
			return nil
		}
		return v
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	for _, n := range enclosing(info, v.Pos()) {
		if vs, ok := n.(*ast.ValueSpec); ok {
			names := make([]ast.Expr, len(vs.Names))
			for i, name := range vs.Names {
				names[i] = name
			}
			if value, _, ok := declared(info, v, names, vs.Values); ok {
				return value
			}
		}
	}
	return nil
}

// Stored returns what a SET stores: the Go expression of its value, or,
// for a script that writes a constant of its own, that constant.
func (c RedisCall) Stored() (ast.Expr, constant.Value) {
	return c.value, c.luaValue
}
