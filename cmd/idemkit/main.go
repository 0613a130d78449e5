// Command idemkit makes idempotency keys hard to get wrong: it designs
// specs (idemkit design), audits Go code (idemkit audit, or go vet
// -vettool), and generates a runtime library (idemkit generate).
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/cli"
)

func main() {
	if isVetProtocol(os.Args[1:]) {
		flag.String("cachekey", "", cacheKeyUsage)
		unitchecker.Main(audit.Analyzers...) // does not return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	wd, _ := os.Getwd()
	code := cli.Main(ctx, &cli.Factory{IO: cli.System(), Getenv: os.Getenv, Dir: wd}, os.Args[1:])
	stop()
	os.Exit(code)
}

// cacheKeyUsage documents -cachekey, a vet-tool flag whose value the
// analysis ignores. go vet keys its cache on the tool's flags, so a new
// value makes it analyse every package again, dependencies included,
// instead of replaying what it stored: for timing the analysis with the
// compiled packages warm (make bench-vet), and for the case where go vet
// stored a package's empty output when it analysed it only as a
// dependency and replays that when the package is vetted directly.
const cacheKeyUsage = "ignored by the analysis; a new value makes go vet analyse again instead of replaying its cache"

// isVetProtocol reports whether go vet is invoking idemkit as a vet tool:
// "-flags", "-V=full", or flags followed by a single *.cfg file. It is
// checked before cobra so that vet's flags never reach the CLI.
func isVetProtocol(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args[:len(args)-1] {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	last := args[len(args)-1]
	switch {
	case last == "-flags", last == "-V=full", strings.HasPrefix(last, "-V="):
		return true
	case strings.HasSuffix(last, ".cfg") && !strings.HasPrefix(last, "-"):
		return true
	}
	return false
}
