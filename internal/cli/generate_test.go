package cli

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/idemkit/idemkit/internal/genplan"
	"github.com/idemkit/idemkit/internal/templates"
	"github.com/idemkit/idemkit/internal/version"
)

// snapshot returns every file under dir with its content, to show that a command wrote nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, p := range listFiles(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.ToSlash(p)] = string(b)
	}
	return files
}

// newModule makes a temporary module example.com/app and returns its directory.
func newModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.26.0\n")
	return dir
}

func TestGenerateRuntimeBadInput(t *testing.T) {
	t.Parallel()
	noModule := t.TempDir()
	if _, err := genplan.ResolveTarget(noModule, "."); err == nil {
		t.Skipf("%s is inside a Go module, so the no-module case cannot be shown here", noModule)
	}
	cases := []struct {
		name   string
		dir    string // the working directory: "" for a fresh module
		files  map[string]string
		args   []string
		stderr []string
	}{
		{name: "dir outside any module", dir: noModule, args: []string{"--dir", "idem"},
			stderr: []string{"is not inside a Go module", "go mod init"}},
		{name: "dir above the module", args: []string{"--dir", "../elsewhere"},
			stderr: []string{"is not inside a Go module"}},
		{name: "keyword package", args: []string{"--dir", "idem", "--package", "func"},
			stderr: []string{`--package "func": a Go keyword cannot name a package`}},
		{name: "package not an identifier", args: []string{"--dir", "idem", "--package", "idem-kit"},
			stderr: []string{`--package "idem-kit": not a Go identifier`}},
		{name: "unknown store", args: []string{"--dir", "idem", "--stores", "memory,dynamodb"},
			stderr: []string{`--stores "dynamodb": no such store; known stores: memory, redis, postgres`}},
		{name: "dir missing", args: []string{"--stores", "redis"},
			stderr: []string{"--dir is required"}},
		{name: "dir is a file", files: map[string]string{"idem": "not a directory\n"}, args: []string{"--dir", "idem"},
			stderr: []string{"--dir idem is a file, not a directory"}},
		{name: "dir the go command ignores", args: []string{"--dir", "testdata/idem"},
			stderr: []string{`--dir "testdata/idem": the go command ignores`}},
		{name: "go.mod without a module", files: map[string]string{"go.mod": "go 1.26.0\n"}, args: []string{"--dir", "idem"},
			stderr: []string{"names no module"}},
		{name: "broken go.mod", files: map[string]string{"go.mod": "module example.com/app\nrequire (\n"}, args: []string{"--dir", "idem"},
			stderr: []string{"go.mod:"}},
		{name: "an argument", args: []string{"--dir", "idem", "extra"},
			stderr: []string{`unknown command "extra"`}},
		{name: "unknown flag", args: []string{"--dir", "idem", "--store", "redis"},
			stderr: []string{"unknown flag: --store"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.dir
			if dir == "" {
				dir = newModule(t)
			}
			for name, content := range tc.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			before := snapshot(t, dir)
			code, stdout, stderr := run(t, dir, "", false, nil, append([]string{"generate", "runtime"}, tc.args...)...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("files changed: before %v, after %v", keys(before), keys(after))
			}
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestGenerateRuntimeLifecycle walks through what a user does over time: generate, regenerate,
// check in CI, edit a generated file by mistake, change the stores.
func TestGenerateRuntimeLifecycle(t *testing.T) {
	t.Parallel()
	mod := newModule(t)
	gen := func(args ...string) (int, string, string) {
		t.Helper()
		return run(t, mod, "", false, nil, append([]string{"generate", "runtime", "--dir", "internal/idem"}, args...)...)
	}
	idem := filepath.Join(mod, "internal", "idem")

	code, stdout, stderr := gen("--stores", "memory,redis")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"wrote internal/idem/doc.go\n",
		"wrote internal/idem/redisstore/redisstore.go\n",
		"Generated example.com/app/internal/idem (package idem; stores: memory, redis) in internal/idem:",
		"  go get ",
		"github.com/redis/go-redis/v9@v",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "pgx") || strings.Contains(stdout, "_test.go") {
		t.Errorf("postgres or tests written without being asked for:\n%s", stdout)
	}
	first := snapshot(t, idem)
	for p, content := range first {
		if templates.Inspect([]byte(content)) != templates.Intact {
			t.Errorf("%s is not an intact generated file", p)
		}
	}

	// Again with the same options: the same bytes, nothing written.
	if code, stdout, _ := gen("--stores", "redis"); code != 0 || strings.Contains(stdout, "wrote") || !strings.Contains(stdout, "0 written, 0 removed") {
		t.Errorf("regeneration: exit %d, stdout:\n%s", code, stdout)
	}
	if again := snapshot(t, idem); !maps.Equal(first, again) {
		t.Error("regenerating with the same options changed files")
	}
	if code, stdout, stderr := gen("--stores", "redis", "--check"); code != 0 || !strings.Contains(stdout, "internal/idem is up to date") {
		t.Errorf("check of a fresh generation: exit %d\n%s%s", code, stdout, stderr)
	}

	// A user's own file in DIR is theirs: never reported, never removed.
	writeFile(t, filepath.Join(idem, "mine.go"), "package idem\n")
	// Drift of every kind: missing, differing (another version's header), edited, extra.
	doGo := filepath.Join(idem, "do.go")
	if err := os.Remove(filepath.Join(idem, "derive.go")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(idem, "store.go"), strings.Replace(first["store.go"], "Code generated by idemkit "+version.String()+".", "Code generated by idemkit v0.0.1.", 1))
	writeFile(t, doGo, first["do.go"]+"\n// a hand edit\n")
	stale, err := templates.GenerateRuntime(templates.RuntimeOptions{Module: "example.com/app", Dir: "internal/idem", Stores: []string{"postgres"}, Version: version.String()})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(idem, "pgstore", "pgstore.go"), string(stale.Files["pgstore/pgstore.go"]))
	before := snapshot(t, mod)
	code, stdout, stderr = gen("--stores", "redis", "--check")
	if code != ExitFindings {
		t.Errorf("check with drift: exit %d, want 1; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"internal/idem/derive.go: missing\n",
		"internal/idem/store.go: differs\n",
		"internal/idem/do.go: differs (edited by hand)\n",
		"internal/idem/pgstore/pgstore.go: extra\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check does not report %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "mine.go") || !strings.Contains(stderr, "internal/idem has drifted from what idemkit generates (4 to fix)") {
		t.Errorf("check output:\n%s%s", stdout, stderr)
	}
	if after := snapshot(t, mod); !maps.Equal(before, after) {
		t.Error("--check wrote files")
	}

	// The hand edit blocks regeneration, naming the file; nothing at all is written.
	code, _, stderr = gen("--stores", "redis")
	if code != ExitUsage || !strings.Contains(stderr, "internal/idem/do.go (edited by hand)") || !strings.Contains(stderr, "--force") {
		t.Errorf("regenerating over an edit: exit %d, stderr:\n%s", code, stderr)
	}
	if after := snapshot(t, mod); !maps.Equal(before, after) {
		t.Error("a refused regeneration wrote files")
	}

	// --force overwrites the edit, restores the rest and removes the stale store.
	code, stdout, stderr = gen("--stores", "redis", "--force")
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"wrote internal/idem/do.go\n", "wrote internal/idem/derive.go\n", "wrote internal/idem/store.go\n", "removed internal/idem/pgstore/pgstore.go\n", "3 written, 1 removed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--force does not say %q:\n%s", want, stdout)
		}
	}
	after := snapshot(t, idem)
	delete(after, "mine.go")
	if !maps.Equal(first, after) {
		t.Errorf("after --force: %v, want %v", keys(after), keys(first))
	}
	if _, err := os.Stat(filepath.Join(idem, "pgstore")); !os.IsNotExist(err) {
		t.Errorf("the emptied pgstore directory is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(idem, "mine.go")); err != nil {
		t.Errorf("the user's own file is gone: %v", err)
	}

	// Dropping a store removes its files, unless one was edited.
	redis := filepath.Join(idem, "redisstore", "redisstore.go")
	writeFile(t, redis, first["redisstore/redisstore.go"]+"// mine now\n")
	if code, _, stderr := gen(); code != ExitUsage || !strings.Contains(stderr, "internal/idem/redisstore/redisstore.go (edited by hand, and no longer generated)") {
		t.Errorf("dropping a store with an edited file: exit %d, stderr:\n%s", code, stderr)
	}
	writeFile(t, redis, first["redisstore/redisstore.go"])
	if code, stdout, stderr := gen(); code != 0 || !strings.Contains(stdout, "removed internal/idem/redisstore/redisstore.go\n") {
		t.Errorf("dropping a store: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(idem, "redisstore")); !os.IsNotExist(err) {
		t.Errorf("the dropped store's directory is still there (%v)", err)
	}
}

// TestGenerateRuntimeRefusesForeignFiles checks that a file of the user's at a path the runtime
// needs is not overwritten without --force.
func TestGenerateRuntimeRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	mod := newModule(t)
	writeFile(t, filepath.Join(mod, "idem", "store.go"), "package idem\n\n// Store is mine.\ntype Store int\n")
	before := snapshot(t, mod)
	code, _, stderr := run(t, mod, "", false, nil, "generate", "runtime", "--dir", "idem")
	if code != ExitUsage || !strings.Contains(stderr, "idem/store.go (not generated by idemkit)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if after := snapshot(t, mod); !maps.Equal(before, after) {
		t.Error("files were written")
	}
	if code, _, stderr := run(t, mod, "", false, nil, "generate", "runtime", "--dir", "idem", "--force"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
}

// TestGenerateRuntimeStaysInsideDir checks that a symbolic link inside DIR cannot lead a write
// outside it.
func TestGenerateRuntimeStaysInsideDir(t *testing.T) {
	t.Parallel()
	mod := newModule(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(mod, "idem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(mod, "idem", "redisstore")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	code, _, stderr := run(t, mod, "", false, nil, "generate", "runtime", "--dir", "idem", "--stores", "redis", "--force")
	if code == 0 || !strings.Contains(stderr, "outside") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if files := listFiles(t, outside); len(files) != 0 {
		t.Errorf("written outside DIR: %v", files)
	}
}

// TestGenerateRuntimeTerminalAndPiped checks that the output is the same plain text on a
// terminal and piped, and that a DIR given from inside the module reads relative to it.
func TestGenerateRuntimeTerminalAndPiped(t *testing.T) {
	t.Parallel()
	var outs [2]string
	for i, tty := range []bool{true, false} {
		mod := newModule(t)
		sub := filepath.Join(mod, "cmd", "api")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, sub, "", tty, nil, "generate", "runtime", "--dir", "../../pkg/keys", "--stores", "postgres")
		if code != 0 {
			t.Fatalf("tty=%v: exit %d: %s", tty, code, stderr)
		}
		if strings.Contains(stdout, "\x1b[") {
			t.Errorf("tty=%v: escape sequences in the output:\n%q", tty, stdout)
		}
		for _, want := range []string{
			"wrote ../../pkg/keys/pgstore/pgstore.go\n",
			"Generated example.com/app/pkg/keys (package keys; stores: memory, postgres) in ../../pkg/keys:",
			"to your go.mod (run it in ../..):\n  go get ",
			"github.com/jackc/pgx/v5@v",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("tty=%v: stdout does not say %q:\n%s", tty, want, stdout)
			}
		}
		outs[i] = stdout
	}
	if outs[0] != outs[1] {
		t.Errorf("terminal and piped output differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

func TestGoGetLine(t *testing.T) {
	t.Parallel()
	rt := &templates.Runtime{
		GoVersion: "1.26.0",
		Requires: []templates.Requirement{
			{Package: "github.com/jackc/pgx/v5", Module: "github.com/jackc/pgx/v5", Version: "v5.12.0"},
			{Package: "github.com/jackc/pgx/v5/pgconn", Module: "github.com/jackc/pgx/v5", Version: "v5.12.0"},
			{Package: "github.com/gowebpki/jcs", Module: "github.com/gowebpki/jcs", Version: "v1.0.2"},
		},
	}
	cases := []struct {
		name, gomod, want string
	}{
		{"fresh module", "module m\n\ngo 1.26.0\n",
			"go get github.com/jackc/pgx/v5@v5.12.0 github.com/jackc/pgx/v5/pgconn@v5.12.0 github.com/gowebpki/jcs@v1.0.2"},
		{"older go directive", "module m\n\ngo 1.22\n",
			"go get go@1.26.0 github.com/jackc/pgx/v5@v5.12.0 github.com/jackc/pgx/v5/pgconn@v5.12.0 github.com/gowebpki/jcs@v1.0.2"},
		{"no go directive", "module m\n",
			"go get go@1.26.0 github.com/jackc/pgx/v5@v5.12.0 github.com/jackc/pgx/v5/pgconn@v5.12.0 github.com/gowebpki/jcs@v1.0.2"},
		{"newer go directive", "module m\n\ngo 1.27rc1\n",
			"go get github.com/jackc/pgx/v5@v5.12.0 github.com/jackc/pgx/v5/pgconn@v5.12.0 github.com/gowebpki/jcs@v1.0.2"},
		{"a newer version is kept", "module m\n\ngo 1.26.0\n\nrequire github.com/jackc/pgx/v5 v5.13.1\n",
			"go get github.com/jackc/pgx/v5@v5.13.1 github.com/jackc/pgx/v5/pgconn@v5.13.1 github.com/gowebpki/jcs@v1.0.2"},
		{"an older version is raised", "module m\n\ngo 1.26.0\n\nrequire github.com/gowebpki/jcs v1.0.0\n",
			"go get github.com/jackc/pgx/v5@v5.12.0 github.com/jackc/pgx/v5/pgconn@v5.12.0 github.com/gowebpki/jcs@v1.0.2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gomod, err := modfile.ParseLax("go.mod", []byte(tc.gomod), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := goGetLine(rt, gomod); got != tc.want {
				t.Errorf("goGetLine =\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
	if got := goGetLine(&templates.Runtime{GoVersion: "1.26.0"}, &modfile.File{Go: &modfile.Go{Version: "1.26.0"}}); got != "" {
		t.Errorf("nothing to get: goGetLine = %q, want empty", got)
	}
}
