package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// run runs the CLI in dir with stdin and returns the exit code and both
// streams. tty makes both ends behave as a terminal.
func run(t *testing.T, dir, stdin string, tty bool, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	io, out, errOut := TestStreams(stdin, tty)
	f := &Factory{IO: io, Dir: dir, Getenv: func(k string) string { return env[k] }}
	code = Main(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// ansi matches terminal escape sequences, to read rendered output as text.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]")

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func demoAnswers(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "charge-card.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// listFiles returns the files under dir, relative to it.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dir, p)
			files = append(files, r)
		}
		return nil
	})
	return files
}

func TestDesignBadInput(t *testing.T) {
	t.Parallel()
	demo := demoAnswers(t)
	cases := []struct {
		name    string
		files   map[string]string // written into the temp dir first
		args    []string
		tty     bool
		code    int
		stderr  []string // substrings of stderr
		written []string // files that must exist afterwards, besides the inputs
	}{
		{name: "no terminal and no answers", args: []string{"design", "charge"}, code: 2,
			stderr: []string{"no terminal", "--answers FILE"}},
		{name: "answers file missing", args: []string{"design", "--answers", "nope.yaml"}, code: 2,
			stderr: []string{"nope.yaml", "no such file"}},
		{name: "answers and from together", args: []string{"design", "--answers", "a.yaml", "--from", "b.md"}, code: 2,
			stderr: []string{"pass one"}},
		{name: "invalid yaml", files: map[string]string{"a.yaml": "operation: charge\nkey: [\n"}, args: []string{"design", "--answers", "a.yaml"}, code: 2,
			stderr: []string{"a.yaml:"}},
		{name: "unknown field names line and field", files: map[string]string{"a.yaml": "operation: charge\nkey:\n  source: client\n  provder: stripe\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 2, stderr: []string{"a.yaml:4:", "provder", "in key"}},
		{name: "wrong type", files: map[string]string{"a.yaml": "operation: charge\nkey:\n  source: [client]\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 2, stderr: []string{"a.yaml:3:", "a list"}},
		{name: "empty answers", files: map[string]string{"a.yaml": "\n"}, args: []string{"design", "--answers", "a.yaml"}, code: 2,
			stderr: []string{"empty"}},
		{name: "unknown provider lists the known ones", files: map[string]string{"a.yaml": "operation: hooks\nkey:\n  source: webhook\n  provider: strype\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 2, stderr: []string{"key.provider", "strype", "stripe", "github", "shopify"}},
		{name: "ttl below the retry window gives both numbers", files: map[string]string{"a.yaml": "operation: hooks\nkey:\n  source: webhook\n  provider: stripe\nttl: 24h\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 1, stderr: []string{"ttl-below-retry-window", "1d", "3d"}},
		{name: "memcached rejected", files: map[string]string{"a.yaml": "operation: x\nkey:\n  source: client\nstore:\n  kind: memcached\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 1, stderr: []string{"memcached-store"}},
		{name: "per-attempt key rejected", files: map[string]string{"a.yaml": "operation: x\nkey:\n  source: server\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 1, stderr: []string{"per-attempt-key"}},
		{name: "keys forever rejected", files: map[string]string{"a.yaml": "operation: x\nkey:\n  source: client\nttl: forever\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 1, stderr: []string{"keys-forever"}},
		{name: "only punctuation", files: map[string]string{"a.yaml": demo}, args: []string{"design", "--answers", "a.yaml", "?!/.."}, code: 2,
			stderr: []string{"operation", "ASCII"}},
		{name: "path traversal stays inside the output directory", files: map[string]string{"a.yaml": demo},
			args: []string{"design", "--answers", "a.yaml", "../../etc/passwd"}, code: 0,
			written: []string{"knowledge/projects/idempotency-etc-passwd.md", "knowledge/patterns/idempotency-patterns.md"}},
		{name: "slashes become one slug", files: map[string]string{"a.yaml": demo},
			args: []string{"design", "--answers", "a.yaml", "orders/refunds\\create"}, code: 0,
			written: []string{"knowledge/projects/idempotency-orders-refunds-create.md", "knowledge/patterns/idempotency-patterns.md"}},
		{name: "unicode is folded", files: map[string]string{"a.yaml": demo},
			args: []string{"design", "--answers", "a.yaml", "Zahlung über Karte"}, code: 0,
			written: []string{"knowledge/projects/idempotency-zahlung-uber-karte.md", "knowledge/patterns/idempotency-patterns.md"}},
		{name: "existing spec is not overwritten", files: map[string]string{"a.yaml": demo, "knowledge/projects/idempotency-charge-card.md": "mine\n"},
			args: []string{"design", "--answers", "a.yaml"}, code: 2, stderr: []string{"already exists", "--force"}},
		{name: "unknown preset", args: []string{"design", "--preset", "payments"}, code: 2, stderr: []string{"payments", "payment, webhook"}},
		{name: "from a missing spec", args: []string{"design", "--from", "gone.md"}, code: 2, stderr: []string{"gone.md"}},
		{name: "from a file that is not a spec", files: map[string]string{"s.md": "# hello\n"}, args: []string{"design", "--from", "s.md"}, code: 2,
			stderr: []string{"s.md", "front matter"}},
		{name: "bad rules file names file line and field", files: map[string]string{"a.yaml": demo, "r.yaml": "providers:\n  - id: stripe\n    retry_window: 3 days\n"},
			args: []string{"design", "--answers", "a.yaml", "--rules", "r.yaml"}, code: 2, stderr: []string{"r.yaml:3", "retry_window", "3 days"}},
		{name: "unknown flag", args: []string{"design", "--frce"}, code: 2, stderr: []string{"--frce"}},
		{name: "too many arguments", args: []string{"design", "a", "b"}, code: 2, stderr: []string{"accepts at most 1 arg"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			code, _, stderr := run(t, dir, "", tc.tty, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, stderr)
				}
			}
			want := map[string]bool{}
			for name := range tc.files {
				want[name] = true
			}
			for _, w := range tc.written {
				want[w] = true
			}
			got := listFiles(t, dir)
			for _, g := range got {
				if !want[g] {
					t.Errorf("unexpected file written: %s", g)
				}
				delete(want, g)
			}
			for w := range want {
				t.Errorf("file not written: %s", w)
			}
			if existing, ok := tc.files["knowledge/projects/idempotency-charge-card.md"]; ok {
				b, _ := os.ReadFile(filepath.Join(dir, "knowledge/projects/idempotency-charge-card.md"))
				if string(b) != existing {
					t.Errorf("existing spec was changed to:\n%s", b)
				}
			}
		})
	}
}

func TestDesignWritesAndForces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), demoAnswers(t))
	code, stdout, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(dir, "knowledge", "projects", "idempotency-charge-card.md")
	if want := "Wrote " + filepath.Join("knowledge", "projects", "idempotency-charge-card.md"); !strings.Contains(stdout, want) {
		t.Errorf("stdout %q does not say %q", stdout, want)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(first), "---\nschema: 1\n") || !strings.Contains(string(first), "# Idempotency Design: charge card") {
		t.Fatalf("written spec does not look like a spec:\n%s", first)
	}

	writeFile(t, filepath.Join(dir, "a.yaml"), strings.Replace(demoAnswers(t), "ttl: 24h", "ttl: 48h", 1))
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	second, _ := os.ReadFile(path)
	if !strings.Contains(string(second), "duration: 2d") || strings.Contains(string(second), "duration: 1d") {
		t.Errorf("--force did not replace the spec with the new TTL:\n%s", second)
	}
	if files := listFiles(t, filepath.Join(dir, "knowledge", "projects")); len(files) != 1 {
		t.Errorf("output directory holds %v, want only the spec (no temp files left)", files)
	}

	// --from reopens the written spec; without a terminal it decides the
	// same answers again and, printed, gives back the same document.
	code, printed, stderr := run(t, dir, "", false, nil, "design", "--from", path, "--print")
	if code != 0 {
		t.Fatalf("--from: exit %d: %s", code, stderr)
	}
	if printed != string(second) {
		t.Errorf("--from --print differs from the spec it reopened:\n%s", printed)
	}
}

func TestDesignPrint(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		name := "piped"
		if tty {
			name = "terminal"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "a.yaml"), demoAnswers(t))
			code, stdout, stderr := run(t, dir, "", tty, nil, "design", "--answers", "a.yaml", "--print")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if files := listFiles(t, dir); len(files) != 1 {
				t.Errorf("--print wrote files: %v", files)
			}
			if tty {
				stdout = ansi.ReplaceAllString(stdout, "")
				if strings.HasPrefix(stdout, "---") || !strings.Contains(stdout, "Idempotency Design: charge card") {
					t.Errorf("terminal output is not rendered markdown:\n%.400s", stdout)
				}
				if strings.Contains(stdout, "| Case |") {
					t.Errorf("terminal output still has raw markdown tables:\n%.400s", stdout)
				}
			} else if !strings.HasPrefix(stdout, "---\nschema: 1\n") || !strings.Contains(stdout, "\n# Idempotency Design: charge card\n") {
				t.Errorf("piped output is not the raw spec:\n%.400s", stdout)
			}
		})
	}
}

func TestDesignPresetWithoutTerminal(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "design", "--preset", "webhook", "stripe events", "--print")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"operation: stripe events", "provider: stripe", "kind: postgres"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("preset spec lacks %q", w)
		}
	}
}

func TestDesignInteractiveAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Accessible mode on a terminal; the input ends after the operation
	// name, as when the person presses Ctrl-D (huh's abort in this mode).
	code, _, stderr := run(t, dir, "charge card\n", true, map[string]string{"ACCESSIBLE": "1"}, "design")
	if code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "Nothing written") {
		t.Errorf("stderr does not say nothing was written:\n%s", stderr)
	}
	if files := listFiles(t, dir); len(files) != 0 {
		t.Errorf("aborted design wrote %v", files)
	}
}

