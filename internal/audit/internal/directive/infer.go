package directive

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// lockWords name a key, helper or type that only excludes concurrent
// runs: it is released when the work ends, never completed with a result.
var lockWords = []string{"lock", "locks", "locker", "mutex", "leader", "semaphore"}

// Lockish reports whether a name (a key expression, a function, a type)
// is one of a lock.
func Lockish(name string) bool {
	return slices.ContainsFunc(match.Words(name), func(w string) bool { return slices.Contains(lockWords, w) })
}

// acquireWords name a helper that takes something for its caller: with a
// key parameter and a returned func, such a helper is a lock or a claim
// whatever library it uses underneath.
var acquireWords = []string{"lock", "acquire", "claim", "reserve", "obtain"}

// ClaimInsert reports whether a SQL call is an INSERT that claims a key:
// it writes a status saying the work has begun (see insertsInProgress)
// into a table whose name or columns say it holds keys, or with ON
// CONFLICT, which makes the row's absence the test, whatever the names.
func ClaimInsert(info *types.Info, call *ast.CallExpr, sc match.SQLCall) (table string, ok bool) {
	st := sc.Statement()
	if !sc.Const || st.Verb != match.Insert || st.Table == "" {
		return "", false
	}
	if !match.DedupName(st.Table) && !slices.ContainsFunc(st.Columns, match.KeyColumn) && !st.Conditional {
		return "", false
	}
	return st.Table, insertsInProgress(info, call, sc)
}

// ClaimUpdate reports whether a SQL call is an UPDATE that claims a row
// by moving its status: SET status = 'processing' WHERE id = $1 AND
// status = 'queued'. It compares the status it changes, so of two racing
// callers only one moves the row, and the status it sets says the work
// has begun.
func ClaimUpdate(sc match.SQLCall) (table string, ok bool) {
	st := sc.Statement()
	if !sc.Const || st.Verb != match.Update || st.Table == "" || !st.Guarded {
		return "", false
	}
	set := ""
	if m := setClause.FindStringSubmatch(sc.Text); m != nil {
		set = m[1]
	}
	if slices.ContainsFunc(st.Assigned, func(c string) bool {
		return slices.Contains(st.Columns, c) && slices.ContainsFunc(match.Words(c), func(w string) bool { return slices.Contains(ownerWords, w) }) &&
			!regexp.MustCompile(`(?i)\b`+regexp.QuoteMeta(c)+`\s*=\s*(NULL|''|false)\b`).MatchString(set) // SET holder = NULL gives it back
	}) {
		return st.Table, true // SET holder = $2 WHERE name = $1 AND (holder IS NULL OR expires_at < now()): a lease
	}
	m := setClause.FindStringSubmatch(sc.Text)
	if m == nil || !slices.ContainsFunc(match.Literals(m[1]), func(v string) bool { return InProgress(v) && !Waiting(v) }) {
		return "", false // SET status = 'pending' WHERE status = 'processing' hands the row back
	}
	return st.Table, true
}

// waitingStates say a record waits for work that has not begun: moving
// one there hands it back.
var waitingStates = []string{"pending", "queued", "new", "waiting", "scheduled", "ready", "open"}

// Waiting reports whether a status value says the work behind a key has
// not begun: a guarded move to it gives the key back rather than takes
// it.
func Waiting(value string) bool { return slices.Contains(waitingStates, strings.ToLower(value)) }

// ownerWords name a column that says who holds a row: setting it where
// it is compared takes the row for one holder.
var ownerWords = []string{"holder", "owner", "locked", "leased", "claimed", "worker", "lessee"}

// setClause matches an UPDATE's SET clause, up to its WHERE.
var setClause = regexp.MustCompile(`(?is)\bSET\b(.*?)\bWHERE\b`)

