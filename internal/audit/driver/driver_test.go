package driver

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"
)

// withTests is drivertest.Module with a finding in a test and in an external test.
func withTests() map[string]string {
	m := maps.Clone(drivertest.Module)
	m["a/a_test.go"] = "package a\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/lib\"\n)\n\nfunc TestA(t *testing.T) { _ = lib.Bad() + A() }\n"
	m["a/x_test.go"] = "package a_test\n\nimport \"example.com/m/lib\"\n\nvar _ = lib.Bad()\n"
	return m
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, withTests())
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{drivertest.BadCall}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s:%d %s", relFile(f.Pos.Filename, dir), f.Pos.Line, f.Package))
		if len(f.Related) != 1 || !strings.HasSuffix(f.Related[0].Pos.Filename, filepath.Join("lib", "lib.go")) || f.Related[0].Pos.Line != 3 {
			t.Errorf("%s: related = %+v, want lib/lib.go:3", f.Pos, f.Related)
		}
		if len(f.Fixes) != 1 || len(f.Fixes[0].Edits) != 1 || f.Fixes[0].Edits[0].New != "Good" {
			t.Errorf("%s: fixes = %+v", f.Pos, f.Fixes)
		}
	}
	// Each call once: a.go is in both "a" and "a [a.test]" but only the
	// test variant is analysed.
	want := []string{
		"a/a.go:5 example.com/m/a [example.com/m/a.test]",
		"a/a_test.go:9 example.com/m/a [example.com/m/a.test]",
		"a/x_test.go:5 example.com/m/a_test [example.com/m/a.test]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Packages != 3 { // a [a.test], a_test [a.test], lib
		t.Errorf("analysed %d packages, want 3", res.Packages)
	}

	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	wantErrs := []string{
		"example.com/m/broken: not audited: it does not type-check\n\tbroken/b.go:3:23: undefined: undefined",
		"example.com/m/user: not audited: it imports example.com/m/broken, which does not type-check",
	}
	if strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(wantErrs, "\n"))
	}
}

func TestRunPatternErrors(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, drivertest.Module)
	cases := []struct {
		name     string
		dir      string
		patterns []string
		err      error  // a failure of the whole run
		errText  string // in the run's error
		pkgErr   string // else: the one package error
	}{
		{name: "directory without Go files", patterns: []string{"./empty"}, pkgErr: "./empty: no Go files in " + filepath.Join(dir, "empty")},
		{name: "pattern matching nothing", patterns: []string{"./empty/..."}, err: ErrNoPackages, errText: "no Go packages match ./empty/..."},
		{name: "missing directory", patterns: []string{"./nowhere"}, pkgErr: "./nowhere: stat " + filepath.Join(dir, "nowhere") + ": directory not found"},
		{name: "malformed import path", patterns: []string{"example.com/["}, pkgErr: `malformed import path "example.com/["`},
		{name: "outside any module", dir: t.TempDir(), pkgErr: "./...: pattern ./...: directory prefix . does not contain main module"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := dir
			if tc.dir != "" {
				d = tc.dir
			}
			res, err := Run(context.Background(), Options{Dir: d, Patterns: tc.patterns, Analyzers: []*analysis.Analyzer{drivertest.BadCall}})
			if tc.pkgErr != "" {
				if err != nil {
					t.Fatalf("err = %v, want a package error", err)
				}
				if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), tc.pkgErr) {
					t.Fatalf("errors = %v, want one with %q", res.Errors, tc.pkgErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Fatalf("err = %v, want %q", err, tc.errText)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("err = %v, want errors.Is %v", err, tc.err)
			}
		})
	}
}

func TestRunAnalyzerError(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, drivertest.Module)
	res, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./lib"}, Analyzers: []*analysis.Analyzer{drivertest.Failing}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || res.Errors[0].Analyzer != "failing" || res.Errors[0].Error() != "example.com/m/lib: analyzer failing failed\n\tit broke" {
		t.Fatalf("errors = %v", res.Errors)
	}
}

