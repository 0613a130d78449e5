package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDesignGenerateEndToEnd is the walk a user takes, for every kind of handler: design each
// preset with --generate into a fresh module that has the runtime, run the go get line generate
// runtime printed, then go build, go vet and go test (each handler's five generated tests) must
// pass, and idemkit audit must find nothing in the generated code: the analyzers know the runtime
// through its directives.
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
	goCmd(t, gobin, mod, "mod", "init", "example.com/app")
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
	goCmd(t, gobin, mod, "build", "./...")
	goCmd(t, gobin, mod, "vet", "./...")
	out := goCmd(t, gobin, mod, "test", "-count=1", "-timeout=5m", "./...")
	t.Logf("go test ./...:\n%s", out)
	for _, k := range kinds {
		if !strings.Contains(out, "ok  \texample.com/app/"+k.dir+"\t") {
			t.Errorf("the generated tests of the %s handler did not run and pass", k.preset)
		}
	}
	if code, stdout, stderr := run(t, mod, "", false, nil, "audit", "./..."); code != 0 {
		t.Errorf("idemkit audit on the generated code: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, k := range kinds {
		spec := "knowledge/projects/idempotency-" + strings.ReplaceAll(k.operation, " ", "-") + ".md"
		if code, stdout, stderr := run(t, mod, "", false, nil, "generate", "handler", "--spec", spec, "--dir", k.dir, "--check"); code != 0 {
			t.Errorf("generate handler --check after building %s: exit %d\n%s%s", k.dir, code, stdout, stderr)
		}
	}
}
