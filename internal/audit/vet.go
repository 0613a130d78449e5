package audit

import (
	"encoding/json"
	"flag"
	"go/build"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// cacheKeyUsage documents -cachekey, a vet-tool flag whose value the
// analysis ignores. go vet keys its cache on the tool's flags, so a new
// value makes it analyse every package again, dependencies included,
// instead of replaying what it stored: for timing the analysis with the
// compiled packages warm (make bench-vet), and for the case where go vet
// stored a package's empty output when it analysed it only as a
// dependency and replays that when the package is vetted directly.
const cacheKeyUsage = "ignored by the analysis; a new value makes go vet analyse again instead of replaying its cache"

// factProducers are the analyzers of the suite, its checks and what they
// require, that export facts, which is all a dependency is analysed for:
// the directives, ctrlflow's functions that never return, the effect
// summaries, attemptkey's keys. Every one must run there: a package vetted
// in full writes the facts of all of them to its vetx file, and a
// facts-only run over a package that imports it fails, without a word, on
// a fact type it does not know (seen with attemptkey's).
var factProducers = producers(Analyzers)

// producers returns the analyzers in the closure of as (Requires
// included) that export facts, each once, in a stable order.
func producers(as []*analysis.Analyzer) []*analysis.Analyzer {
	var out []*analysis.Analyzer
	seen := map[*analysis.Analyzer]bool{}
	var visit func(a *analysis.Analyzer)
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		if len(a.FactTypes) > 0 {
			out = append(out, a)
		}
	}
	for _, a := range as {
		visit(a)
	}
	return out
}

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
	if cfg, std, ok := factsOnly(os.Args[1:]); ok {
		// Nothing is reported for this package, so no output flag applies.
		os.Args = []string{os.Args[0], cfg}
		if std {
			// The standard library holds no claims, keys or effects the
			// checks follow; only its functions that never return
			// (os.Exit, log.Fatal) matter to the packages above it.
			unitchecker.Main(ctrlflow.Analyzer)
		}
		unitchecker.Main(factProducers...)
	}
	unitchecker.Main(Analyzers...)
}

// factsOnly returns the vet config file of args when go vet asks only for
// the package's facts, and whether the package is the standard library's.
func factsOnly(args []string) (cfg string, std, ok bool) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return "", false, false
	}
	cfg = args[len(args)-1]
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", false, false // unitchecker reports it
	}
	var c struct {
		VetxOnly   bool
		Dir        string
		ImportPath string
	}
	if json.Unmarshal(data, &c) != nil || !c.VetxOnly {
		return "", false, false
	}
	goroot := filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)
	return cfg, strings.HasPrefix(filepath.Clean(c.Dir)+string(filepath.Separator), goroot) || inert(c.ImportPath), true
}

// inertPrefixes are widely used libraries that reach no store, key or
// outgoing request the checks follow: toolchains, terminals, encodings,
// telemetry. Like the standard library, a facts-only run over them needs
// only ctrlflow's facts.
var inertPrefixes = []string{
	"golang.org/x/tools/", "golang.org/x/mod/", "golang.org/x/sync/", "golang.org/x/text/", "golang.org/x/sys/",
	"golang.org/x/term/", "golang.org/x/exp/", "golang.org/x/crypto/",
	"github.com/charmbracelet/", "github.com/muesli/", "github.com/lucasb-eyer/", "github.com/aymanbagabas/",
	"github.com/spf13/", "gopkg.in/yaml.", "github.com/yuin/goldmark", "github.com/alecthomas/chroma",
	"github.com/microcosm-cc/bluemonday", "github.com/rivo/uniseg", "github.com/mattn/go-", "github.com/dlclark/regexp2",
	"google.golang.org/protobuf/", "github.com/google/go-cmp/", "go.opentelemetry.io/otel", "github.com/prometheus/",
}

// inert reports whether path belongs to one of the inert libraries.
func inert(path string) bool {
	for _, p := range inertPrefixes {
		if strings.HasPrefix(path+"/", p) || strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
