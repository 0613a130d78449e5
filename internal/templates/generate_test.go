package templates

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/txtar"
)

// fixtureMod stands in for runtime.mod in tests over the fixture runtime.
const fixtureMod = `module github.com/idemkit/idemkit

go 1.26.0

require (
	github.com/gowebpki/jcs v1.0.2
	github.com/jackc/pgx/v5 v5.12.0
	github.com/redis/go-redis/v9 v9.23.0
)
`

// fixture returns the stand-in runtime of testdata/generate/runtime.txtar as a file system,
// with extra files added or replaced.
func fixture(t *testing.T, extra map[string]string) fs.FS {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "generate", "runtime.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range ar.Files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	for name, data := range extra {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func generateFixture(t *testing.T, extra map[string]string, opts RuntimeOptions) (*Runtime, error) {
	t.Helper()
	mod, err := modfile.ParseLax("runtime.mod", []byte(fixtureMod), nil)
	if err != nil {
		t.Fatal(err)
	}
	return generateRuntime(fixture(t, extra), mod, opts)
}

// archive renders a Runtime as a txtar archive: its fields in the comment, its files in order.
func archive(rt *Runtime) []byte {
	var c bytes.Buffer
	fmt.Fprintf(&c, "import path: %s\npackage: %s\nstores: %s\ngo: %s\ndirs: %s\n",
		rt.ImportPath, rt.Package, strings.Join(rt.Stores, ","), rt.GoVersion, strings.Join(rt.Dirs, " "))
	for _, r := range rt.Requires {
		fmt.Fprintf(&c, "requires: %s (%s %s)\n", r.Package, r.Module, r.Version)
	}
	for _, o := range rt.Omitted {
		fmt.Fprintf(&c, "omitted: %s (needs %s%s)\n", o.Path, o.Missing, via(o))
	}
	ar := &txtar.Archive{Comment: c.Bytes()}
	for _, p := range sortedKeys(rt.Files) {
		ar.Files = append(ar.Files, txtar.File{Name: p, Data: rt.Files[p]})
	}
	return txtar.Format(ar)
}

func via(o Omission) string {
	if o.Via == "" {
		return ""
	}
	return " through " + o.Via
}

// golden compares got with testdata/generate/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "generate", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/templates -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test ./internal/templates -update rewrites it); got:\n%s", path, got)
	}
}

// TestGenerateRuntimeFixture pins everything generation does to a small stand-in runtime, whose
// output changes only when generation does: headers, rewritten imports, renamed packages, the
// choice of files, the requirements.
func TestGenerateRuntimeFixture(t *testing.T) {
	t.Parallel()
	cases := []struct {
		golden string
		opts   RuntimeOptions
	}{
		// The defaults: the core package named after its directory, no stores, no tests.
		{"memory.golden", RuntimeOptions{Module: "example.com/app", Dir: "internal/idem"}},
		// Everything, the core renamed: references to it follow, a local variable named idem
		// does not.
		{"all-tests.golden", RuntimeOptions{Module: "example.com/app", Dir: "internal/dedup", Stores: []string{"postgres", "redis", "memory"}, WithTests: true}},
		// A name the runtime already uses as an identifier keeps idem as the import name; the
		// library test needing postgres is left out.
		{"redis-tests-alias.golden", RuntimeOptions{Module: "app", Dir: "pkg/canon", Package: "jcs", Stores: []string{"redis"}, WithTests: true}},
		// The module root itself.
		{"root.golden", RuntimeOptions{Module: "example.com/keys", Dir: ".", Stores: []string{"postgres"}}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			tc.opts.Version = "v1.2.3"
			rt, err := generateFixture(t, nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, archive(rt))
			checkFiles(t, rt)
		})
	}
}

// TestGenerateRuntimeEmbedded generates the real runtime: the list of files each choice writes
// is pinned, and every file is checked as a user's build would see it.
func TestGenerateRuntimeEmbedded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		golden string
		opts   RuntimeOptions
	}{
		{"files-memory.golden", RuntimeOptions{Module: "example.com/app", Dir: "internal/idem"}},
		{"files-redis-tests.golden", RuntimeOptions{Module: "example.com/app", Dir: "internal/idem", Stores: []string{"redis"}, WithTests: true}},
		{"files-all-tests.golden", RuntimeOptions{Module: "example.com/app", Dir: "internal/idem", Stores: StoreNames(), WithTests: true}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			tc.opts.Version = "v1.2.3"
			rt, err := GenerateRuntime(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var list bytes.Buffer
			for _, p := range sortedKeys(rt.Files) {
				fmt.Fprintln(&list, p)
			}
			for _, o := range rt.Omitted {
				fmt.Fprintf(&list, "omitted %s (needs %s%s)\n", o.Path, o.Missing, via(o))
			}
			for _, r := range rt.Requires {
				fmt.Fprintf(&list, "requires %s@%s\n", r.Package, r.Version)
			}
			golden(t, tc.golden, list.Bytes())
			checkFiles(t, rt)

			again, err := GenerateRuntime(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(archive(rt), archive(again)) {
				t.Error("generating twice with the same options gave different files")
			}
		})
	}
}

