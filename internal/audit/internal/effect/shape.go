package effect

import (
	"go/ast"
	"go/build"
	"go/types"
	"slices"
	"strings"
	"sync"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// The first words of a method name that say what it does to the record
// its receiver keeps, when nothing else is known of it.
var (
	readVerbs  = []string{"get", "find", "lookup", "exists", "has", "is", "was", "already", "seen", "check", "load", "fetch", "count", "contains"}
	writeVerbs = []string{"set", "save", "put", "store", "insert", "create", "add", "mark", "record", "remember", "upsert", "book", "append", "log"}
	// appendVerbs are the writes that add a record each time they run.
	appendVerbs = []string{"insert", "create", "add", "record", "book", "append", "log"}
	claimVerbs  = []string{"claim", "acquire", "lock", "reserve", "try"}
	// externalVerbs name a call that does something outside the stores:
	// pays, sends, publishes, pushes a notification, triggers a workflow,
	// broadcasts. Only a method of an interface the module declares gets
	// here, so a container's Push (a stack's, a heap's) never does.
	// Forward is not among them: a proxy's Forward is a reply cache's
	// business (cacheresponse).
	externalVerbs = []string{"send", "publish", "charge", "notify", "email", "deliver", "dispatch", "enqueue",
		"transfer", "pay", "payout", "refund", "ship", "fulfil", "fulfill", "grant", "credit", "debit", "capture",
		"post", "emit", "produce", "issue", "provision", "submit", "execute", "hold", "book", "award",
		"trigger", "broadcast", "push"}
)

// shapeOf infers an interface method's effect from its name and
// arguments: a lookup is a read, a setter a write, of a record named for
// the receiver expression (s.repo, h.cache) and keyed by the arguments
// that are not a context. A verb that acts on the world (Send, Charge,
// Publish) is an External effect.
func shapeOf(info *types.Info, pkg *types.Package, call *ast.CallExpr, fn *types.Func) (Use, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return Use{}, false
	}
	words := match.Words(fn.Name())
	if len(words) == 0 || !OwnInterface(pkg, fn) || instrument(fn, words) {
		return Use{}, false
	}
	u := Use{Call: call, Callee: fn, Shape: true}
	u.What = fn.Name()
	switch first := words[0]; {
	case strings.HasSuffix(strings.ToLower(fn.Name()), "nx") || strings.Contains(strings.ToLower(fn.Name()), "ifabsent") ||
		strings.Contains(strings.ToLower(fn.Name()), "ifnotexists") || slices.Contains(claimVerbs, first):
		u.Op = match.OpClaim
	case slices.Contains(readVerbs, first), lookupBy(words):
		u.Op = match.OpRead
	case slices.Contains(writeVerbs, first):
		u.Op, u.Appends = match.OpWrite, slices.Contains(appendVerbs, first)
	case slices.Contains(externalVerbs, first):
		u.External = true
		return u, true
	default:
		return Use{}, false
	}
	// The record is named for the receiver as written and for its type:
	// c.client is one record in a CatalogClient's methods and another in a
	// PaymentClient's, where it holds another service's client.
	u.Record = "iface " + types.ExprString(sel.X)
	if t := info.TypeOf(sel.X); t != nil {
		u.Record += " " + types.TypeString(t, nil)
	}
	u.Target = types.ExprString(sel.X)
	for _, a := range call.Args {
		if t := info.TypeOf(a); t == nil || !keyLike(t, pkg) {
			continue // a context, a transaction, a connection, a callback
		}
		u.Keys = append(u.Keys, a)
		if u.Op != match.OpRead {
			break // a setter's key comes first; the value follows
		}
	}
	if len(u.Keys) == 0 {
		return Use{}, false
	}
	return u, true
}

// instrument reports whether fn, a method of an interface, belongs to a
// meter, a tracer or a logger, by its interface's name (CacheMetrics,
// Tracer, AuditLogger) or its own (RecordLatency, ObserveDuration): its
// Record or Add writes nothing that a check pairs with, and done twice it
// harms no one.
func instrument(fn *types.Func, words []string) bool {
	if slices.ContainsFunc(words, func(w string) bool { return slices.Contains(meterWords, w) }) {
		return true
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	n, ok := types.Unalias(recv.Type()).(*types.Named)
	return ok && slices.ContainsFunc(match.Words(n.Obj().Name()), func(w string) bool { return slices.Contains(instrumentWords, w) })
}

// meterWords, in a method's name, and instrumentWords, in its interface's,
// name a meter's, a tracer's or a logger's.
var (
	meterWords      = []string{"latency", "duration", "histogram", "gauge", "counter", "metric", "metrics", "observe", "span", "timing", "elapsed"}
	instrumentWords = []string{"logger", "metrics", "metric", "meter", "tracer", "telemetry", "stats", "statsd", "instrumentation", "observability"}
)

// lookupBy reports whether a method name reads as a lookup by a key:
// RefundForOrder, UserByEmail, PaymentOf.
func lookupBy(words []string) bool {
	if slices.Contains(writeVerbs, words[0]) || slices.Contains(claimVerbs, words[0]) {
		return false
	}
	for _, w := range words[1:] {
		if w == "by" || w == "for" || w == "of" {
			return true
		}
	}
	return false
}

// OwnInterface reports whether the interface method fn is declared in
// the module of pkg, as far as import paths tell: a team's repository or
// cache, not a tracing span, a logger or an io.Writer, whose Add and
// Record mean something else.
func OwnInterface(pkg *types.Package, fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	return sameModule(pkg.Path(), fn.Pkg().Path())
}

// sameModule guesses from two import paths whether they belong to one
// module: the same host and owner and repository on the code hosts that
// have them (github.com/org/repo), the same first two elements elsewhere.
// Paths without a host (tests, GOPATH) are taken to be one module.
func sameModule(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if !strings.Contains(as[0], ".") || !strings.Contains(bs[0], ".") {
		return !strings.Contains(as[0], ".") && !strings.Contains(bs[0], ".")
	}
	n := 2
	switch as[0] {
	case "github.com", "gitlab.com", "bitbucket.org", "golang.org", "gitee.com", "codeberg.org":
		n = 3
	}
	if len(as) < n || len(bs) < n {
		return a == b
	}
	return slices.Equal(as[:n], bs[:n])
}

// keyLike reports whether a value of type t can pick a record: a string
// or a number, a byte array (a UUID), or a struct or pointer to one
// declared in pkg's module (a params struct, an entity). A context, a
// transaction or a client from a library cannot.
func keyLike(t types.Type, pkg *types.Package) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsString|types.IsInteger) != 0
	case *types.Array:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	case *types.Pointer:
		return keyLike(u.Elem(), pkg) && !isBasicPointer(u)
	case *types.Struct:
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && !Stdlib(n.Obj().Pkg().Path()) && sameModule(pkg.Path(), n.Obj().Pkg().Path())
	}
	return false
}

// stdlibs caches Stdlib's answers.
var stdlibs sync.Map

// Stdlib reports whether path is a package of the standard library, as
// the go command's GOROOT has it.
func Stdlib(path string) bool {
	if v, ok := stdlibs.Load(path); ok {
		return v.(bool)
	}
	p, err := build.Default.Import(path, "", build.FindOnly)
	std := err == nil && p.Goroot
	stdlibs.Store(path, std)
	return std
}

func isBasicPointer(p *types.Pointer) bool {
	_, ok := p.Elem().Underlying().(*types.Basic)
	return ok
}