// ClaimRow reports whether an access match.Classify read from a query
// builder or ORM (bun, gorm, goqu, go-jet) inserts a row that claims a
// key: an insert that is atomic about an existing row and whose created
// value (a model's field, or a value given to VALUES) sets a status
// saying the work has begun.
func ClaimRow(info *types.Info, a match.Access) bool {
	if a.Op != match.OpClaim || !strings.HasPrefix(a.Record, "sql ") {
		return false
	}
	for _, k := range a.Keys {
		if v, ok := match.ConstString(info, k); ok && InProgress(v) {
			return true // VALUES(k, "processing") of a go-jet INSERT
		}
		if u, ok := ast.Unparen(k).(*ast.UnaryExpr); ok && u.Op == token.AND {
			k = u.X
		}
		lit, ok := ast.Unparen(k).(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if v, ok := match.ConstString(info, kv.Value); ok && InProgress(v) {
					return true
				}
			}
		}
	}
	return false
}

// InProgress reports whether a status value says the work behind a key
// has begun and not finished: match.InProgress's words ('in_progress',
// 'processing', 'pending'), or a single word naming an activity under way
// ('importing', 'sending', 'exporting').
func InProgress(value string) bool {
	if match.InProgress(value) {
		return true
	}
	ws := match.Words(value)
	return len(ws) == 1 && len(ws[0]) > 5 && strings.HasSuffix(ws[0], "ing") && !slices.Contains(notUnderWay, ws[0])
}

// notUnderWay are -ing words that name no activity under way.
var notUnderWay = []string{"missing", "nothing", "something", "string", "billing", "shipping", "pricing", "morning", "evening", "setting", "listing", "building", "ceiling", "failing"}

// insertsInProgress reports whether an INSERT writes a status saying the
// work has begun, in its text or as a constant argument: the row is a
// claim, not the record that the work is done.
func insertsInProgress(info *types.Info, call *ast.CallExpr, sc match.SQLCall) bool {
	if slices.ContainsFunc(match.Literals(sc.Text), InProgress) {
		return true
	}
	if notDoneYet(sc) || bareKeyRow(sc.Statement()) {
		return true
	}
	for _, a := range call.Args {
		if a == sc.Query {
			continue
		}
		if v, ok := match.ConstString(info, a); ok && InProgress(v) {
			return true
		}
	}
	return false
}

// inference reads one function's body for what it does to a key built
// from its parameters.
type inference struct {
	fset  *token.FileSet
	known func(*types.Func) (Fact, bool)
	KeyParams
	// errOnly are the calls of which only Err is read: a SetNX whose bool
	// is dropped says nothing about whether it took the key.
	errOnly map[*ast.CallExpr]bool
}

// infer returns what decl does to a key built from its parameters, when
// its body shows it:
//
//   - a claim: it takes a key (SET NX, HSETNX, an INSERT of an in-progress
//     row into a dedup table, a MongoDB or DynamoDB write of an in-progress
//     document only when it is absent, a call of another claim) and then only
//     reports whether it did, returning bools, counts or an error and
//     doing no other work; or it takes a key and returns the function that
//     gives it back (a lock helper), whatever it uses underneath when its
//     name says it acquires;
//   - a release: it deletes a key (DEL, HDEL, a SQL DELETE, a call of
//     another release) and claims none;
//   - a completion: it writes a key (SET, HSET, a SQL UPDATE, a call of
//     another completion) and claims none.
func infer(fset *token.FileSet, info *types.Info, decl *ast.FuncDecl, fn *types.Func, known func(*types.Func) (Fact, bool)) (Fact, bool) {
	if !candidate(info, decl, fn, known) {
		return Fact{}, false
	}
	in := &inference{fset: fset, known: known, KeyParams: KeyParams{Info: info, Keys: map[*types.Var]int{}}, errOnly: map[*ast.CallExpr]bool{}}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Err" {
			if call, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok {
				in.errOnly[call] = true
			}
		}
		return true
	})
	params := fn.Signature().Params()
	for i := range params.Len() {
		if keyParam(fn.Pkg(), params.At(i).Type()) {
			in.Keys[params.At(i)] = i
		}
	}
	if len(in.Keys) == 0 {
		return Fact{}, false
	}
	in.Derive(decl.Body)
	f := Fact{Inferred: true, Key: -1}
	var claimAt, claimEnd token.Pos
	var claimKey string
	work := false
	statusOnly, withResponse := false, false
	note := func(k Kind, key int, table string) {
		f.Kind |= k
		if f.Key < 0 {
			f.Key = key
		}
		if table != "" && !slices.Contains(f.Tables, table) {
			f.Tables = append(f.Tables, table)
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			work = true
		case *ast.CallExpr:
			k, key, table, what := in.effect(n)
			if k&Claim != 0 && claimAt == 0 {
				claimAt, claimEnd, claimKey = n.Pos(), n.End(), what
			}
			if k&Complete != 0 {
				if in.statusOnly(n) {
					statusOnly = true
				} else {
					withResponse = true
				}
			}
			if k != 0 {
				note(k, key, table)
				return true
			}
			if claimAt != 0 && n.Pos() >= claimEnd && !plumbing(info, n) { // the claim's own arguments build it
				work = true
			}
		}
		return true
	})
	unlock := returnsFunc(fn.Signature())
	switch {
	case f.Kind&Claim != 0:
		if f.Kind != Claim || work && !unlock || !unlock && !reportsOnly(fn.Signature()) {
			return Fact{}, false
		}
		f.Unlock = unlock
		f.Lock = unlock || Lockish(claimKey) || Lockish(fn.Name()) || Lockish(ReceiverName(fn))
	case f.Kind != 0:
		if unlock {
			return Fact{}, false
		}
		f.StatusOnly = statusOnly && !withResponse
	case unlock && slices.ContainsFunc(match.Words(fn.Name()), func(w string) bool { return slices.Contains(acquireWords, w) }):
		f.Kind, f.Unlock = Claim, true
		f.Lock = true
		f.Key = slices.Min(mapValues(in.Keys))
	default:
		return Fact{}, false
	}
	return f, true
}