// checkFiles checks what every generated file must be: headed and intact; for Go files also
// gofmt'ed, recognised as generated by go/ast, importing nothing of idemkit, and in the package
// its directory says.
func checkFiles(t *testing.T, rt *Runtime) {
	t.Helper()
	header := regexp.MustCompile(`^(//|--) Code generated by idemkit v1\.2\.3\. DO NOT EDIT\.\n(//|--) idemkit:checksum sha256:[0-9a-f]{64}\n\n`)
	for p, data := range rt.Files {
		if !header.Match(data) {
			t.Errorf("%s: no header:\n%.200s", p, data)
		}
		if s := Inspect(data); s != Intact {
			t.Errorf("%s: Inspect = %v, want intact", p, s)
		}
		if filepath.Ext(p) != ".go" || strings.Contains(p, "testdata/") {
			continue
		}
		if formatted, err := format.Source(data); err != nil || !bytes.Equal(formatted, data) {
			t.Errorf("%s: not gofmt'ed (%v)", p, err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !ast.IsGenerated(f) {
			t.Errorf("%s: go/ast does not see a generated file", p)
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			if strings.HasPrefix(ip, idemkitModule) {
				t.Errorf("%s imports %s", p, ip)
			}
		}
		want := rt.Package
		if dir := filepath.Dir(p); dir != "." {
			want = filepath.Base(dir)
		}
		if got := strings.TrimSuffix(f.Name.Name, "_test"); got != want {
			t.Errorf("%s: package %s, want %s", p, got, want)
		}
	}
}

func TestGenerateRuntimeBadOptions(t *testing.T) {
	t.Parallel()
	ok := RuntimeOptions{Module: "example.com/app", Dir: "internal/idem", Version: "v1"}
	cases := []struct {
		name   string
		edit   func(*RuntimeOptions)
		option string
		reason string
	}{
		{"no module", func(o *RuntimeOptions) { o.Module = "" }, "module path", "names no module"},
		{"empty dir", func(o *RuntimeOptions) { o.Dir = "" }, "dir", "clean slash-separated"},
		{"dir escapes", func(o *RuntimeOptions) { o.Dir = "../idem" }, "dir", "inside the module"},
		{"dir is parent", func(o *RuntimeOptions) { o.Dir = ".." }, "dir", "inside the module"},
		{"absolute dir", func(o *RuntimeOptions) { o.Dir = "/tmp/idem" }, "dir", "inside the module"},
		{"unclean dir", func(o *RuntimeOptions) { o.Dir = "a/../b" }, "dir", "clean"},
		{"backslash", func(o *RuntimeOptions) { o.Dir = `a\b` }, "dir", "slash-separated"},
		{"testdata dir", func(o *RuntimeOptions) { o.Dir = "testdata/idem" }, "dir", "ignores"},
		{"underscore dir", func(o *RuntimeOptions) { o.Dir = "_gen/idem" }, "dir", "ignores"},
		{"invalid import path", func(o *RuntimeOptions) { o.Dir = "idem kit" }, "dir", "not a valid import path"},
		{"keyword package", func(o *RuntimeOptions) { o.Package = "func" }, "package", "keyword"},
		{"not an identifier", func(o *RuntimeOptions) { o.Package = "idem-kit" }, "package", "not a Go identifier"},
		{"digit first", func(o *RuntimeOptions) { o.Package = "1idem" }, "package", "not a Go identifier"},
		{"blank package", func(o *RuntimeOptions) { o.Package = "_" }, "package", "blank"},
		{"main package", func(o *RuntimeOptions) { o.Package = "main" }, "package", "library"},
		{"test package", func(o *RuntimeOptions) { o.Package = "idem_test" }, "package", "_test suffix"},
		{"unknown store", func(o *RuntimeOptions) { o.Stores = []string{"redis", "dynamo"} }, "store", "known stores: memory, redis, postgres"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := ok
			tc.edit(&opts)
			rt, err := GenerateRuntime(opts)
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v (%T), want an *OptionError", err, err)
			}
			if oe.Option != tc.option || !strings.Contains(oe.Reason, tc.reason) {
				t.Errorf("err = %v, want option %s and a reason containing %q", err, tc.option, tc.reason)
			}
			if rt != nil {
				t.Error("a Runtime came back with the error")
			}
		})
	}
	if _, err := GenerateRuntime(RuntimeOptions{Module: "example.com/app", Dir: "idem"}); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("no version: err = %v, want it refused", err)
	}
}

