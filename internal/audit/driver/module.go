package driver

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// resolveInterfaces summarises every function of pkgs and their
// dependencies once, ahead of the checks, so that in the run that follows
// a call through an interface takes the effects of the module's methods
// that implement it: a repository declared by a service and implemented
// in a package that imports it is analysed after the service, too late
// for a fact. go vet, which sees one package at a time, has no such pass.
// It returns the function that detaches what it found from pkgs.
func resolveInterfaces(pkgs []*packages.Package) (func(), error) {
	graph, err := checker.Analyze([]*analysis.Analyzer{effect.Analyzer}, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("summarise effects: %w", err)
	}
	m := effect.NewModule()
	var all []*types.Package
	for act := range graph.All() {
		if act.Analyzer != effect.Analyzer || act.Package == nil {
			continue
		}
		all = append(all, act.Package.Types)
		for _, f := range act.AllObjectFacts() {
			fn, ok := f.Object.(*types.Func)
			s, isSummary := f.Fact.(*effect.Summary)
			// A method declared in a test file is a fake standing in for
			// the real store in tests: production calls never reach it.
			if ok && isSummary && !strings.HasSuffix(act.Package.Fset.Position(fn.Pos()).Filename, "_test.go") {
				m.Add(fn, s)
			}
		}
	}
	return effect.Attach(m, all), nil
}