// candidate reports cheaply whether decl may do something to a key: it
// takes a parameter a key may come from, and calls a store library, an
// interface method (a DBTX, a repository) or a function known to claim,
// release or complete; or it returns a func and is named to acquire.
// go vet runs this analyzer on every dependency for its facts: most
// functions stop here.
func candidate(info *types.Info, decl *ast.FuncDecl, fn *types.Func, known func(*types.Func) (Fact, bool)) bool {
	params := fn.Signature().Params()
	keyed := false
	for i := range params.Len() {
		keyed = keyed || keyParam(fn.Pkg(), params.At(i).Type())
	}
	if !keyed {
		return false
	}
	if returnsFunc(fn.Signature()) {
		return true
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		callee, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok || callee.Pkg() == nil {
			return true
		}
		if recv := callee.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) ||
			match.LibraryPackage(callee.Pkg()) || callee.Pkg().Path() == "database/sql" {
			found = true
		} else if _, ok := known(callee.Origin()); ok {
			found = true
		}
		return !found
	})
	return found
}

func mapValues(m map[*types.Var]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// keyParam reports whether a parameter of type t may carry a key: not a
// context, an interface or a pointer to another package's type (a
// client, a connection), which a key is never read from.
func keyParam(pkg *types.Package, t types.Type) bool {
	if types.IsInterface(t) {
		return false
	}
	if _, ok := types.Unalias(t).Underlying().(*types.Signature); ok {
		return false
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		if n, ok := types.Unalias(p.Elem()).(*types.Named); ok && n.Obj().Pkg() != pkg {
			return false
		}
	}
	return true
}

// KeyParams follows which values of a function body a key is built from:
// Keys holds the parameters a key may be built from, and the locals built
// from them, each with the parameter's index. Derive adds the locals; Param
// tells which parameter an expression is built from.
type KeyParams struct {
	Info *types.Info
	Keys map[*types.Var]int
}

// Derive adds the locals set from the key parameters, or from locals
// already added, to Keys.
func (k *KeyParams) Derive(body *ast.BlockStmt) {
	for changed := true; changed; {
		changed = false
		ast.Inspect(body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for i, l := range as.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				v, ok := k.Info.ObjectOf(id).(*types.Var)
				if !ok {
					continue
				}
				if _, done := k.Keys[v]; done {
					continue
				}
				rhs := as.Rhs[0]
				if len(as.Lhs) == len(as.Rhs) {
					rhs = as.Rhs[i]
				}
				if p := k.Param(rhs); p >= 0 {
					k.Keys[v], changed = p, true
				}
			}
			return true
		})
	}
}