// TestRunUserCodeOnly checks what is loaded from source: the packages
// asked for and the main module's packages they import, whose facts the
// checks need even when the patterns leave them out; never a dependency
// outside the module (here the standard library), whose types come from
// export data.
func TestRunUserCodeOnly(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.26\n",
		"store/s.go": "package store\n\nimport \"strings\"\n\n//marked\nfunc Claim(k string) string { return strings.ToUpper(k) }\n",
		"svc/svc.go": "package svc\n\nimport (\n\t\"net/http\"\n\n\t\"example.com/m/store\"\n)\n\nfunc H(w http.ResponseWriter, r *http.Request) { _ = store.Claim(r.URL.Path) }\n",
		"other/o.go": "package other\n\nimport \"example.com/m/store\"\n\nvar _ = store.Claim(\"x\")\n",
	})
	var mu sync.Mutex
	saw := make(map[string]bool)
	marked := drivertest.Marked(func(path string) {
		mu.Lock()
		defer mu.Unlock()
		saw[path] = true
	})
	res, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./svc"}, Analyzers: []*analysis.Analyzer{marked}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if len(res.Findings) != 1 || res.Findings[0].Message != "call to marked Claim (marked)" || res.Packages != 1 {
		t.Errorf("findings %+v in %d packages; want the call in svc, through store's fact", res.Findings, res.Packages)
	}
	want := []string{"example.com/m/store", "example.com/m/svc"}
	if got := slices.Sorted(maps.Keys(saw)); !slices.Equal(got, want) {
		t.Errorf("analysed %v, want %v: only user code, and only what svc needs", got, want)
	}
}

// TestRunReplacedModule checks that a module replaced by a directory (a
// repository's second module) is user code: its facts reach the packages
// that import it.
func TestRunReplacedModule(t *testing.T) {
	t.Parallel()
	root := drivertest.WriteTree(t, map[string]string{
		"svc/go.mod":      "module example.com/svc\n\ngo 1.26\n\nrequire example.com/shared v0.0.0\n\nreplace example.com/shared => ../shared\n",
		"svc/svc.go":      "package svc\n\nimport \"example.com/shared\"\n\nfunc H(k string) { _ = shared.Claim(k) }\n",
		"shared/go.mod":   "module example.com/shared\n\ngo 1.26\n",
		"shared/store.go": "package shared\n\n//marked\nfunc Claim(k string) string { return k }\n",
	})
	res, err := Run(context.Background(), Options{Dir: filepath.Join(root, "svc"), Analyzers: []*analysis.Analyzer{drivertest.Marked(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 || len(res.Findings) != 1 || res.Findings[0].Message != "call to marked Claim (marked)" {
		t.Errorf("errors %v, findings %+v; want the call through the replaced module's fact", res.Errors, res.Findings)
	}
}

// bodiesTyped returns an analyzer that calls untyped with every
// identifier in a function body the type checker recorded nothing for. It
// exports a fact so that it runs on the dependencies too, as the checks'
// fact analyzers do, whose diagnostics the checker drops.
func bodiesTyped(untyped func(string)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:      "bodiestyped",
		Doc:       "identifiers in function bodies without types",
		FactTypes: []analysis.Fact{new(drivertest.IsMarked)},
		Run: func(pass *analysis.Pass) (any, error) {
			for _, file := range pass.Files {
				for _, decl := range file.Decls {
					fn, ok := decl.(*ast.FuncDecl)
					if !ok || fn.Body == nil {
						continue
					}
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok && id.Name != "_" && pass.TypesInfo.ObjectOf(id) == nil {
							untyped(fmt.Sprintf("%s in %s", id.Name, pass.Pkg.Path()))
						}
						return true
					})
				}
			}
			return nil, nil
		},
	}
}

// TestRunTestCopies checks that the copy of a package go list makes for
// another package's external test ("y [x.test]"), which go/packages
// type-checks without function bodies, is never analysed: the fact
// analyzers would walk bodies without types (a check crashed on one).
func TestRunTestCopies(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.26\n",
		"x/x.go":      "package x\n\nfunc X() int { return 1 }\n",
		"y/y.go":      "package y\n\nimport \"example.com/m/x\"\n\nfunc Y() int {\n\tn := x.X()\n\treturn n + 1\n}\n",
		"x/x_test.go": "package x_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/y\"\n)\n\nfunc TestY(t *testing.T) { _ = y.Y() }\n",
		// An internal test makes "x [x.test]" differ from x, so that go
		// list recompiles y against it for x_test.
		"x/in_test.go": "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { _ = X() }\n",
	})
	var mu sync.Mutex
	var untyped []string
	a := bodiesTyped(func(s string) {
		mu.Lock()
		defer mu.Unlock()
		untyped = append(untyped, s)
	})
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{a}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 || len(untyped) > 0 {
		t.Errorf("errors %v; identifiers analysed without types: %v", res.Errors, untyped)
	}
}

