package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Op is what a call does to a stored record, in the terms a race between
// two retries is decided in.
type Op uint8

// The operations on a record.
const (
	// OpRead asks whether, or what, a record exists: a SELECT, a gorm
	// First or Count, a Redis GET, EXISTS, HGET, HEXISTS or SISMEMBER.
	OpRead Op = iota + 1
	// OpWrite stores a record whether or not it exists: an INSERT without
	// ON CONFLICT, a gorm Create, a Redis SET, HSET or SADD.
	OpWrite
	// OpUpdate changes a record that exists without comparing what was
	// read: an UPDATE whose WHERE clause holds no version or status.
	OpUpdate
	// OpClaim stores a record only when it is absent and says whether it
	// did, in one atomic step: INSERT ... ON CONFLICT DO NOTHING, SET NX,
	// HSETNX, a gorm Create with an OnConflict clause.
	OpClaim
	// OpGuarded changes a record only when it still holds what was read: an
	// UPDATE comparing a version or status column, SET XX or IFEQ.
	OpGuarded
	// OpDelete removes a record: DELETE, DEL, UNLINK, HDEL, SREM.
	OpDelete
)

func (op Op) String() string {
	switch op {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	case OpUpdate:
		return "update"
	case OpClaim:
		return "claim"
	case OpGuarded:
		return "guarded update"
	case OpDelete:
		return "delete"
	}
	return "access"
}

// Access is one call's access to a stored record.
type Access struct {
	Op Op
	// What names the operation as a message does: SELECT, SELECT ... FOR
	// UPDATE, INSERT, First, Create, GET, EXISTS, SET, HSET.
	What string
	// Record identifies the record across the accesses of a function:
	// "sql processed_event", "redis seen:{}", "redis hash payouts"; the
	// table or model name normalised so that a gorm model and its table
	// agree, a Redis key by its constant skeleton.
	Record string
	// Target is the table, model or key as written, for messages.
	Target string
	// Keys are the expressions the record is picked by: a SQL statement's
	// arguments, a gorm chain's Where arguments or the created value, a
	// Redis key. Two accesses concern the same record when their Records
	// are equal and their Keys share a variable.
	Keys []ast.Expr
	// Dest are the expressions a read stores what it found in: Scan's
	// and sqlx Get's destinations, gorm's First(&v) or Count(&n).
	Dest []ast.Expr
	// ForUpdate marks a SELECT ... FOR UPDATE: it locks rows that exist
	// and none that do not yet.
	ForUpdate bool
	// Appends marks a write that adds rather than overwrites, so that
	// doing it twice leaves two effects: an INSERT, a Create, INCR, a
	// list push. A SET, HSET or SADD done twice leaves one.
	Appends bool
	// Increments marks an UPDATE that adds to a column (SET n = n + $1):
	// it changes a record that exists, and done twice, adds twice.
	Increments bool
	// ReportsAdded marks a write whose result says whether it added the
	// record: SADD's and HSET's count of new members or fields, INCR's new
	// value (1 the first time). A caller that branches on that result has
	// checked and acted in one atomic step, as with a claim.
	ReportsAdded bool
	// Pipelined marks a Redis command queued on a pipeline (go-redis's
	// Pipelined, TxPipelined, Pipeline(); redigo's Send): its reply is a
	// future that arrives after the pipeline runs, so a read there cannot
	// gate a write queued beside it.
	Pipelined bool
	// InWatch marks a Redis command of a WATCH transaction: made on the
	// *redis.Tx of a go-redis Watch callback or on a pipeline it opened, or
	// on a redigo connection after its WATCH and before its EXEC. EXEC
	// fails when a watched key changed, so a read and a write there are
	// the optimistic-locking pattern, not a race.
	InWatch bool
	// KeyRecord names the Redis key itself ("redis idem:{}") for every
	// Redis access, whatever part of it Record names: a DEL of the key
	// removes the hash fields and set members recorded under it.
	KeyRecord string
	// Call is the call that performs the access: the statement's Exec
	// or Query, the end of a builder chain.
	Call *ast.CallExpr
	// Part is the piece of a call that writes many records this access
	// is: a DynamoDB transaction's Put, Update or Delete, a batch's put
	// request, a MongoDB bulk write's model. Nil for a call with one.
	Part ast.Expr
	// written are the fields a Part stores, as Written reads a call's.
	written []Field
}