// Param returns the index of the key parameter e is built from, or -1.
func (k *KeyParams) Param(e ast.Expr) int {
	at := -1
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && at < 0 {
			if v, ok := k.Info.Uses[id].(*types.Var); ok {
				if p, ok := k.Keys[v]; ok {
					at = p
				}
			}
		}
		return at < 0
	})
	return at
}

// effect returns what call does to a key built from the parameters: its
// kind, the parameter the key comes from, the SQL table, and the key as
// written.
func (in *inference) effect(call *ast.CallExpr) (k Kind, key int, table, what string) {
	info := in.Info
	if rc, ok := match.Redis(info, call); ok {
		key = in.Param(rc.Key)
		if key < 0 {
			return 0, -1, "", ""
		}
		switch rc.Op {
		case match.RedisSetNX, match.RedisHSetNX:
			if in.errOnly[call] && (rc.Method == "SetNX" || rc.Method == "HSetNX" || rc.Script && !rc.NilTaken) {
				return 0, -1, "", "" // SetNX(...).Err(): nil whether or not it set the key
			}
			return Claim, key, "", types.ExprString(rc.Key)
		case match.RedisDel, match.RedisHDel:
			return Release, key, "", ""
		case match.RedisSet, match.RedisHSet:
			if inProgressValue(info, call) || rc.Script && scriptInProgress(info, rc) {
				return 0, -1, "", ""
			}
			return Complete, key, "", ""
		}
		return 0, -1, "", ""
	}
	if sc, ok := match.SQL(info, call); ok && sc.Const {
		key = -1
		for _, a := range call.Args {
			if a != sc.Query && key < 0 {
				key = in.Param(a)
			}
		}
		st := sc.Statement()
		if key < 0 || st.Table == "" {
			return 0, -1, "", ""
		}
		switch st.Verb {
		case match.Insert:
			if _, ok := ClaimInsert(info, call, sc); ok {
				return Claim, key, st.Table, st.Table
			}
		case match.Delete:
			return Release, key, st.Table, ""
		case match.Update:
			if _, ok := ClaimUpdate(sc); ok {
				return Claim, key, st.Table, st.Table
			}
			if !slices.ContainsFunc(match.Literals(sc.Text), match.InProgress) {
				return Complete, key, st.Table, ""
			}
		}
		return 0, -1, "", ""
	}
	if a, ok := match.Classify(in.fset, info, call); ok && (strings.HasPrefix(a.Record, "sql ") || strings.HasPrefix(a.Record, "redis ") || DocStore(a.Record)) {
		key = -1
		for _, k := range a.Keys {
			if key < 0 {
				key = in.Param(k)
			}
		}
		if key < 0 {
			return 0, -1, "", ""
		}
		table := ""
		if strings.HasPrefix(a.Record, "sql ") || DocStore(a.Record) {
			table = a.Target
		}
		switch {
		case DocStore(a.Record) && a.Op == match.OpClaim:
			if ClaimDoc(info, a) {
				return Claim, key, table, types.ExprString(a.Keys[0])
			}
			return 0, -1, "", ""
		case a.Op == match.OpClaim && table == "":
			return Claim, key, "", types.ExprString(a.Keys[0]) // SET NX through redigo
		case ClaimRow(info, a):
			return Claim, key, table, table
		case a.Op == match.OpDelete:
			return Release, key, table, ""
		case a.Op == match.OpUpdate || a.Op == match.OpGuarded || a.Op == match.OpWrite && table == "":
			return Complete, key, table, ""
		}
		return 0, -1, "", ""
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return 0, -1, "", ""
	}
	f, ok := in.known(fn.Origin())
	if !ok {
		return 0, -1, "", ""
	}
	key = -1
	if f.Key >= 0 && f.Key < len(call.Args) {
		key = in.Param(call.Args[f.Key])
	} else {
		for _, a := range call.Args {
			if key < 0 {
				key = in.Param(a)
			}
		}
	}
	if key < 0 {
		return 0, -1, "", ""
	}
	what = fn.Name()
	if f.Lock {
		what = "lock"
	}
	var t string
	if len(f.Tables) > 0 {
		t = f.Tables[0]
	}
	return f.Kind, key, t, what
}

