package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDesignGenerateEndToEnd is the walk a user takes, for every kind of handler: design each
// preset with --generate into a fresh module that has the runtime, run the go get line generate
// runtime printed and go mod tidy, then go build, go vet and go test (each handler's five
// generated tests) must pass, and the analyzers must find nothing in the generated code, run as
// idemkit audit and as go vet -vettool: they know the runtime through its directives. The module
// path is new on every run, so go vet's cache cannot answer for the tool with an old result.
func TestDesignGenerateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests generated handlers with the go command; skipped under -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build generated code: %v", err)
	}
	t.Parallel()
	mod := t.TempDir()
	path := fmt.Sprintf("example.com/e2e%d", time.Now().UnixNano())
	goCmd(t, gobin, mod, "mod", "init", path)
	goGet(t, gobin, mod, "--dir", "internal/idem", "--stores", "memory,redis,postgres")
	kinds := []struct{ preset, operation, dir string }{
		{"payment", "charge card", "internal/payments"},
		{"webhook", "stripe events", "internal/webhooks"},
		{"queue", "order created", "internal/orders"},
		{"workflow", "fulfil order", "internal/fulfilment"},
		{"cron", "nightly rollup", "internal/jobs"},
	}
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
	for _, k := range kinds {
		if !strings.Contains(out, "ok  \t"+path+"/"+k.dir+"\t") {
			t.Errorf("the generated tests of the %s handler did not run and pass", k.preset)
		}
	}
	if code, stdout, stderr := run(t, mod, "", false, nil, "audit", "./..."); code != 0 {
		t.Errorf("idemkit audit on the generated code: exit %d\n%s%s", code, stdout, stderr)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(t.TempDir(), "idemkit")
	goCmd(t, gobin, root, "build", "-o", tool, "./cmd/idemkit")
	goCmd(t, gobin, mod, "vet", "-vettool="+tool, "./...")
	for _, k := range kinds {
		spec := "knowledge/projects/idempotency-" + strings.ReplaceAll(k.operation, " ", "-") + ".md"
		if code, stdout, stderr := run(t, mod, "", false, nil, "generate", "handler", "--spec", spec, "--dir", k.dir, "--check"); code != 0 {
			t.Errorf("generate handler --check after building %s: exit %d\n%s%s", k.dir, code, stdout, stderr)
		}
	}
}
