package claim

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// Records is exported for a function that claims a key and writes more
// than one record under it, or that gives back or writes records under
// a key: which ones. A claim may take a lock and write a pending record
// beside it (gopotency's Manager.Lock); a release that deletes only the
// lock leaves the pending record, and every retry is refused until its
// TTL runs out. The directive's facts say that a helper releases; these
// say what.
type Records struct {
	// Claim marks a function that takes the key and writes Writes under
	// it, all of which its caller must give back on a failure.
	Claim bool
	Key   int // the parameter the key is built from
	// Writes are the records written under the key, each as Record names
	// it: "redis lock:{}", "sql idempotency_keys", "iface Storage lock".
	Writes []Write
	// Frees are the records deleted under the key.
	Frees []string
}

// Write is one record a function writes under a key, and the call that
// writes it, for messages.
type Write struct {
	Record, What string
}

// AFact marks Records as an analysis fact.
func (*Records) AFact() {}

func (r *Records) String() string {
	var ws []string
	for _, w := range r.Writes {
		ws = append(ws, w.Record)
	}
	return fmt.Sprintf("records(claim %v of parameter %d, writes %v, frees %v)", r.Claim, r.Key, ws, r.Frees)
}

// RecordsAnalyzer exports a Records fact for each function of the package
// whose body shows which records it claims, writes or deletes under a key
// built from its parameters. Analyzer reads them where such a function is
// called, in any package.
var RecordsAnalyzer = &analysis.Analyzer{
	Name:       "idemkitrecords",
	Doc:        "records which records each claim, release or completion helper writes or deletes under its key",
	Requires:   []*analysis.Analyzer{directive.Analyzer},
	Run:        runRecords,
	FactTypes:  []analysis.Fact{new(Records)},
	ResultType: reflect.TypeFor[*recordsResult](),
}

// recordsResult answers for the functions of the package and, through
// facts, for those of its dependencies.
type recordsResult struct {
	pass  *analysis.Pass
	found map[*types.Func]*Records
}

// of returns the Records fact of fn, or nil.
func (r *recordsResult) of(fn *types.Func) *Records {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if f, ok := r.found[fn]; ok {
		return f
	}
	var f Records
	if r.pass.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

func runRecords(pass *analysis.Pass) (any, error) {
	r := &recordsResult{pass: pass, found: map[*types.Func]*Records{}}
	if match.LibraryPackage(pass.Pkg) {
		return r, nil
	}
	dirs := pass.ResultOf[directive.Analyzer].(*directive.Directives)
	var decls []*ast.FuncDecl
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && touchesStore(pass.TypesInfo, fd, r) {
				decls = append(decls, fd)
			}
		}
	}
	// Repeat until nothing changes, so that a helper calling another of
	// the package is known whichever comes first; each round can only add.
	for round := 0; round < 4; round++ {
		changed := false
		for _, d := range decls {
			fn, ok := pass.TypesInfo.Defs[d.Name].(*types.Func)
			if !ok {
				continue
			}
			f := inferRecords(pass, dirs, r, d, fn)
			if !reflect.DeepEqual(r.found[fn], f) {
				r.found[fn], changed = f, true
			}
		}
		if !changed {
			break
		}
	}
	for fn, f := range r.found {
		if f != nil {
			pass.ExportObjectFact(fn, f)
		}
	}
	return r, nil
}

// touchesStore reports cheaply whether decl calls a store library, an
// interface method or a function with a Records fact: go vet runs this
// pass over every dependency, and most functions stop here.
func touchesStore(info *types.Info, decl *ast.FuncDecl, r *recordsResult) bool {
	if decl.Type.Params == nil || len(decl.Type.Params.List) == 0 {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok || fn.Pkg() == nil {
			return true
		}
		recv := fn.Signature().Recv()
		found = recv != nil && types.IsInterface(recv.Type()) || match.LibraryPackage(fn.Pkg()) || r.of(fn) != nil
		return !found
	})
	return found
}

// recordsInference reads one body.
type recordsInference struct {
	directive.KeyParams // key parameters, and locals built from them (record := &Record{Key: req.Key})
}