// bodyWords name a parameter, field or column that holds a response.
var bodyWords = []string{"response", "resp", "body", "result", "payload", "reply", "output"}

// BodyName reports whether a name (a parameter, field, column or hash
// field) holds a response.
func BodyName(name string) bool {
	ws := match.Words(name)
	if len(ws) > 1 && slices.Contains(metaWords, ws[len(ws)-1]) {
		return false // response_code, result_status, response_headers: about the response, not it
	}
	return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(bodyWords, w) })
}

// metaWords end the names of what describes a response without holding
// it: its status code, headers, size, hash or time.
var metaWords = []string{"code", "status", "headers", "header", "at", "time", "size", "length", "len", "hash", "type"}

// statusOnly reports whether a completing call stores a status and no
// response: a Redis SET of a constant, an HSET of constant fields none of
// which holds a response, an UPDATE assigning no response column, or a
// call of a helper that is a status-only completion.
func (in *inference) statusOnly(call *ast.CallExpr) bool {
	info := in.Info
	if rc, ok := match.Redis(info, call); ok {
		switch rc.Op {
		case match.RedisSet:
			if rc.Script {
				value, lua := rc.Stored()
				return lua != nil || value != nil && info.Types[value].Value != nil
			}
			at := 2
			if rc.Method == "Do" {
				at = 3
			}
			return at < len(call.Args) && info.Types[call.Args[at]].Value != nil
		case match.RedisHSet:
			fields, ok := HashFields(info, call)
			return ok && !slices.ContainsFunc(fields, BodyName)
		}
		return false
	}
	if sc, ok := match.SQL(info, call); ok {
		st := sc.Statement()
		return len(st.Assigned) > 0 && !slices.ContainsFunc(st.Assigned, BodyName)
	}
	if a, ok := match.Classify(in.fset, info, call); ok && DocStore(a.Record) {
		return docStatusOnly(info, call)
	}
	if fn, ok := typeutil.Callee(info, call).(*types.Func); ok {
		f, ok := in.known(fn.Origin())
		return ok && f.StatusOnly
	}
	return false
}

// HashFields returns the field names a go-redis HSET or HMSET writes when
// they are all constant: HSet(ctx, key, "status", "done", ...) or
// HSet(ctx, key, map[string]any{"status": "done"}).
func HashFields(info *types.Info, call *ast.CallExpr) ([]string, bool) {
	if len(call.Args) < 3 || call.Ellipsis.IsValid() {
		return nil, false
	}
	rest := call.Args[2:]
	var out []string
	if len(rest) == 1 {
		lit, ok := ast.Unparen(rest[0]).(*ast.CompositeLit)
		if !ok {
			return nil, false
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				return nil, false
			}
			name, ok := match.ConstString(info, kv.Key)
			if !ok {
				return nil, false
			}
			out = append(out, name)
		}
		return out, len(out) > 0
	}
	for i := 0; i+1 < len(rest); i += 2 {
		name, ok := match.ConstString(info, rest[i])
		if !ok {
			return nil, false
		}
		out = append(out, name)
	}
	return out, len(out) > 0
}

// inProgressValue reports whether a Redis write stores a constant saying
// the work is under way: a lease renewed, not a result.
func inProgressValue(info *types.Info, call *ast.CallExpr) bool {
	for _, a := range call.Args[2:] {
		if tv := info.Types[a]; tv.Value != nil && tv.Value.Kind() == constant.String && match.InProgress(constant.StringVal(tv.Value)) {
			return true
		}
	}
	return false
}

// scriptInProgress reports whether a script's SET writes an in-progress
// value, its own constant or the argument it is given.
func scriptInProgress(info *types.Info, rc match.RedisCall) bool {
	value, lua := rc.Stored()
	if lua == nil && value != nil {
		lua = info.Types[value].Value
	}
	return lua != nil && lua.Kind() == constant.String && match.InProgress(constant.StringVal(lua))
}