// TestDesignInteractiveReopen walks the accessible form on a terminal as a
// person would, accepting every answer reopened from a spec (--from), and
// writes it back: the spec must come out byte for byte the same.
func TestDesignInteractiveReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	projects := writeSpec(t, dir, "charge card")
	path := filepath.Join(projects, "idempotency-charge-card.md")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Enter keeps each shown answer; "0" confirms a multi-select.
	lines := []string{
		"", "", "", // operation, description, keep the loaded answers
		"", "", // kind, key source
		"", "", "0", // header, scope, who else retries
		"", "", "", // key format, retry window, where it comes from
		"", "0", "", "", // included, volatile, other excluded, mismatch
		"", "", // store, audit row
		"",         // TTL
		"", "", "", // longest run, lease, heartbeat
		"", "", "", // completed, in progress, Retry-After
		"", "", "", "", "", "", "", // three downstream steps: name, target, mechanism,
		"", "", "", "", "", "", "", // item, business key, why, operation
		"", "", "", "", "", "", "",
		"",  // add another? no
		"1", // What now? write
	}
	// No --force: a spec reopened with --from is written back in place.
	code, stdout, stderr := run(t, dir, strings.Join(lines, "\n")+"\n", true, map[string]string{"ACCESSIBLE": "1"},
		"design", "--from", path)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\nstdout tail:\n%s", code, stderr, tail(stdout, 1500))
	}
	for _, w := range []string{"Who initiates the operation?", "What now?", "Write " + filepath.Join("knowledge", "projects", "idempotency-charge-card.md"), "Wrote "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("the session never showed %q", w)
		}
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Errorf("accepting every reopened answer changed the spec:\n%s", after)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestRepoConfig checks that .idemkit.yaml at the repository root changes
// the catalogue design decides with: Stripe's window grows to 96h, so the
// TTL it allowed before is now rejected, and a new provider is known.
func TestRepoConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/x\n")
	writeFile(t, filepath.Join(dir, "a.yaml"), "operation: stripe events\nkey:\n  source: webhook\n  provider: stripe\nttl: 3d\n")
	writeFile(t, filepath.Join(dir, "b.yaml"), "operation: acme events\nkey:\n  source: webhook\n  provider: acme-billing\n")
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml", "--print"); code != 0 {
		t.Fatalf("before .idemkit.yaml: exit %d: %s", code, stderr)
	}
	writeFile(t, filepath.Join(dir, ".idemkit.yaml"), `providers:
  - id: stripe
    retry_window: 96h
  - id: acme-billing
    name: Acme billing webhooks
    kind: webhook
    source: webhook
    key_field: header X-Acme-Event
    key_example: ev_123
    retries: true
    retry_window: 2d
    suggested_ttl: 4d
    bound: Acme retries for two days.
    reference: https://acme.example/docs/webhooks
defaults:
  ttl: 48h
`)
	sub := filepath.Join(dir, "svc")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, sub, "", false, nil, "design", "--answers", "../a.yaml", "--print")
	if code != 1 || !strings.Contains(stderr, "4d retry window of Stripe") {
		t.Errorf("with .idemkit.yaml: exit %d, want 1 naming Stripe's 4d window; stderr:\n%s", code, stderr)
	}
	code, stdout, stderr := run(t, sub, "", false, nil, "design", "--answers", "../b.yaml", "--print")
	if code != 0 || !strings.Contains(stdout, "provider: acme-billing") || !strings.Contains(stdout, "duration: 4d") {
		t.Errorf("new provider: exit %d; stderr:\n%s", code, stderr)
	}
}

