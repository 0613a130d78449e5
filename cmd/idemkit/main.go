// Command idemkit makes idempotency keys hard to get wrong: it designs
// specs (idemkit design), audits Go code (idemkit audit, or go vet
// -vettool), and generates a runtime library (idemkit generate).
package main

import (
	"context"
	"os"
	"os/signal"
	"strings"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/cli"
)

func main() {
	if isVetProtocol(os.Args[1:]) {
		audit.VetMain() // does not return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	wd, _ := os.Getwd()
	code := cli.Main(ctx, &cli.Factory{IO: cli.System(), Getenv: os.Getenv, Dir: wd}, os.Args[1:])
	stop()
	os.Exit(code)
}

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