// TestGenerateRuntimeRefuses checks that a runtime which could not be generated safely fails
// loudly, naming the file, rather than produce code that does not build in the user's module.
func TestGenerateRuntimeRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		extra  map[string]string
		stores []string
		want   string
	}{
		{"import of idemkit outside the runtime",
			map[string]string{"idemhttp/spec.go": "package idemhttp\n\nimport _ \"github.com/idemkit/idemkit/internal/spec\"\n"}, nil,
			"idemhttp/spec.go imports github.com/idemkit/idemkit/internal/spec: generated code may import only"},
		{"import of the idemkit module root",
			map[string]string{"store.go": "package idem\n\nimport _ \"github.com/idemkit/idemkit\"\n"}, nil,
			"store.go imports github.com/idemkit/idemkit:"},
		{"library code needs a store not chosen",
			map[string]string{"idemhttp/redis.go": "package idemhttp\n\nimport _ \"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore\"\n"}, []string{"postgres"},
			"idemhttp/redis.go imports redisstore, which these options do not generate"},
		{"import of a runtime package that does not exist",
			map[string]string{"idemhttp/x.go": "package idemhttp\n\nimport _ \"github.com/idemkit/idemkit/internal/templates/runtime/idem/nothere\"\n"}, nil,
			"imports github.com/idemkit/idemkit/internal/templates/runtime/idem/nothere, which is not a runtime package"},
		{"third-party module without a requirement",
			map[string]string{"idemhttp/x.go": "package idemhttp\n\nimport _ \"golang.org/x/sync/errgroup\"\n"}, nil,
			"idemhttp/x.go imports golang.org/x/sync/errgroup, which no requirement"},
		{"a file that cannot carry a header",
			map[string]string{"pgstore/notes.txt": "notes\n"}, []string{"postgres"},
			`pgstore/notes.txt: no comment syntax known for ".txt" files`},
		{"a syntax error",
			map[string]string{"memory.go": "package idem\n\nfunc {\n"}, nil,
			"runtime source memory.go:3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rt, err := generateFixture(t, tc.extra, RuntimeOptions{Module: "example.com/app", Dir: "idem", Stores: tc.stores, Version: "v1"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			var oe *OptionError
			if errors.As(err, &oe) {
				t.Errorf("a defect of the runtime reported as a bad option: %v", err)
			}
			if rt != nil {
				t.Error("a Runtime came back with the error")
			}
		})
	}
}

func TestInspect(t *testing.T) {
	t.Parallel()
	body := []byte("package idem\n\n// X is x.\nvar X = 1\n")
	gen, err := withHeader("x.go", "v1.2.3", body)
	if err != nil {
		t.Fatal(err)
	}
	sql, err := withHeader("schema.sql", "devel", []byte("SELECT 1;\n"))
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := bytes.Cut(gen, []byte("\n"))
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	cases := []struct {
		name string
		data []byte
		want FileState
	}{
		{"generated", gen, Intact},
		{"generated sql", sql, Intact},
		{"empty", nil, NotGenerated},
		{"the user's file", body, NotGenerated},
		{"another generator's file", []byte("// Code generated by sqlc. DO NOT EDIT.\n\npackage db\n"), NotGenerated},
		{"body edited", append(bytes.Clone(gen), "var Y = 2\n"...), Edited},
		{"version edited", bytes.Replace(gen, []byte("v1.2.3"), []byte("v1.2.4"), 1), Intact},
		{"checksum line removed", append(append(bytes.Clone(first), '\n'), body...), Edited},
		{"checksum changed", bytes.Replace(gen, []byte("sha256:"), []byte("sha256:0"), 1), Edited},
		{"blank line removed", bytes.Replace(gen, []byte("\n\npackage"), []byte("\npackage"), 1), Edited},
		{"comment styles mixed", bytes.Replace(sql, []byte("-- idemkit:checksum"), []byte("// idemkit:checksum"), 1), Edited},
		{"header only", append(append(bytes.Clone(first), '\n'), second...), Edited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Inspect(tc.data); got != tc.want {
				t.Errorf("Inspect = %v, want %v, of:\n%s", got, tc.want, tc.data)
			}
		})
	}
}

func TestWithHeaderRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, file, version, want string }{
		{"unknown kind", "README.md", "v1", "no comment syntax"},
		{"no extension", "LICENSE", "v1", "no comment syntax"},
		{"empty version", "x.go", "", "version"},
		{"version with a space", "x.go", "v1 beta", "version"},
		{"version with a newline", "x.go", "v1\npackage evil", "version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := withHeader(tc.file, tc.version, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
