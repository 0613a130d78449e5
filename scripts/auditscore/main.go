// Command auditscore scores idemkit's checks on a corpus of marked
// scenario functions (default testdata/corpus; see its README): a table of
// bugs, findings, false positives, precision and recall per check, and
// with -v every miss and false positive with its place and scenario, to
// tune a check by. make audit-score runs it.
//
// Exit status: 0 scored, 1 some packages did not load (the rest is scored
// and their bugs count as missed), 2 bad usage or a malformed corpus.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/audit/score"
)

func main() {
	verbose := flag.Bool("v", false, "list every miss and every false positive with its place and scenario")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: auditscore [-v] [DIR]\n\nScores the audit on the corpus module in DIR (default testdata/corpus).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	dir := "testdata/corpus"
	switch flag.NArg() {
	case 0:
	case 1:
		dir = flag.Arg(0)
	default:
		flag.Usage()
		os.Exit(2)
	}
	report, loadErrs, err := score.Run(context.Background(), dir, audit.Analyzers)
	if err != nil {
		fmt.Fprintf(os.Stderr, "auditscore: %v\n", err)
		os.Exit(2)
	}
	for _, e := range loadErrs {
		fmt.Fprintf(os.Stderr, "auditscore: %v\n", e)
	}
	if err := score.WriteTable(os.Stdout, report, *verbose); err != nil {
		fmt.Fprintf(os.Stderr, "auditscore: %v\n", err)
		os.Exit(2)
	}
	if len(loadErrs) > 0 {
		fmt.Fprintf(os.Stderr, "auditscore: %d packages did not load; their bugs count as missed\n", len(loadErrs))
		os.Exit(1)
	}
}
