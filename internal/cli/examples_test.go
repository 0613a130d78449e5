package cli

import (
	"path/filepath"
	"testing"
)

// TestExamplePaymentsUpToDate is make test's drift check of examples/payments: its runtime and
// handlers must be exactly what this idemkit generates from its specs, so the example never
// shows code idemkit no longer writes. Regenerate with the same commands, without --check.
func TestExamplePaymentsUpToDate(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	const ex = "examples/payments"
	for _, args := range [][]string{
		{"generate", "runtime", "--dir", ex + "/internal/idem", "--stores", "memory,redis,postgres", "--check"},
		{"generate", "handler", "--spec", ex + "/knowledge/projects/idempotency-charge.md", "--dir", ex + "/charges", "--runtime", ex + "/internal/idem", "--check"},
		{"generate", "handler", "--spec", ex + "/knowledge/projects/idempotency-processor-events.md", "--dir", ex + "/webhooks", "--runtime", ex + "/internal/idem", "--check"},
	} {
		if code, stdout, stderr := run(t, root, "", false, nil, args...); code != 0 {
			t.Errorf("idemkit %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}
