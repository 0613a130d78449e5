package audittest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idemkit/internal/rules"
)

// Examples runs a check over the bad and good examples of its entry in the
// rules catalogue and returns its findings in each, so that a test can pin
// what `idemkit rules` shows: the bad example is reported, the good one is
// not. Each example is compiled as a package of its own that starts with
// preamble, the imports and declarations the examples take for granted;
// the library copies of Dir are importable.
func Examples(t testing.TB, a *analysis.Analyzer, preamble string) (bad, good []analysis.Diagnostic) {
	t.Helper()
	c, ok := rules.Default().Check(a.Name)
	if !ok {
		t.Fatalf("audittest: no catalogue entry for %s", a.Name)
	}
	dir := Dir(t)
	for name, code := range map[string]string{"examplebad": c.Bad, "examplegood": c.Good} {
		pkg := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package " + name + "\n\n" + preamble + "\n" + code
		if err := os.WriteFile(filepath.Join(pkg, "example.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  dir,
		Env:  append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOFLAGS=", "GOWORK=off"),
	}, "examplebad", "examplegood")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("audittest: the %s examples do not compile with the preamble", a.Name)
	}
	g, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, act := range g.Roots {
		if act.Err != nil {
			t.Fatal(act.Err)
		}
		if act.Package.PkgPath == "examplebad" {
			bad = act.Diagnostics
		} else {
			good = act.Diagnostics
		}
	}
	return bad, good
}
