package claim

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/cfg"
)

// Holds is exported for a function that, given a key as its parameter
// Param, completes or releases it on some path and returns on a failure
// with it still held, at Where ("worker.go:31"): a caller in another
// package that claims a key and starts the function as a goroutine (go
// worker.Process(ctx, key, job)) hands it the claim, and the failure
// leaves the key held.
type Holds struct {
	Param int
	Where string
}

// AFact marks Holds as an analysis fact.
func (*Holds) AFact() {}

func (h *Holds) String() string {
	return fmt.Sprintf("holds parameter %d on a failure at %s", h.Param, h.Where)
}

// exportHolds exports Holds for the package's exported functions and
// methods: each parameter a key may be given to that a call of the body
// completes or releases is walked as a goroutine's claim is (see
// walker.goroutine), and the first failing return with the key held is
// recorded.
func (s *scope) exportHolds() {
decls:
	for fn, d := range s.decls {
		if !fn.Exported() || d.Body == nil {
			continue
		}
		g := s.cfgs.FuncDecl(d)
		if g == nil || len(g.Blocks) == 0 {
			continue
		}
		i := -1
		for _, field := range d.Type.Params.List {
			if len(field.Names) == 0 {
				i++
				continue
			}
			for _, name := range field.Names {
				i++
				if h, ok := s.holds(d, fn, g, name, i); ok {
					s.pass.ExportObjectFact(fn, h)
					continue decls
				}
			}
		}
	}
}

// holds walks d with a claim of the key its parameter name is given.
func (s *scope) holds(d *ast.FuncDecl, fn *types.Func, g *cfg.CFG, name *ast.Ident, i int) (*Holds, bool) {
	v, ok := s.pass.TypesInfo.Defs[name].(*types.Var)
	if !ok || name.Name == "_" || !isStringish(v.Type()) {
		return nil, false
	}
	c := &Claim{Call: &ast.CallExpr{Fun: ast.NewIdent("claim")}, Via: Directive, What: "the key", Key: name,
		held: map[*types.Var]bool{}, own: map[*types.Var]bool{}}
	settled := false
	inspectBody(d.Body, func(call *ast.CallExpr) {
		settled = settled || s.settles(c, call) != 0
	})
	if !settled {
		return nil, false
	}
	f := &Func{Node: d, Body: d.Body, Sig: fn.Signature()}
	var first *Exit
	for e := range s.walkWhole(f, c, g, 2) {
		if e.Error && (first == nil || e.Pos().Pos() < first.Pos().Pos()) {
			first = &e
		}
	}
	if first == nil {
		return nil, false
	}
	p := s.pass.Fset.Position(first.Pos().Pos())
	return &Holds{Param: i, Where: fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)}, true
}
