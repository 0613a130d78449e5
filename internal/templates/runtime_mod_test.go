package templates

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestRuntimeModMatchesGoMod keeps runtime.mod equal to what idemkit's go.mod says about the
// modules the runtime imports, so the go get line printed to users names the versions the
// runtime's tests ran with. -update rewrites runtime.mod from go.mod.
func TestRuntimeModMatchesGoMod(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	imports := runtimeThirdPartyImports(t)
	var b bytes.Buffer
	b.WriteString("// The go directive and the requirements of idemkit's go.mod that the runtime's imports need.\n")
	b.WriteString("// Kept in step by TestRuntimeModMatchesGoMod: go test ./internal/templates -run TestRuntimeModMatchesGoMod -update\n")
	b.WriteString("module " + idemkitModule + "\n\n")
	fmt.Fprintf(&b, "go %s\n\nrequire (\n", gomod.Go.Version)
	reqs := slices.Clone(gomod.Require)
	slices.SortFunc(reqs, func(a, b *modfile.Require) int { return strings.Compare(a.Mod.Path, b.Mod.Path) })
	for _, r := range reqs {
		if providesAny(r.Mod.Path, imports) {
			fmt.Fprintf(&b, "\t%s %s\n", r.Mod.Path, r.Mod.Version)
		}
	}
	b.WriteString(")\n")
	for _, p := range imports {
		if !slices.ContainsFunc(gomod.Require, func(r *modfile.Require) bool { return provides(r.Mod.Path, p) }) {
			t.Errorf("the runtime imports %s, which idemkit's go.mod does not require", p)
		}
	}
	if *update {
		if err := os.WriteFile("runtime.mod", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(runtimeMod, b.Bytes()) {
		t.Errorf("runtime.mod is out of step with go.mod (go test ./internal/templates -run TestRuntimeModMatchesGoMod -update); want:\n%s\ngot:\n%s", b.Bytes(), runtimeMod)
	}
}

// runtimeThirdPartyImports lists the imports of every runtime Go file, tests included, that are
// neither the standard library nor the runtime.
func runtimeThirdPartyImports(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := fs.WalkDir(runtimeFS, runtimeRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" {
			return err
		}
		data, err := fs.ReadFile(runtimeFS, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := runtimeRel(ip); !ok && strings.Contains(strings.Split(ip, "/")[0], ".") {
				seen[ip] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sortedKeys(seen)
}

func provides(mod, pkg string) bool { return pkg == mod || strings.HasPrefix(pkg, mod+"/") }

func providesAny(mod string, pkgs []string) bool {
	return slices.ContainsFunc(pkgs, func(p string) bool { return provides(mod, p) })
}
