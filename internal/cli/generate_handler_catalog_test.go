package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

// TestGenerateHandlerEveryProvider walks every webhook and queue provider of the catalogue the
// way a user does: an answers file naming the provider, design to a spec, generate handler on
// it. None may be refused but a sender of XML (Salesforce's SOAP outbound messages), whose
// refusal must say what to do: a batched delivery (Adyen, SendGrid, HubSpot, Event Grid), a key
// of several parts (Adyen) and a key read from a header or the body all generate.
// Outside -short the handlers are then built, vetted and their generated tests run in the one
// module, so each provider's handler is shown to work, not only to be written.
func TestGenerateHandlerEveryProvider(t *testing.T) {
	t.Parallel()
	mod := newModule(t)
	var gobin string
	if !testing.Short() {
		var err error
		if gobin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("the go command is needed to build generated code: %v", err)
		}
		goGet(t, gobin, mod, "--dir", "internal/idem")
	} else if code, _, stderr := run(t, mod, "", false, nil, "generate", "runtime", "--dir", "internal/idem"); code != 0 {
		t.Fatalf("generate runtime: exit %d\n%s", code, stderr)
	}
	generated := 0
	for _, p := range rules.Default().Providers {
		if p.Kind != rules.KindWebhook && p.Kind != rules.KindQueue {
			continue
		}
		answers := filepath.Join("answers", p.ID+".yaml")
		writeFile(t, filepath.Join(mod, answers), fmt.Sprintf("operation: handle %s\nkey:\n  source: %s\n  provider: %s\n", p.ID, p.Source, p.ID))
		if code, _, stderr := run(t, mod, "", false, nil, "design", "--answers", answers, "--out", "knowledge/projects"); code != 0 {
			t.Errorf("%s: design: exit %d\n%s", p.ID, code, stderr)
			continue
		}
		specPath := "knowledge/projects/idempotency-handle-" + p.ID + ".md"
		dir := "internal/providers/" + strings.ReplaceAll(p.ID, "-", "")
		code, _, stderr := run(t, mod, "", false, nil, "generate", "handler", "--spec", specPath, "--dir", dir)
		if rules.PayloadOf(&p) == rules.PayloadXML {
			// A receiver that reads JSON would answer 400 to every real delivery: refused, saying
			// what to write instead.
			if code != 2 || !strings.Contains(stderr, "key.payload") || !strings.Contains(stderr, "by hand") {
				t.Errorf("%s delivers XML: generate handler exit %d, want 2 with a message naming key.payload and what to do\n%s", p.ID, code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: generate handler refused the spec design wrote: exit %d\n%s", p.ID, code, stderr)
			continue
		}
		generated++
	}
	if generated == 0 {
		t.Fatal("the catalogue has no webhook or queue provider")
	}
	if testing.Short() || t.Failed() {
		return
	}
	goCmd(t, gobin, mod, "build", "./...")
	goCmd(t, gobin, mod, "vet", "./internal/providers/...")
	out := goCmd(t, gobin, mod, "test", "-count=1", "-timeout=5m", "./internal/providers/...")
	if n := strings.Count(out, "ok  \texample.com/app/internal/providers/"); n != generated {
		t.Errorf("%d providers' generated tests passed, want %d:\n%s", n, generated, out)
	}
}
