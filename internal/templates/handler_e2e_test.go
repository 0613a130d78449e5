package templates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGenerateHandlerBuilds is the proof that generated handlers are working code: the runtime
// and the handler of every spec under testdata/handler go into one fresh module (go mod init),
// the runtime's requirements are added with go get (the module proxy is reachable), and then go
// build, go vet and go test must pass — the last runs each handler's five generated tests. The
// runtime's core package is named dedup, so the generated imports take the aliased path.
func TestGenerateHandlerBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests generated handlers with the go command; skipped under -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build generated code: %v", err)
	}
	t.Parallel()
	mod := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	write := func(dir string, files map[string][]byte) {
		t.Helper()
		for p, data := range files {
			path := filepath.Join(mod, dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	run("mod", "init", "example.com/app")
	rt, err := GenerateRuntime(RuntimeOptions{Module: "example.com/app", Dir: "internal/dedup", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	write("internal/dedup", rt.Files)
	for _, name := range handlerCases {
		opts := handlerOpts(name)
		opts.Runtime, opts.RuntimePackage = rt.ImportPath, rt.Package
		h, err := GenerateHandler(readSpec(t, name), opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h.Files[h.WorkPath] = h.Work
		write(filepath.Join("internal", name), h.Files)
	}
	get := []string{"get"}
	for _, r := range rt.Requires {
		get = append(get, r.Package+"@"+r.Version)
	}
	run(get...)
	run("build", "./...")
	run("vet", "./...")
	out := run("test", "-count=1", "-timeout=5m", "./...")
	t.Logf("go test ./...:\n%s", out)
	for _, name := range handlerCases {
		if !strings.Contains(out, "ok  \texample.com/app/internal/"+name+"\t") {
			t.Errorf("the generated tests of %s did not run and pass", name)
		}
	}
}
