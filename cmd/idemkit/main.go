// Command idemkit makes idempotency keys hard to get wrong: it designs
// specs (idemkit design), audits Go code (idemkit audit, or go vet
// -vettool), and generates a runtime library (idemkit generate).
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/idemkit/idemkit/cmd/idemkit/internal/quietstart" // its init keeps Bubble Tea's from querying the terminal
	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/cli"
	"github.com/idemkit/idemkit/internal/handoff" // its init hands go vet's runs to idemkit-vet
)

func main() {
	quietstart.Restore()
	if handoff.IsVetProtocol(os.Args[1:]) {
		// Here when idemkit-vet is not beside idemkit, or IDEMKIT_VET_INPROCESS is set.
		audit.VetMain() // does not return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	wd, _ := os.Getwd()
	code := cli.Main(ctx, &cli.Factory{IO: cli.System(), Getenv: os.Getenv, Dir: wd}, os.Args[1:])
	stop()
	os.Exit(code)
}
