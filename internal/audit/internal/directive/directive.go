// Package directive finds the //idemkit:claim, //idemkit:release and
// //idemkit:complete directives in doc comments and carries them across
// packages as analysis facts.
//
// A user's helper that claims a key (a wrapper around SET NX or an INSERT
// ... ON CONFLICT), releases or completes it says so in its doc comment:
//
//	// claimKey takes key for this worker.
//	//
//	//idemkit:claim
//	func claimKey(ctx context.Context, key string) (bool, error)
//
// The directive may also sit on an interface method (the reference
// runtime's Store.Claim carries one) and a function may carry several. The
// checks Require Analyzer and ask its Result which directives a callee
// carries, whichever package declared it, much as printf carries "this
// function is a wrapper" from package to package.
//
// Most helpers carry no directive, so the analyzer also reads each
// unannotated function's body for what it does to a key built from its
// parameters (see infer): a helper that takes a key with SET NX, HSETNX or
// an in-progress INSERT and only reports whether it did is a claim, and so
// is one that takes a key and returns the function that gives it back (a
// lock helper); one that deletes such a key is a release, one that writes
// it a completion. An interface method has no body: its name and
// signature stand in (see shape), so that a repository's Claim, Release
// and SaveResponse are known to its callers whichever package implements
// them. These inferred kinds travel as the same facts, marked Inferred,
// with the parameter the key comes from; a directive, where there is one,
// wins over what the body or shape shows.
package directive

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// Kind is a set of directives: what a function does to an idempotency key.
type Kind uint8

// The directives, as bits of a Kind.
const (
	Claim    Kind = 1 << iota // takes the key for the caller; a failure path must release it
	Release                   // gives the key back so a retry can run
	Complete                  // stores the result under the key so a retry gets it back
)

var names = []struct {
	kind Kind
	name string
}{{Claim, "claim"}, {Release, "release"}, {Complete, "complete"}}

func (k Kind) String() string {
	var parts []string
	for _, n := range names {
		if k&n.kind != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "|")
}

// Fact is exported for every function or method whose doc comment
// carries a directive, or whose body shows what it does to a key.
type Fact struct {
	Kind Kind
	// Inferred marks a kind read from the body rather than written in a
	// directive. An inferred release or completion settles only a claim
	// of the same key (see Key and Tables); a directive settles any.
	Inferred bool
	// Key is the index of the parameter the key is built from, or -1 when
	// it is not known (always, for a directive).
	Key int
	// Tables are the SQL tables (or MongoDB collections, DynamoDB tables)
	// the body claims, deletes from or updates.
	Tables []string
	// Lock marks a claim that only excludes concurrent runs (a lock: key,
	// a Locker type, a helper returning its unlock): it is released when
	// the work ends, never completed with a response.
	Lock bool
	// Unlock marks a claim that returns the function that releases it.
	Unlock bool
	// StatusOnly marks an inferred completion that stores a status and
	// no response: a SET of a constant, an HSET or UPDATE of status
	// columns alone.
	StatusOnly bool
}

// AFact marks Fact as an analysis fact.
func (*Fact) AFact() {}

func (f *Fact) String() string {
	if !f.Inferred {
		return "idemkit:" + f.Kind.String()
	}
	s := fmt.Sprintf("inferred %s of parameter %d", f.Kind, f.Key)
	if len(f.Tables) > 0 {
		s += " in " + strings.Join(f.Tables, ",")
	}
	if f.Lock {
		s += ", a lock"
	}
	if f.Unlock {
		s += ", returning its release"
	}
	if f.StatusOnly {
		s += ", status only"
	}
	return s
}

// Analyzer exports a Fact for each annotated function and method of the
// package; its Result answers for callees from any package.
var Analyzer = &analysis.Analyzer{
	Name:       "idemkitdirective",
	Doc:        "records //idemkit:claim, //idemkit:release and //idemkit:complete directives as facts",
	Run:        run,
	FactTypes:  []analysis.Fact{new(Fact)},
	ResultType: reflect.TypeFor[*Directives](),
}

