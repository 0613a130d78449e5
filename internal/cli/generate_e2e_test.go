package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGenerateEndToEnd is the proof that what generate writes is working code in a user's module,
// for every store combination with every kind of handler: the walk a user takes. For each
// combination it starts a fresh module (go mod init) and
//
//   - generates the runtime alone, runs the go get line the command printed, and builds and vets
//     the library;
//   - generates it again with --with-tests, over the first, runs that go get line and vets, which
//     type-checks the runtime's tests with only what the line added;
//   - designs each preset (payment, webhook, queue, workflow, cron) with --generate into the same
//     module, which finds the runtime there, then runs go mod tidy;
//   - builds, vets and tests everything: the runtime's tests and each handler's generated tests
//     must run and pass;
//   - runs the analyzers over it all, as idemkit audit and as go vet -vettool with a freshly built
//     idemkit: they must find nothing, knowing the runtime through its directives;
//   - checks that generate runtime --check and generate handler --check find every file current.
//
// The combinations also rename the core package after its directory (references to it are
// rewritten) and give it a package name the runtime uses for other things (the import keeps the
// name idem). The Redis and Postgres tests reach the servers named by IDEMKIT_TEST_REDIS_URL and
// IDEMKIT_TEST_DATABASE_URL (make test starts them), skip without them, and fail without them
// under CI=true. The module path is new on every run, so go vet's cache cannot answer for the tool
// with an old result; the module and build caches are the environment's, shared by the modules.
func TestGenerateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests generated modules with the go command; skipped under -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build generated code: %v", err)
	}
	t.Parallel()

	// The vet tool: this checkout's idemkit, built once, by the first combination to need it.
	toolDir := t.TempDir()
	vettool := sync.OnceValues(func() (string, error) {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			return "", err
		}
		tool := filepath.Join(toolDir, "idemkit")
		if out, err := goRun(t.Context(), gobin, root, "build", "-o", tool, "./cmd/idemkit"); err != nil {
			return "", fmt.Errorf("go build ./cmd/idemkit: %v\n%s", err, out)
		}
		return tool, nil
	})

	stores := []struct {
		name string
		args []string // generate runtime's flags
		core string   // the core package's directory in the module
	}{
		{"memory", []string{"--dir", "idem"}, "idem"},
		// The core package renamed after its directory: references to it are rewritten.
		{"memory+redis", []string{"--dir", "internal/dedup", "--stores", "memory,redis"}, "internal/dedup"},
		{"memory+postgres", []string{"--dir", "internal/idem", "--stores", "memory,postgres"}, "internal/idem"},
		// A package name the runtime uses for other things: the import keeps the name idem.
		{"memory+redis+postgres", []string{"--dir", "internal/platform/keys", "--package", "ctx", "--stores", "memory,redis,postgres"}, "internal/platform/keys"},
	}
	kinds := []struct{ preset, operation, dir string }{
		{"payment", "charge card", "internal/payments"},
		{"webhook", "stripe events", "internal/webhooks"},
		{"queue", "order created", "internal/orders"},
		{"workflow", "fulfil order", "internal/fulfilment"},
		{"cron", "nightly rollup", "internal/jobs"},
	}
	stamp := time.Now().UnixNano()
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			// In parallel even on two cores: the store tests spend seconds waiting on leases and
			// servers, and one combination's waits overlap another's compiling (measured: about
			// 72s in parallel against 92s one after another).
			t.Parallel()
			mod := t.TempDir()
			path := fmt.Sprintf("example.com/e2e%d/%s", stamp, strings.ReplaceAll(sc.name, "+", "-"))
			goCmd(t, gobin, mod, "mod", "init", path)

			// The library alone.
			goGet(t, gobin, mod, sc.args...)
			goCmd(t, gobin, mod, "build", "./...")
			goCmd(t, gobin, mod, "vet", "./...")

			// Its tests as well: a regeneration over the first. Vet type-checks the tests, so the
			// go get line is proved to cover what they import before go mod tidy could add it.
			rtArgs := slices.Concat(sc.args, []string{"--with-tests"})
			goGet(t, gobin, mod, rtArgs...)
			goCmd(t, gobin, mod, "vet", "./...")

			// A handler of each kind, wired to that runtime.
			for _, k := range kinds {
				code, stdout, stderr := run(t, mod, "", false, nil, "design", "--preset", k.preset, k.operation, "--generate", k.dir)
				if code != 0 {
					t.Fatalf("design --preset %s --generate %s: exit %d\n%s%s", k.preset, k.dir, code, stdout, stderr)
				}
			}
			goCmd(t, gobin, mod, "mod", "tidy")
			goCmd(t, gobin, mod, "build", "./...")
			goCmd(t, gobin, mod, "vet", "./...")
			out := goCmd(t, gobin, mod, "test", "-count=1", "-timeout=5m", "./...")
			t.Logf("go test ./...:\n%s", out)
			if !strings.Contains(out, "ok  \t"+path+"/"+sc.core+"\t") {
				t.Errorf("the runtime's core package tests did not run and pass")
			}
			for _, k := range kinds {
				if !strings.Contains(out, "ok  \t"+path+"/"+k.dir+"\t") {
					t.Errorf("the generated tests of the %s handler did not run and pass", k.preset)
				}
			}

			// The analyzers find nothing, run either way.
			if code, stdout, stderr := run(t, mod, "", false, nil, "audit", "./..."); code != 0 {
				t.Errorf("idemkit audit on the generated code: exit %d\n%s%s", code, stdout, stderr)
			}
			tool, err := vettool()
			if err != nil {
				t.Fatal(err)
			}
			goCmd(t, gobin, mod, "vet", "-vettool="+tool, "./...")

			// Building, tidying and testing left every generated file as generate wrote it.
			if code, stdout, stderr := run(t, mod, "", false, nil, append([]string{"generate", "runtime", "--check"}, rtArgs...)...); code != 0 {
				t.Errorf("generate runtime --check after building: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, k := range kinds {
				spec := "knowledge/projects/idempotency-" + strings.ReplaceAll(k.operation, " ", "-") + ".md"
				if code, stdout, stderr := run(t, mod, "", false, nil, "generate", "handler", "--spec", spec, "--dir", k.dir, "--check"); code != 0 {
					t.Errorf("generate handler --check after building %s: exit %d\n%s%s", k.dir, code, stdout, stderr)
				}
			}
		})
	}
}

// goGet runs idemkit generate runtime with args in mod, then the go get line it printed, if it
// printed one: without one, nothing was needed, which the caller's next build or vet proves.
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
		return
	}
	goCmd(t, gobin, mod, append([]string{"get"}, strings.Fields(line)...)...)
}

// goCmd runs the go command in dir and returns its combined output, failing the test if it
// fails.
func goCmd(t *testing.T, gobin, dir string, args ...string) string {
	t.Helper()
	out, err := goRun(t.Context(), gobin, dir, args...)
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), filepath.Base(dir), err, out)
	}
	return out
}

// goRun runs the go command in dir and returns its combined output. The toolchain is the one
// running the test, and no go.work applies.
func goRun(ctx context.Context, gobin, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
