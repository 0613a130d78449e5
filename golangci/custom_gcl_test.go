package golangci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/audit/driver"
)

// customGCLEnv names the golangci-lint built with this plugin that
// TestCustomGCL runs; make golangci-test builds it and sets it.
const customGCLEnv = "IDEMKIT_CUSTOM_GCL"

const (
	docPath      = "../docs/golangci-lint.md"
	buildModDir  = "../tools/golangci"
	golangciPath = "github.com/golangci/golangci-lint/v2"
)

// TestCustomGCL runs golangci-lint, built with the plugin, on the example
// service with the .golangci.yml of docs/golangci-lint.md, and checks that
// it reports what idemkit audit ./... reports there: each check's finding
// and each related place, at the same file, line and column, with the
// same text.
func TestCustomGCL(t *testing.T) {
	bin := os.Getenv(customGCLEnv)
	if bin == "" {
		t.Skipf("%s is not set: make golangci-test builds golangci-lint with the idemkit plugin (bin/custom-gcl) and runs this test with it", customGCLEnv)
	}
	dir, err := filepath.Abs("../testdata/example")
	if err != nil {
		t.Fatal(err)
	}

	want := auditFindings(t, dir)

	cfg := filepath.Join(t.TempDir(), ".golangci.yml")
	if err := os.WriteFile(cfg, docBlock(t, ".golangci.yml"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := customGCLFindings(t, bin, dir, cfg)

	if !slices.Equal(got, want) {
		t.Errorf("golangci-lint with the plugin reports\n\t%s\nidemkit audit ./... reports\n\t%s",
			strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// auditFindings returns what idemkit audit ./... finds in dir, one line per
// finding and per related place, in golangci-lint's words: the related
// places as the "(related information)" findings it makes of them. It
// fails the test unless each check of the suite reports exactly one
// finding there, so the comparison cannot pass on an empty run.
func auditFindings(t *testing.T, dir string) []string {
	t.Helper()
	res, err := driver.Run(context.Background(), driver.Options{Dir: dir, Analyzers: audit.Analyzers})
	if err != nil {
		t.Fatalf("idemkit audit ./... in %s: %v", dir, err)
	}
	for _, e := range res.Errors {
		t.Errorf("idemkit audit ./... in %s: %v", dir, e)
	}
	var lines []string
	perCheck := map[string]int{}
	for _, f := range res.Findings {
		perCheck[f.Analyzer]++
		lines = append(lines, finding(dir, f.Pos.Filename, f.Pos.Line, f.Pos.Column, f.Analyzer+": "+f.Message))
		for _, r := range f.Related {
			lines = append(lines, finding(dir, r.Pos.Filename, r.Pos.Line, r.Pos.Column, f.Analyzer+"(related information): "+r.Message))
		}
	}
	for _, a := range audit.Analyzers {
		if perCheck[a.Name] != 1 {
			t.Fatalf("idemkit audit ./... in %s: %d %s findings, want the example's one (all: %v)", dir, perCheck[a.Name], a.Name, perCheck)
		}
	}
	slices.Sort(lines)
	return lines
}

// customGCLFindings runs bin on ./... in dir with the config file cfg and
// returns the plugin's findings as auditFindings words them.
func customGCLFindings(t *testing.T, bin, dir, cfg string) []string {
	t.Helper()
	// Only the plugin runs, not the standard linters the config leaves
	// on. Every finding is kept: by default golangci-lint keeps 3 with
	// the same text and one per line, and a related place can share a
	// line with its finding.
	cmd := exec.Command(bin, "run", "--config", cfg, "--enable-only="+Name, "--path-mode=abs", "--output.json.path=stdout",
		"--show-stats=false", "--max-issues-per-linter=0", "--max-same-issues=0", "--uniq-by-line=false", "./...")
	cmd.Dir = dir
	// A cache of its own: golangci-lint's is keyed on the binary's
	// version, and a build of changed checks must not read old results.
	cmd.Env = append(os.Environ(), "GOLANGCI_LINT_CACHE="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("%s: %v, want exit status 1 (issues found)\nstderr:\n%s\nstdout:\n%s", strings.Join(cmd.Args, " "), err, &stderr, &stdout)
	}
	var out struct {
		Issues []struct {
			FromLinter string
			Text       string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%s: reading its JSON output: %v\n%s", strings.Join(cmd.Args, " "), err, &stdout)
	}
	var lines []string
	for _, is := range out.Issues {
		if is.FromLinter != Name {
			t.Errorf("finding from linter %q, want only %q: %s", is.FromLinter, Name, is.Text)
			continue
		}
		lines = append(lines, finding(dir, is.Pos.Filename, is.Pos.Line, is.Pos.Column, is.Text))
	}
	slices.Sort(lines)
	return lines
}

// finding formats one finding as file:line:column: text, the file
// relative to dir.
func finding(dir, file string, line, col int, text string) string {
	if rel, err := filepath.Rel(dir, file); err == nil {
		file = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, line, col, text)
}

// TestDocConfigs checks the two files docs/golangci-lint.md tells a team
// to add: .custom-gcl.yml builds this package into the golangci-lint
// release that make golangci builds, and .golangci.yml turns on the linter
// this package registers, with settings New accepts.
func TestDocConfigs(t *testing.T) {
	t.Parallel()

	var custom struct {
		Version, Name, Destination string
		Plugins                    []struct{ Module, Import, Version, Path string }
	}
	decodeStrict(t, ".custom-gcl.yml", &custom)
	pkgPath := reflect.TypeFor[Plugin]().PkgPath()
	if len(custom.Plugins) != 1 {
		t.Fatalf(".custom-gcl.yml: %d plugins, want idemkit's alone", len(custom.Plugins))
	}
	p := custom.Plugins[0]
	if p.Module != "github.com/idemkit/idemkit" || p.Import != pkgPath || p.Version == "" || p.Path != "" {
		t.Errorf(".custom-gcl.yml plugin = %+v, want module github.com/idemkit/idemkit, import %s and a version", p, pkgPath)
	}
	if built := buildModVersion(t); custom.Version != built {
		t.Errorf(".custom-gcl.yml builds golangci-lint %s, but %s/go.mod requires %s: make golangci must build the release the docs name", custom.Version, buildModDir, built)
	}
	if imports := buildModImports(t); !slices.Equal(imports, []string{pkgPath}) {
		t.Errorf("%s/plugins.go imports %q, want only %q, as golangci-lint custom writes it", buildModDir, imports, pkgPath)
	}

	var lint struct {
		Version string
		Linters struct {
			Enable   []string
			Settings struct {
				Custom map[string]struct {
					Type, Description string
					OriginalURL       string `yaml:"original-url"`
					Settings          any
				}
			}
		}
	}
	decodeStrict(t, ".golangci.yml", &lint)
	if lint.Version != "2" {
		t.Errorf(".golangci.yml: version %q, want \"2\" (golangci-lint v2's format)", lint.Version)
	}
	if !slices.Contains(lint.Linters.Enable, Name) {
		t.Errorf(".golangci.yml: linters.enable is %q, want it to hold %q", lint.Linters.Enable, Name)
	}
	c, ok := lint.Linters.Settings.Custom[Name]
	if !ok || c.Type != "module" {
		t.Fatalf(".golangci.yml: linters.settings.custom.%s = %+v, want type: module", Name, c)
	}
	if _, err := New(c.Settings); err != nil {
		t.Errorf(".golangci.yml: settings the plugin refuses: %v", err)
	}
}

// docBlock returns the YAML block of docs/golangci-lint.md whose first
// line is the comment "# name".
func docBlock(t *testing.T, name string) []byte {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?ms)^```yaml\n(# " + regexp.QuoteMeta(name) + "\n.*?)^```$")
	m := re.FindAllSubmatch(doc, -1)
	if len(m) != 1 {
		t.Fatalf("%s: %d yaml blocks starting with \"# %s\", want 1", docPath, len(m), name)
	}
	return m[0][1]
}

// decodeStrict decodes the doc's block name into v, failing on a key v
// does not have, so a misspelt key in the docs fails here.
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(docBlock(t, name)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %s: %v", docPath, name, err)
	}
}

// buildModVersion returns the golangci-lint version tools/golangci requires.
func buildModVersion(t *testing.T) string {
	t.Helper()
	path := filepath.Join(buildModDir, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == golangciPath {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s: no require of %s", path, golangciPath)
	return ""
}

// buildModImports returns the imports of tools/golangci/plugins.go.
func buildModImports(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(buildModDir, "plugins.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