// Classify reports the record call accesses, for every library the checks
// know: database/sql, pgx v4 and v5 (with Batch and CopyFrom), sqlx and any
// DBTX-style interface; gorm; bun, squirrel and goqu chains where they are
// sent; sqlboiler's generated models and queries.Raw; go-jet statements; go-redis v8 and v9, redigo, rueidis; sync.Map and the in-memory
// caches of memCacheLibs. A call that is none,
// or whose SQL has no constant part naming its table, is false. fset is
// the file set info's syntax is in: it names the package's directory, from
// which a Lua script may be embedded.
func Classify(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr) (Access, bool) {
	if c, ok := SQL(info, call); ok {
		return sqlAccess(info, call, c)
	}
	if c, ok := ORM(info, call); ok {
		return ormAccess(info, call, c)
	}
	if c, ok := Redis(info, call); ok {
		return redisAccess(info, call, c)
	}
	return classifyMore(fset, info, call)
}

func sqlAccess(info *types.Info, call *ast.CallExpr, c SQLCall) (Access, bool) {
	st := c.Statement()
	if st.Table == "" {
		return Access{}, false
	}
	a := Access{Record: "sql " + RecordName(st.Table), Target: st.Table, Call: call}
	for i, arg := range call.Args {
		if arg == c.Query {
			a.Keys = append(a.Keys, call.Args[i+1:]...)
			break
		}
	}
	a.Keys = append(a.Keys, c.Keys...)
	a.Dest = c.Dest
	if a.Dest == nil && strings.HasPrefix(c.Method, "QueryRow") { // the calls that return one row
		a.Dest = scannedInto(info, call)
	}
	switch st.Verb {
	case Select:
		a.Op, a.What, a.ForUpdate = OpRead, "SELECT", st.ForUpdate
		if st.ForUpdate {
			a.What = "SELECT ... FOR UPDATE"
		}
	case Insert:
		a.Op, a.What, a.Appends = OpWrite, "INSERT", true
		if st.Conditional {
			a.Op = OpClaim
		}
	case Update:
		a.Op, a.What, a.Increments = OpUpdate, "UPDATE", st.Increments
		if st.Guarded {
			a.Op = OpGuarded
		}
	case Delete:
		a.Op, a.What = OpDelete, "DELETE"
	default:
		return Access{}, false
	}
	return a, true
}

func ormAccess(info *types.Info, call *ast.CallExpr, c ORMCall) (Access, bool) {
	if c.Model == "" {
		return Access{}, false
	}
	a := Access{What: c.Method, Record: "sql " + RecordName(c.Model), Target: c.Model, Call: call}
	switch c.Op {
	case ORMRead:
		a.Op, a.ForUpdate = OpRead, c.Locking
		a.Dest = call.Args[:min(len(call.Args), 1)]
		if c.Method != "Count" && len(call.Args) > 1 {
			a.Keys = append(a.Keys, call.Args[1:]...) // First(&v, "key = ?", k)
		}
	case ORMCreate:
		a.Op, a.Appends = OpWrite, true
		if c.OnConflict {
			a.Op = OpClaim
		}
		a.Keys = call.Args[:min(len(call.Args), 1)]
	default:
		var ok bool
		if a, ok = ormMore(info, call, c, a); !ok {
			return Access{}, false
		}
	}
	for x := receiver(call); x != nil; x = receiver(x) {
		if link := method(info, x); link != nil && inPackage(link, gormPath) && link.Name() == "Where" && len(x.Args) > 0 {
			a.Keys = append(a.Keys, x.Args[1:]...)
			if len(x.Args) == 1 { // Where(&Model{Key: k}) or Where(map...)
				a.Keys = append(a.Keys, x.Args[0])
			}
		}
	}
	return a, true
}

