package audit

import (
	"encoding/json"
	"flag"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// cacheKeyUsage documents -cachekey, a vet-tool flag whose value the
// analysis ignores. go vet keys its cache on the tool's flags, so a new
// value makes it analyse every package again, dependencies included,
// instead of replaying what it stored: for timing the analysis with the
// compiled packages warm (make bench-vet), and for the case where go vet
// stored a package's empty output when it analysed it only as a
// dependency and replays that when the package is vetted directly.
const cacheKeyUsage = "ignored by the analysis; a new value makes go vet analyse again instead of replaying its cache"

// factProducers are the analyzers of the suite that export facts, which is
// all a dependency is analysed for: the directives (//idemkit:claim and its
// partners), ctrlflow's functions that never return, and the effect
// summaries.
var factProducers = []*analysis.Analyzer{directive.Analyzer, ctrlflow.Analyzer, effect.Analyzer}

// VetMain runs the suite as a go vet tool (the unitchecker protocol) and
// does not return. Both idemkit and the slim idemkit-vet call it, so the
// two answer go vet alike.
//
// go vet also runs the tool on every dependency of the packages it vets,
// the standard library included, only for the facts they export
// (VetxOnly). unitchecker then keeps every analyzer that requires one
// that exports facts, which is all four checks, and discards what they
// find; so for such a package VetMain runs the fact producers alone, and
// writes the same facts for a fraction of the work.
func VetMain() {
	flag.String("cachekey", "", cacheKeyUsage)
	if cfg, ok := factsOnly(os.Args[1:]); ok {
		// Nothing is reported for this package, so no output flag applies.
		os.Args = []string{os.Args[0], cfg}
		unitchecker.Main(factProducers...)
	}
	unitchecker.Main(Analyzers...)
}

// factsOnly returns the vet config file of args when go vet asks only for
// the package's facts.
func factsOnly(args []string) (string, bool) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return "", false
	}
	cfg := args[len(args)-1]
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", false // unitchecker reports it
	}
	var c struct{ VetxOnly bool }
	if json.Unmarshal(data, &c) != nil || !c.VetxOnly {
		return "", false
	}
	return cfg, true
}
