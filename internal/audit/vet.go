package audit

import (
	"flag"

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

// VetMain runs the suite as a go vet tool (the unitchecker protocol) and
// does not return. Both idemkit and the slim idemkit-vet call it, so the
// two answer go vet alike.
func VetMain() {
	flag.String("cachekey", "", cacheKeyUsage)
	unitchecker.Main(Analyzers...)
}
