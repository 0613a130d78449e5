package effect

import (
	"go/types"
	"sync"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// Module is what an in-process driver knows of the whole module: the
// summary of every concrete method, so that a call through an interface
// (a repository, a cache, a store declared by the caller and implemented
// in a package that imports it) takes the effects of the methods that
// implement it. go vet sees one package at a time and has none.
type Module struct {
	methods map[*types.Func]*Summary
	named   []*types.Named
}

// NewModule returns an empty Module; Add fills it.
func NewModule() *Module {
	return &Module{methods: map[*types.Func]*Summary{}}
}

// Add records the summary of a concrete method, from a first pass of
// Analyzer over the module.
func (m *Module) Add(fn *types.Func, s *Summary) {
	sig := fn.Signature()
	if sig.Recv() == nil || types.IsInterface(sig.Recv().Type()) {
		return
	}
	if _, ok := m.methods[fn]; !ok {
		if n := namedOf(sig.Recv().Type()); n != nil && !containsNamed(m.named, n) {
			m.named = append(m.named, n)
		}
	}
	m.methods[fn] = s
}

// implementations returns the summaries of the module's methods that
// implement the interface method fn, or nil when there is no Module or
// none implements it.
func (m *Module) implementations(fn *types.Func) []*Summary {
	if m == nil {
		return nil
	}
	var out []*Summary
	for _, n := range m.named {
		if impl := match.Implementation(n, fn); impl != nil {
			if s := m.methods[impl]; s != nil {
				out = append(out, s)
			}
		}
	}
	return out
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	if n != nil && n.TypeParams().Len() > 0 {
		return nil
	}
	return n
}

func containsNamed(ns []*types.Named, n *types.Named) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

// modules maps each package of an in-process run to its run's Module. The
// keys are the loaded packages' own *types.Package, so concurrent runs
// over separate loads never see each other's.
var modules sync.Map

// Attach makes m the Module of the packages pkgs for Analyzer's runs over
// them, and returns the function that forgets it.
func Attach(m *Module, pkgs []*types.Package) (forget func()) {
	for _, p := range pkgs {
		modules.Store(p, m)
	}
	return func() {
		for _, p := range pkgs {
			modules.Delete(p)
		}
	}
}

func lookupModule(p *types.Package) *Module {
	m, _ := modules.Load(p)
	mod, _ := m.(*Module)
	return mod
}