// TestRunUnloadableImport checks that a package whose import could not be
// loaded at all (a module the proxy refuses, a replacement directory that
// is not there) is reported with go's own reason for the import, which
// says what to fix, rather than only the type checker's "could not import
// ... (invalid package name)".
func TestRunUnloadableImport(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n\nrequire example.com/dep v0.1.0\n\nreplace example.com/dep => ./missing\n",
		"a/a.go": "package a\n\nimport \"example.com/dep/x\"\n\nfunc F() { x.G() }\n",
		"c/c.go": "package c\n\nimport \"example.com/m/a\"\n\nfunc H() { a.F() }\n",
	})
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{drivertest.BadCall}, Patterns: []string{"./c"}})
	if err != nil {
		t.Fatal(err)
	}
	// Audited alone, c reaches the unloadable package through a, and is
	// told why it could not be loaded.
	if len(res.Errors) != 1 {
		t.Fatalf("errors %v, want one for example.com/m/c", res.Errors)
	}
	got := res.Errors[0].Error()
	want := "example.com/m/c: not audited: it imports example.com/dep/x, which does not type-check\n" +
		"\texample.com/dep@v0.1.0: replacement directory ./missing does not exist"
	if got != want {
		t.Errorf("error:\n%s\nwant:\n%s", got, want)
	}

	res, err = Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{drivertest.BadCall}, Patterns: []string{"./a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 {
		t.Fatalf("errors %v, want one for example.com/m/a", res.Errors)
	}
	got = res.Errors[0].Error()
	want = "example.com/m/a: not audited: it does not type-check\n" +
		"\ta/a.go:3:8: could not import example.com/dep/x: example.com/dep@v0.1.0: replacement directory ./missing does not exist"
	if got != want {
		t.Errorf("error:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunIllTypedTests audits a package whose own files type-check and
// whose tests do not: the package is audited without them, and the error
// says that it is the tests that were not.
func TestRunIllTypedTests(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.26\n",
		"lib/lib.go":  "package lib\n\nfunc Bad() int { return 0 }\n\nfunc Good() int { return 1 }\n",
		"a/a.go":      "package a\n\nimport \"example.com/m/lib\"\n\nfunc A() int { return lib.Bad() }\n",
		"a/a_test.go": "package a\n\nvar _ int = \"not an int\"\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/lib\"\n\nfunc B() int { return lib.Bad() }\n",
		"b/x_test.go": "package b_test\n\nvar _ = undefined\n",
	})
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{drivertest.BadCall}, Patterns: []string{"./a", "./b"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		rel, _ := filepath.Rel(dir, f.Pos.Filename)
		got = append(got, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.Pos.Line))
	}
	if want := []string{"a/a.go:5", "b/b.go:5"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings %v, want %v: each package audited without its tests", got, want)
	}
	var errs []string
	for _, e := range res.Errors {
		if !e.Tests {
			t.Errorf("%s: Tests = false, want true", e.Package)
		}
		errs = append(errs, e.Error())
	}
	wantErrs := []string{
		"example.com/m/a: tests not audited: they do not type-check; the package itself was\n\ta/a_test.go:3:13: cannot use \"not an int\" (untyped string constant) as int value in variable declaration",
		"example.com/m/b: tests not audited: they do not type-check; the package itself was\n\tb/x_test.go:3:9: undefined: undefined",
	}
	if strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(wantErrs, "\n"))
	}
}