// RedisAccess is the access a Redis command makes, as Classify reads it,
// for a command read elsewhere: a Lua script kept in another package,
// whose source only that package's facts hold.
func RedisAccess(info *types.Info, call *ast.CallExpr, c RedisCall) (Access, bool) {
	return redisAccess(info, call, c)
}

func redisAccess(info *types.Info, call *ast.CallExpr, c RedisCall) (Access, bool) {
	text := types.ExprString(c.Key)
	a := Access{What: c.Op.String(), Record: "redis " + KeyShape(info, c.Key), Target: text, Keys: []ast.Expr{c.Key}, Call: call}
	switch c.Op {
	case RedisGet, RedisExists:
		a.Op = OpRead
	case RedisSet:
		a.Op = OpWrite
	case RedisSetNX:
		a.Op = OpClaim
		if c.Command == "GETSET" {
			a.What = c.Command // a claim where its old value is asked after
		}
	case RedisDel:
		a.Op = OpDelete
	default:
		var ok bool
		if a, ok = redisMore(info, c, a); !ok {
			return Access{}, false
		}
	}
	a.KeyRecord = "redis " + KeyShape(info, c.Key)
	redisPlace(info, call, &a)
	return a, true
}

// RecordName normalises a table or model name so that a gorm model and
// its table name the same record: ProcessedEvent and processed_events are
// both processed_event.
func RecordName(name string) string {
	ws := Words(name)
	if n := len(ws); n > 0 {
		if w := ws[n-1]; len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			ws[n-1] = strings.TrimSuffix(w, "s")
		}
	}
	return strings.Join(ws, "_")
}

// KeyShape returns a Redis key expression's constant skeleton, with "{}"
// for what varies: "seen:" + id and "seen:" + ev.ID are both "seen:{}",
// whatever the helper calls its parameter, and so is
// fmt.Sprintf("seen:%s", id), and so is a local variable assigned one
// of them. A key with no constant part is "{}": which record it picks is
// up to its values.
func KeyShape(info *types.Info, e ast.Expr) string {
	depth := 0
	var shape func(e ast.Expr) string
	shape = func(e ast.Expr) string {
		if s, ok := ConstString(info, e); ok {
			return s
		}
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			// key := "idem:" + id: the key is what it was made of.
			if v, _, later, ok := definition(info, e); ok && len(later) == 0 && depth < 4 {
				depth++
				defer func() { depth-- }()
				return shape(v)
			}
			if s, ok := packageString(info, e); ok {
				return s
			}
		case *ast.BinaryExpr:
			if e.Op == gotoken.ADD {
				return shape(e.X) + shape(e.Y)
			}
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(info, e); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(e.Args) > 0 {
				s, ok := ConstString(info, e.Args[0])
				if id, isIdent := ast.Unparen(e.Args[0]).(*ast.Ident); !ok && isIdent {
					s, ok = packageString(info, id)
				}
				if ok {
					return sprintfShape.ReplaceAllString(s, "{}")
				}
			}
		}
		return "{}"
	}
	s := shape(e)
	if strings.Trim(s, "{}") == "" {
		return "{}" // a key made of variables alone: its values tell records apart
	}
	return s
}

// packageString returns the constant string an unexported package
// variable of info's package is initialised with: the format of
// fmt.Sprintf(keyLocked, email) where `var keyLocked = "auth:locked:%s"`.
// Such a variable is a constant in all but name, and since only its own
// package can use it, every key made from it has the same shape whether
// or not something assigns it later.
func packageString(info *types.Info, id *ast.Ident) (string, bool) {
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() || v.Exported() {
		return "", false
	}
	for _, in := range info.InitOrder {
		if len(in.Lhs) == 1 && in.Lhs[0] == v {
			return ConstString(info, in.Rhs)
		}
	}
	return "", false
}

// sprintfShape matches a fmt verb with its flags, width and precision.
var sprintfShape = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z]`)