// inferRecords returns what decl claims, writes and deletes under a key
// built from its parameters, or nil when that is not known: a claim
// helper's fact lists the records it writes when it takes the key, and
// is exported only for a helper named to take one (Lock, Begin,
// Acquire) that answers only whether it did; another helper's, only
// when every record it touches under the key is named.
func inferRecords(pass *analysis.Pass, dirs *directive.Directives, r *recordsResult, decl *ast.FuncDecl, fn *types.Func) *Records {
	info := pass.TypesInfo
	in := &recordsInference{directive.KeyParams{Info: info, Keys: map[*types.Var]int{}}}
	params := fn.Signature().Params()
	for i := range params.Len() {
		p := params.At(i)
		if match.IsContext(p.Type()) || types.IsInterface(p.Type()) {
			continue
		}
		if _, isFunc := p.Type().Underlying().(*types.Signature); isFunc {
			continue
		}
		in.Keys[p] = i
	}
	if len(in.Keys) == 0 {
		return nil
	}
	in.Derive(decl.Body)
	out := &Records{Key: -1}
	claimKey, unknown := -1, false
	addWrite := func(w Write) {
		if !slices.ContainsFunc(out.Writes, func(x Write) bool { return x.Record == w.Record }) {
			out.Writes = append(out.Writes, w)
		}
	}
	addFree := func(rec string) {
		if !slices.Contains(out.Frees, rec) {
			out.Frees = append(out.Frees, rec)
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			_, lit := n.(*ast.FuncLit)
			return !lit
		}
		key := -1
		note := func(e ast.Expr) {
			if key < 0 {
				key = in.Param(e)
			}
		}
		// a go-redis DEL of several keys frees each
		if rc, ok := match.Redis(info, call); ok && rc.Op == match.RedisDel && !rc.Script && len(call.Args) > 2 && !call.Ellipsis.IsValid() {
			for _, a := range call.Args[1:] {
				if k := in.Param(a); k >= 0 {
					if out.Key < 0 {
						out.Key = k
					}
					addFree("redis " + match.KeyShape(info, a))
				}
			}
			return true
		}
		// a store library's command
		if accs := match.ClassifyAll(pass.Fset, info, call); len(accs) > 0 {
			for _, a := range accs {
				key = -1
				for _, k := range a.Keys {
					note(k)
				}
				if key < 0 || a.Op == match.OpRead {
					continue
				}
				if out.Key < 0 {
					out.Key = key
				}
				switch a.Op {
				case match.OpClaim:
					out.Claim = true
					if claimKey < 0 {
						claimKey = key
					}
					addWrite(Write{a.Record, a.What})
				case match.OpDelete:
					addFree(a.Record)
				default:
					addWrite(Write{a.Record, a.What})
				}
			}
			return true
		}
		callee, ok := typeutil.Callee(info, call).(*types.Func)
		if !ok || callee.Pkg() == nil {
			return true
		}
		for _, a := range call.Args {
			note(a)
		}
		if key < 0 {
			return true
		}
		// a helper whose records are known
		if f := r.of(callee); f != nil && f.Key >= 0 && f.Key < len(call.Args) && in.Param(call.Args[f.Key]) >= 0 {
			if out.Key < 0 {
				out.Key = key
			}
			if f.Claim && claimKey < 0 {
				out.Claim, claimKey = true, key
			}
			for _, w := range f.Writes {
				addWrite(w)
			}
			for _, rec := range f.Frees {
				addFree(rec)
			}
			return true
		}
		// an interface method, by its name: a store's TryLock and Unlock
		// are its lock, Set and Delete the record beside it
		if recv := callee.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
			rec := "iface " + directive.ReceiverName(callee)
			if rec == "iface " {
				rec = "iface " + types.TypeString(recv.Type(), types.RelativeTo(callee.Pkg()))
			}
			if directive.Lockish(callee.Name()) || slices.ContainsFunc(match.Words(callee.Name()), func(w string) bool { return slices.Contains(lockMethodWords, w) }) {
				rec += " lock"
			}
			k := dirs.Of(callee)
			switch words := match.Words(callee.Name()); {
			case k&directive.Claim != 0:
				out.Claim = true
				if claimKey < 0 {
					claimKey = key
				}
				addWrite(Write{rec, callee.Name()})
			case k&directive.Release != 0 || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(freeWords, w) }):
				addFree(rec)
			case k&directive.Complete != 0 || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(writeWords, w) }):
				addWrite(Write{rec, callee.Name()})
			default:
				return true
			}
			if out.Key < 0 {
				out.Key = key
			}
			return true
		}
		// a helper known to claim, release or complete, of records unnamed
		if k := dirs.Of(callee); k != 0 {
			unknown = true
		}
		return true
	})
	if unknown || out.Key < 0 {
		return nil
	}
	if out.Claim {
		out.Key, out.Frees = claimKey, nil
		words := match.Words(fn.Name())
		if len(out.Writes) < 2 || !answersOnly(fn.Signature()) ||
			!slices.ContainsFunc(words, func(w string) bool { return slices.Contains(takeWords, w) }) {
			return nil
		}
		return out
	}
	return out
}

// lockMethodWords name the methods of a store's lock, beside the
// record it keeps under the same key: TryLock and Unlock.
var lockMethodWords = []string{"unlock", "trylock", "relock", "locked"}

// takeWords name a helper that takes a key for its caller.
var takeWords = []string{"lock", "trylock", "acquire", "claim", "reserve", "obtain", "begin", "start"}

// freeWords and writeWords name an interface method that deletes a
// record under its key, or writes one.
var (
	freeWords  = []string{"unlock", "release", "del", "delete", "remove", "free", "unmark", "forget"}
	writeWords = []string{"set", "save", "store", "put"}
)

// partial returns the records of c that call, a release, leaves in
// place when it gives back some of the others: c wrote more than one
// record under its key (a lock and a pending record) and call's helper
// deletes or writes only some of them. It returns nil for a call that
// settles all of them or none, or whose records are not known.
func (s *scope) partial(c *Claim, call *ast.CallExpr) []Write {
	if len(c.Records) < 2 {
		return nil
	}
	fn := callee(s.pass.TypesInfo, call)
	f := s.records.of(fn)
	if f == nil || f.Claim || f.Key < 0 || f.Key >= len(call.Args) || c.Key == nil || !s.overlap(c.Key, call.Args[f.Key]) {
		return nil
	}
	settled := slices.Clone(f.Frees)
	for _, w := range f.Writes {
		settled = append(settled, w.Record)
	}
	var left []Write
	for _, w := range c.Records {
		if !slices.ContainsFunc(settled, func(r string) bool {
			return r == w.Record || SameRecord(strings.TrimPrefix(r, "sql "), strings.TrimPrefix(w.Record, "sql ")) && strings.HasPrefix(r, "sql ")
		}) {
			left = append(left, w)
		}
	}
	if len(left) == 0 || len(left) == len(c.Records) {
		return nil
	}
	return left
}

// answersOnly reports whether a function's results can only say whether
// it took the key: bools and an error.
func answersOnly(sig *types.Signature) bool {
	res := sig.Results()
	if res.Len() == 0 {
		return false
	}
	for i := range res.Len() {
		if t := res.At(i).Type(); !isError(t) && !isBool(t) {
			return false
		}
	}
	return true
}
