package audit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idemkit/internal/audit"
)

// TestExample runs the suite over the example service in testdata/example,
// which holds one instance of each bug, and over its fixed copy, which
// holds none. `make demo` audits the first.
func TestExample(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		dir  string
		want []string // analyzer and file of each finding, sorted
	}{
		{"example", []string{
			"attemptkey cron/invoices.go",
			"cacheresponse payments/handler.go",
			"checkthenact webhooks/stripe.go",
			"releaseonerror queue/consumer.go",
		}},
		{"example-fixed", nil},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "..", "testdata", tt.dir)
			got := findings(t, dir, "./...")
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings in testdata/%s:\n got %q\nwant %q", tt.dir, got, tt.want)
			}
		})
	}
}

// TestRuntime runs the suite over the reference runtime that idemkit
// generate writes into users' modules: its claims, completions and
// releases are what the checks ask of everyone else.
func TestRuntime(t *testing.T) {
	t.Parallel()
	const base = "github.com/idemkit/idemkit/internal/templates/runtime/idem"
	if got := findings(t, ".", base, base+"/idemhttp", base+"/pgstore", base+"/redisstore"); len(got) > 0 {
		t.Errorf("findings in the runtime: %q", got)
	}
}

// findings loads patterns (with their tests) in dir, runs the suite and
// returns "analyzer file" for each finding, the file relative to dir,
// sorted.
func findings(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{
		Mode:  packages.LoadAllSyntax,
		Dir:   abs,
		Tests: true,
		Env:   append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off"),
	}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("%s does not load", dir)
	}
	g, err := checker.Analyze(audit.Analyzers, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	seen := map[string]bool{} // a package's findings again in its test variant
	for _, act := range g.Roots {
		if act.Err != nil {
			t.Fatalf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(abs, pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprintf("%s:%d:%d %s", pos.Filename, pos.Line, pos.Column, d.Message)
			if !seen[key] {
				seen[key] = true
				got = append(got, act.Analyzer.Name+" "+filepath.ToSlash(rel))
			}
		}
	}
	slices.Sort(got)
	return got
}
