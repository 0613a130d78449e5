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
package directive

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
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
// carries a directive.
type Fact struct{ Kind Kind }

// AFact marks Fact as an analysis fact.
func (*Fact) AFact() {}

func (f *Fact) String() string { return "idemkit:" + f.Kind.String() }

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

// Of returns the directives fn carries, in its generic origin.
func (d *Directives) Of(fn *types.Func) Kind {
	var f Fact
	if fn == nil || !d.pass.ImportObjectFact(fn.Origin(), &f) {
		return 0
	}
	return f.Kind
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
	export := func(doc *ast.CommentGroup, name *ast.Ident) {
		if k := parse(doc); k != 0 {
			if fn, ok := pass.TypesInfo.Defs[name].(*types.Func); ok {
				pass.ExportObjectFact(fn, &Fact{Kind: k})
			}
		}
	}
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				export(decl.Doc, decl.Name)
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
						if len(m.Names) == 1 {
							export(m.Doc, m.Names[0])
						}
					}
				}
			}
		}
	}
	return &Directives{pass: pass}, nil
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