// TestDesignPresetWithAnswers checks that --preset and --answers merge,
// the file's answers winning, instead of the file being dropped.
func TestDesignPresetWithAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), "operation: stripe refunds\nstore:\n  kind: redis\nttl: 10d\n")
	code, stdout, stderr := run(t, dir, "", false, nil, "design", "--preset", "webhook", "--answers", "a.yaml", "--print")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"operation: stripe refunds", // the file's
		"provider: stripe",          // the preset's
		"kind: redis",               // the file's, over the preset's postgres
		"duration: 10d",             // the file's
		"preset: webhook",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("merged spec lacks %q:\n%s", want, stdout)
		}
	}
}

// TestDesignFromWritesBack checks that a spec reopened with --from is
// written back in place without --force, keeping every answer, and that
// another existing spec is still never overwritten.
func TestDesignFromWritesBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), "operation: transfer\nkey:\n  source: client\n  format: \"transfer:{uuid}\"\nstore:\n  kind: postgres\nlease:\n  longest_run: 2m\n")
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml"); code != 0 {
		t.Fatalf("design: exit %d: %s", code, stderr)
	}
	path := filepath.Join(dir, "knowledge", "projects", "idempotency-transfer.md")
	before := mustRead(t, path)
	code, _, stderr := run(t, dir, "", false, nil, "design", "--from", "knowledge/projects/idempotency-transfer.md")
	if code != 0 {
		t.Fatalf("--from could not write the spec back: exit %d: %s", code, stderr)
	}
	if after := mustRead(t, path); string(after) != string(before) {
		t.Errorf("--from changed the spec:\n%s", after)
	}
	for _, want := range []string{"format: transfer:{uuid}", "longest_run: 2m", "heartbeat: 10s"} {
		if !strings.Contains(string(before), want) {
			t.Errorf("spec lacks %q", want)
		}
	}
	// Renamed on the way: the other spec exists and is not overwritten.
	writeFile(t, filepath.Join(dir, "knowledge", "projects", "idempotency-other.md"), "mine\n")
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--from", "knowledge/projects/idempotency-transfer.md", "other"); code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("exit %d, stderr %q; want a refusal to overwrite another spec", code, stderr)
	}
}