// Directives answers which directives a function carries.
type Directives struct {
	pass *analysis.Pass // imports the facts of the package's dependencies
}

// Of returns the directives fn carries, or what its body was inferred to
// do, in its generic origin.
func (d *Directives) Of(fn *types.Func) Kind {
	f, _ := d.Fact(fn)
	return f.Kind
}

// Fact returns the fact fn carries, in its generic origin, and whether it
// carries one.
func (d *Directives) Fact(fn *types.Func) (Fact, bool) {
	var f Fact
	if fn == nil || !d.pass.ImportObjectFact(fn.Origin(), &f) {
		return Fact{}, false
	}
	return f, true
}

// Call returns the directives of the function or method call calls,
// statically or through an interface, with that function.
func (d *Directives) Call(info *types.Info, call *ast.CallExpr) (Kind, *types.Func) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return 0, nil
	}
	return d.Of(fn), fn
}

func run(pass *analysis.Pass) (any, error) {
	export := func(doc *ast.CommentGroup, name *ast.Ident) bool {
		k := parse(doc)
		fn, ok := pass.TypesInfo.Defs[name].(*types.Func)
		if k == 0 || !ok {
			return false
		}
		pass.ExportObjectFact(fn, &Fact{Kind: k, Key: -1, Lock: k&Claim != 0 && (Lockish(fn.Name()) || Lockish(ReceiverName(fn))),
			Unlock: k&Claim != 0 && returnsFunc(fn.Signature())})
		return true
	}
	// The libraries the checks know by their calls (go-redis, pgx, gorm)
	// are read where they are called, never inferred from.
	library := match.LibraryPackage(pass.Pkg)
	var plain []*ast.FuncDecl // functions without a directive, whose bodies may show one
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !export(decl.Doc, decl.Name) && decl.Body != nil && !library {
					plain = append(plain, decl)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					iface, ok := ts.Type.(*ast.InterfaceType)
					if !ok {
						continue
					}
					for _, m := range iface.Methods.List {
						if len(m.Names) == 1 && !export(m.Doc, m.Names[0]) && !library {
							if fn, ok := pass.TypesInfo.Defs[m.Names[0]].(*types.Func); ok {
								if f, ok := shape(fn); ok {
									pass.ExportObjectFact(fn, &f)
								}
							}
						}
					}
				}
			}
		}
	}
	inferAll(pass, plain)
	return &Directives{pass: pass}, nil
}

// inferAll exports the facts the bodies of decls show, repeating until
// none changes so that a helper calling another of the package is known
// whichever comes first.
func inferAll(pass *analysis.Pass, decls []*ast.FuncDecl) {
	found := map[*types.Func]Fact{}
	known := func(fn *types.Func) (Fact, bool) {
		if f, ok := found[fn]; ok {
			return f, true
		}
		var f Fact
		return f, pass.ImportObjectFact(fn, &f)
	}
	for changed := true; changed; {
		changed = false
		for _, decl := range decls {
			fn, ok := pass.TypesInfo.Defs[decl.Name].(*types.Func)
			if !ok {
				continue
			}
			if f, ok := infer(pass.Fset, pass.TypesInfo, decl, fn, known); ok && !reflect.DeepEqual(found[fn], f) {
				found[fn], changed = f, true
			}
		}
	}
	for _, decl := range decls {
		if fn, ok := pass.TypesInfo.Defs[decl.Name].(*types.Func); ok {
			if f, ok := found[fn]; ok {
				pass.ExportObjectFact(fn, &f)
			}
		}
	}
}

// parse returns the directives in a doc comment: lines that are exactly
// //idemkit:claim, //idemkit:release or //idemkit:complete, optionally
// followed by a space and free text.
func parse(doc *ast.CommentGroup) Kind {
	if doc == nil {
		return 0
	}
	var k Kind
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, "//idemkit:")
		if !ok {
			continue
		}
		verb, _, _ := strings.Cut(rest, " ")
		for _, n := range names {
			if verb == n.name {
				k |= n.kind
			}
		}
	}
	return k
}