// plumbing reports whether a call after a claim only reads its outcome or
// builds what the helper returns: the standard library (errors, fmt,
// time), the store libraries' result methods and the functions ent
// generates (IsConstraintError, a field's predicate).
func plumbing(info *types.Info, call *ast.CallExpr) bool {
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return true // a conversion
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ok // a builtin
	}
	path := fn.Pkg().Path()
	return slices.Contains(plumbingPkgs, path) ||
		slices.ContainsFunc(storeLibs, func(lib string) bool { return strings.HasPrefix(path, lib) }) ||
		fn.Signature().Recv() == nil && match.Generated(fn.Pkg()) || // ent's IsConstraintError, a predicate
		errorPredicate(info, call, fn)
}

// plumbingPkgs are the standard packages a claim helper builds its
// answer with.
var plumbingPkgs = []string{"errors", "fmt", "time", "strings", "strconv", "context", "log", "log/slog", "bytes", "encoding/json", "encoding/hex", "sync"}

// storeLibs are the store libraries whose result methods (Result, Val,
// RowsAffected) read a claim's outcome.
var storeLibs = []string{"github.com/redis/", "github.com/go-redis/", "github.com/jackc/", "gorm.io/", "database/sql", "github.com/lib/pq",
	"go.mongodb.org/", "github.com/aws/aws-sdk-go-v2/"}

// returnsFunc reports whether a signature returns a function: the unlock
// or release a lock helper hands its caller.
func returnsFunc(sig *types.Signature) bool {
	res := sig.Results()
	for i := range res.Len() {
		if _, ok := res.At(i).Type().Underlying().(*types.Signature); ok {
			return true
		}
	}
	return false
}

// reportsOnly reports whether a function's results can only say whether
// it took the key: bools, counts, an error, and the string an INSERT ...
// RETURNING gives back.
func reportsOnly(sig *types.Signature) bool {
	res := sig.Results()
	if res.Len() == 0 {
		return false
	}
	for i := range res.Len() {
		t := res.At(i).Type()
		if types.Identical(t, types.Universe.Lookup("error").Type()) {
			continue
		}
		b, ok := t.Underlying().(*types.Basic)
		if !ok || b.Info()&(types.IsBoolean|types.IsInteger|types.IsString) == 0 {
			return false
		}
	}
	return true
}

// The words an interface method's name is read by.
var (
	shapeRelease  = []string{"release", "unlock", "del", "delete", "remove", "forget", "unmark", "clear", "free", "abort", "cancel", "abandon", "drop", "discard", "rollback", "revert", "undo", "evict", "expire", "reset"}
	shapeComplete = []string{"complete", "completed", "finish", "finished", "done", "succeed", "succeeded"}
	shapeClaim    = []string{"claim", "acquire", "lock", "trylock", "reserve", "obtain", "nx", "absent"}
	shapeTry      = []string{"try", "mark", "begin", "start", "take"} // a claim when it answers with a bool
	shapeWrite    = []string{"set", "save", "store", "put", "record", "mark", "cache"}
	// shapeNouns are the other words such a name may hold: what is taken
	// or written is a key, a message's mark, a response.
	shapeNouns = []string{"key", "keys", "idempotency", "idem", "dedup", "request", "message", "msg", "event", "delivery", "job", "task",
		"id", "if", "not", "exists", "once", "lease", "processed", "seen", "handled", "status", "state", "response", "result", "body",
		"value", "ex", "with", "ttl", "in", "progress", "as", "to", "run"}
)

