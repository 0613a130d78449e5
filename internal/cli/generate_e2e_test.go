package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGenerateRuntimeEndToEnd is the proof that the generated runtime is a working library in a
// user's module: for each store combination it generates into a fresh module (go mod init),
// runs the go get line the command printed, and builds and vets the result; then it generates
// again with --with-tests and runs the generated tests too. The Redis and Postgres tests reach the
// servers named by IDEMKIT_TEST_REDIS_URL and IDEMKIT_TEST_DATABASE_URL (make test starts them),
// skip without them, and fail without them under CI=true. The module cache and build cache are
// the environment's, shared by the three modules.
func TestGenerateRuntimeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests three generated modules with the go command; skipped under -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build generated code: %v", err)
	}
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		pkgDir string // the core package's directory in the module
	}{
		{"memory", []string{"--dir", "idem"}, "idem"},
		// The core package renamed after its directory: references to it are rewritten.
		{"memory+redis", []string{"--dir", "internal/dedup", "--stores", "memory,redis"}, "internal/dedup"},
		// A package name the runtime uses for other things: the import keeps the name idem.
		{"memory+redis+postgres", []string{"--dir", "internal/platform/keys", "--package", "ctx", "--stores", "memory,redis,postgres"}, "internal/platform/keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mod := t.TempDir()
			goCmd(t, gobin, mod, "mod", "init", "example.com/app")

			// The library alone.
			goGet(t, gobin, mod, tc.args...)
			goCmd(t, gobin, mod, "build", "./...")
			goCmd(t, gobin, mod, "vet", "./...")

			// Its tests as well: a regeneration over the first, then the tests run.
			withTests := slices.Concat(tc.args, []string{"--with-tests"})
			goGet(t, gobin, mod, withTests...)
			goCmd(t, gobin, mod, "build", "./...")
			goCmd(t, gobin, mod, "vet", "./...")
			out := goCmd(t, gobin, mod, "test", "-count=1", "-timeout=5m", "./...")
			t.Logf("go test ./...:\n%s", out)
			if !strings.Contains(out, "ok  \texample.com/app/"+tc.pkgDir+"\t") {
				t.Errorf("the core package's tests did not run")
			}

			if code, stdout, stderr := run(t, mod, "", false, nil, append([]string{"generate", "runtime", "--check"}, withTests...)...); code != 0 {
				t.Errorf("--check after building: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// goGet runs idemkit generate runtime with args in mod, then the go get line it printed.
func goGet(t *testing.T, gobin, mod string, args ...string) {
	t.Helper()
	code, stdout, stderr := run(t, mod, "", false, nil, append([]string{"generate", "runtime"}, args...)...)
	if code != 0 {
		t.Fatalf("generate runtime %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	var line string
	for l := range strings.Lines(stdout) {
		if rest, ok := strings.CutPrefix(l, "  go get "); ok {
			line = strings.TrimSpace(rest)
		}
	}
	if line == "" {
		t.Fatalf("no go get line in the output:\n%s", stdout)
	}
	goCmd(t, gobin, mod, append([]string{"get"}, strings.Fields(line)...)...)
}

// goCmd runs the go command in dir and returns its combined output, failing the test if it
// fails. The toolchain is the one running the test, and no go.work applies.
func goCmd(t *testing.T, gobin, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), filepath.Base(dir), err, out)
	}
	return string(out)
}