// TestDesignHelpNamesRealFlags checks that every --flag design's help
// mentions is one of its flags.
func TestDesignHelpNamesRealFlags(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "design", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cmd := NewCmdDesign(&Factory{IO: &IOStreams{}}, nil)
	for _, m := range regexp.MustCompile(`--([a-z][a-z-]*)`).FindAllStringSubmatch(stdout, -1) {
		if m[1] != "help" && cmd.Flags().Lookup(m[1]) == nil {
			t.Errorf("design --help names --%s, which is not a flag", m[1])
		}
	}
}

// TestTeamPresetPassesSpecsAndGenerate checks that a spec design writes
// from a team's own preset and provider (.idemkit.yaml) is accepted by
// specs and by generate handler, which refused it before.
func TestTeamPresetPassesSpecsAndGenerate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/team\n\ngo 1.24\n")
	writeFile(t, filepath.Join(dir, ".idemkit.yaml"), `providers:
  - id: acme-hooks
    name: Acme webhooks
    kind: webhook
    source: webhook
    key_field: header X-Acme-Delivery
    key_example: d-1
    retries: true
    retry_window: 2d
    suggested_ttl: 4d
    bound: Acme retries for two days.
    reference: https://acme.example/docs/webhooks
presets:
  - id: acme
    title: Acme webhook
    description: Our Acme receiver.
    answers:
      key:
        source: webhook
        provider: acme-hooks
      store:
        kind: postgres
`)
	if code, _, stderr := run(t, dir, "", false, nil, "design", "--preset", "acme", "acme events"); code != 0 {
		t.Fatalf("design: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, dir, "", false, nil, "specs"); code != 0 || !strings.Contains(stdout, "webhook:acme-hooks") {
		t.Errorf("specs refused the team preset's spec: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, dir, "", false, nil, "generate", "runtime", "--dir", "internal/idem", "--stores", "memory"); code != 0 {
		t.Fatalf("generate runtime: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, dir, "", false, nil, "generate", "handler", "--spec", "knowledge/projects/idempotency-acme-events.md", "--dir", "internal/acme"); code != 0 {
		t.Errorf("generate handler refused the team preset's spec: exit %d: %s", code, stderr)
	}
}