// shape infers what an interface method does to a key from its name and
// signature, as go vet, which sees no implementation of it, must: a method
// named to give back (Release, Unlock, Del, Unmark) is a release; one
// named to finish (Complete, MarkDone) is a completion; one named to take
// (Claim, Lock, SetNX, PutIfAbsent; TryMark or Begin answering a bool)
// that only reports whether it did, or returns its release, is a claim;
// one named to write under the key (Set, SaveResponse, MarkProcessed,
// CacheResponse) is a completion. The key is the first string parameter,
// or else a record that carries its own (Reply{IdempotencyKey: k, ...}).
// A completion that takes nothing after a string key but durations
// stores a status alone.
func shape(fn *types.Func) (Fact, bool) {
	sig := fn.Signature()
	key := -1
	for i := range sig.Params().Len() {
		if b, ok := sig.Params().At(i).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
			key = i
			break
		}
	}
	for i := range sig.Params().Len() {
		if key < 0 && keyedRecord(sig.Params().At(i).Type()) {
			key = i // CacheResponse(ctx, CachedResponse{Key: k, ...})
		}
	}
	if key < 0 {
		return Fact{}, false
	}
	words := match.Words(fn.Name())
	has := func(set []string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(set, w) })
	}
	for _, w := range words {
		if !slices.Contains(shapeRelease, w) && !slices.Contains(shapeComplete, w) && !slices.Contains(shapeClaim, w) &&
			!slices.Contains(shapeTry, w) && !slices.Contains(shapeWrite, w) && !slices.Contains(shapeNouns, w) {
			return Fact{}, false // SaveOrder, DeleteDraft, ReserveStock: a business record, not a key
		}
	}
	answersBool := false
	for i := range sig.Results().Len() {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsBoolean != 0 {
			answersBool = true
		}
	}
	f := Fact{Inferred: true, Key: key}
	switch {
	case has(shapeRelease):
		f.Kind = Release
	case has(shapeComplete):
		f.Kind = Complete
	case (has(shapeClaim) || has(shapeTry) && answersBool) && (reportsOnly(sig) || returnsFunc(sig)):
		f.Kind = Claim
		f.Unlock = returnsFunc(sig)
		f.Lock = f.Unlock || Lockish(fn.Name())
		return f, true
	case has(shapeWrite):
		f.Kind = Complete
	default:
		return Fact{}, false
	}
	if f.Kind == Complete {
		// a record that carries its key carries what is stored with it
		f.StatusOnly = !keyedRecord(sig.Params().At(key).Type())
		for i := key + 1; i < sig.Params().Len(); i++ {
			if !isDuration(sig.Params().At(i).Type()) {
				f.StatusOnly = false
			}
		}
	}
	return f, true
}

// keyedRecord reports whether t is a struct (or a pointer to one) that
// carries its own key: a string field named for one (Key,
// IdempotencyKey).
func keyedRecord(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range s.Fields() {
		b, ok := f.Type().Underlying().(*types.Basic)
		if ok && b.Info()&types.IsString != 0 && slices.Contains(match.Words(f.Name()), "key") {
			return true
		}
	}
	return false
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Duration" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}

// ReceiverName is the name of a method's receiver type, or "" for a
// function: a Locker's methods are a lock's.
func ReceiverName(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// doneWords name a column that says the work behind a row is done.
var doneWords = []string{"done", "finished", "completed", "processed", "succeeded"}

// valuesClause matches an INSERT's first VALUES tuple.
var valuesClause = regexp.MustCompile(`(?is)\bVALUES\s*\(([^()]*)\)`)

// notDoneYet reports whether an INSERT writes a row saying its work is
// not done yet: a done, finished or completed column given false.
// bareKeyRow reports an INSERT ... ON CONFLICT DO NOTHING into a table
// named for idempotency keys that writes the key and no response and no
// state: INSERT INTO idempotency_requests (key, created_at). The row's
// being there is the claim; its response is written when the work ends.
func bareKeyRow(st match.Statement) bool {
	if !st.Conditional || !match.KeyName(st.Table) {
		return false
	}
	return !slices.ContainsFunc(st.Columns, func(c string) bool {
		return BodyName(c) || slices.ContainsFunc(match.Words(c), func(w string) bool {
			return slices.Contains(doneWords, w) || w == "status" || w == "state"
		})
	})
}

func notDoneYet(sc match.SQLCall) bool {
	st := sc.Statement()
	m := valuesClause.FindStringSubmatch(sc.Text)
	if m == nil {
		return false
	}
	vals := strings.Split(m[1], ",")
	if len(vals) != len(st.Columns) {
		return false
	}
	for i, col := range st.Columns {
		ws := match.Words(col)
		if len(ws) == 1 && slices.Contains(doneWords, ws[0]) && strings.EqualFold(strings.TrimSpace(vals[i]), "false") {
			return true
		}
	}
	return false
}
