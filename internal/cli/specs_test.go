package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSpec designs the demo answers as name into dir/knowledge/projects.
func writeSpec(t *testing.T, dir, op string) string {
	t.Helper()
	writeFile(t, filepath.Join(dir, "a.yaml"), demoAnswers(t))
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml", op); code != 0 {
		t.Fatalf("design: exit %d: %s", code, stderr)
	}
	return filepath.Join(dir, "knowledge", "projects")
}

func TestSpecsLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSpec(t, dir, "charge card")
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--preset", "webhook", "stripe events"); code != 0 {
		t.Fatalf("design: exit %d: %s", code, stderr)
	}
	// The table is the same on a terminal and piped: it is plain text either way.
	_, ttyOut, _ := run(t, dir, "", true, nil, "specs")
	code, stdout, stderr := run(t, dir, "", false, nil, "specs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if ttyOut != stdout {
		t.Errorf("terminal output differs from piped:\n%s\n---\n%s", ttyOut, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows, got:\n%s", stdout)
	}
	for i, want := range [][]string{
		{"OPERATION", "KEY SOURCE", "STORE", "TTL"},
		{"charge card", "client", "redis + postgres audit", "1d", "idempotency-charge-card.md"},
		{"stripe events", "webhook:stripe", "postgres", "7d", "idempotency-stripe-events.md"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}

func TestSpecsBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		edit   func(t *testing.T, projects string) // breaks the directory
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "missing directory", args: []string{"specs", "nowhere"}, code: 2, stderr: []string{"nowhere does not exist"}},
		{name: "empty directory", edit: func(t *testing.T, p string) {
			os.Remove(filepath.Join(p, "idempotency-charge-card.md"))
		}, code: 0, stderr: []string{"No specs"}},
		{name: "invalid field", edit: func(t *testing.T, p string) {
			path := filepath.Join(p, "idempotency-charge-card.md")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(b), "source: client", "source: fax", 1)), 0o644)
		}, code: 1, stdout: []string{"(invalid)"}, stderr: []string{"idempotency-charge-card.md", "key.source", "fax", "1 of 1 specs invalid"}},
		{name: "broken yaml", edit: func(t *testing.T, p string) {
			path := filepath.Join(p, "idempotency-charge-card.md")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(b), "ttl:\n", "ttl: [\n", 1)), 0o644)
		}, code: 1, stderr: []string{"idempotency-charge-card.md", "line"}},
		{name: "missing collision row", edit: func(t *testing.T, p string) {
			path := filepath.Join(p, "idempotency-charge-card.md")
			b, _ := os.ReadFile(path)
			s := string(b)
			i := strings.Index(s, "  - case: expired")
			j := strings.Index(s, "downstream:")
			os.WriteFile(path, []byte(s[:i]+s[j:]), 0o644)
		}, code: 1, stderr: []string{"expired"}},
		{name: "file name does not match slug", edit: func(t *testing.T, p string) {
			os.Rename(filepath.Join(p, "idempotency-charge-card.md"), filepath.Join(p, "idempotency-refund.md"))
		}, code: 1, stderr: []string{"idempotency-charge-card.md", "rename"}},
		{name: "body edited by hand", edit: func(t *testing.T, p string) {
			path := filepath.Join(p, "idempotency-charge-card.md")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(b), "## Tests", "## Tests\n\n- my own test", 1)), 0o644)
		}, code: 1, stderr: []string{"body: differs", "--from"}},
		{name: "newer schema", edit: func(t *testing.T, p string) {
			path := filepath.Join(p, "idempotency-charge-card.md")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(b), "schema: 1", "schema: 9", 1)), 0o644)
		}, code: 1, stderr: []string{"newer idemkit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			projects := writeSpec(t, dir, "charge card")
			if code, _, _ := run(t, dir, "", false, nil, "specs"); code != 0 {
				t.Fatalf("the unbroken spec must validate, exit %d", code)
			}
			if tc.edit != nil {
				tc.edit(t, projects)
			}
			code, stdout, stderr := run(t, dir, "", false, nil, append([]string{"specs"}, tc.args[min(1, len(tc.args)):]...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestRepositorySpecs keeps this repository's own knowledge graph honest.
func TestRepositorySpecs(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, filepath.Join("..", ".."), "", false, nil, "specs")
	if code != 0 || !strings.Contains(stdout, "idempotency-charge-card.md") {
		t.Errorf("idemkit specs on knowledge/projects: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestKnowledgeGraph checks that design writes the patterns page its specs
// link once, never over an edited copy, and that specs keeps an index page
// that links every spec and the specs each one calls.
func TestKnowledgeGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	projects := writeSpec(t, dir, "charge card")
	patterns := filepath.Join(dir, "knowledge", "patterns", "idempotency-patterns.md")
	data, err := os.ReadFile(patterns)
	if err != nil {
		t.Fatalf("design did not write the patterns page its spec links: %v", err)
	}
	if !strings.HasPrefix(string(data), "# Idempotency patterns") {
		t.Errorf("patterns page starts %q", strings.SplitN(string(data), "\n", 2)[0])
	}
	edited := append(data, "\nOur own note.\n"...)
	writeFile(t, patterns, string(edited))

	writeFile(t, filepath.Join(dir, "b.yaml"), `operation: issue refund
key: {source: client}
downstream:
  - {name: credit, target: ledger, mechanism: on-conflict, operation: charge card}
`)
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--answers", "b.yaml"); code != 0 {
		t.Fatalf("design: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(patterns); string(got) != string(edited) {
		t.Errorf("design overwrote the edited patterns page")
	}
	if code, _, stderr := run(t, dir, "", false, nil, "specs"); code != 0 || !strings.Contains(stderr, "Updated") {
		t.Fatalf("specs: exit %d, stderr %q; want the index written", code, stderr)
	}
	index, err := os.ReadFile(filepath.Join(projects, "index.md"))
	if err != nil {
		t.Fatalf("no index page: %v", err)
	}
	for _, want := range []string{
		"[charge card](idempotency-charge-card.md)",
		"[issue refund](idempotency-issue-refund.md)",
		"[charge-card](idempotency-charge-card.md) |",
		"(../patterns/idempotency-patterns.md)",
	} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(projects, "idempotency-issue-refund.md"))), "[idempotency-charge-card.md](idempotency-charge-card.md)") {
		t.Errorf("the refund spec does not link the spec of the operation it calls")
	}

	// specs rewrites a stale index and leaves a current one alone.
	writeFile(t, filepath.Join(projects, "index.md"), "stale\n")
	if code, _, stderr := run(t, dir, "", false, nil, "specs"); code != 0 || !strings.Contains(stderr, "Updated") {
		t.Fatalf("specs: exit %d, stderr %q; want the stale index updated", code, stderr)
	}
	if got := mustRead(t, filepath.Join(projects, "index.md")); string(got) != string(index) {
		t.Errorf("specs wrote another index the second time:\n%s", got)
	}
	if _, _, stderr := run(t, dir, "", false, nil, "specs"); strings.Contains(stderr, "Updated") {
		t.Errorf("specs rewrote a current index: %s", stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
