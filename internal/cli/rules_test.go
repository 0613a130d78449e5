package cli

import (
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

func TestRulesList(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "rules")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	checks := rules.Default().Checks
	if len(checks) == 0 || len(lines) != len(checks)+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("want a header and %d checks:\n%s", len(checks), stdout)
	}
	for i, c := range checks {
		if f := strings.Fields(lines[i+1]); len(f) < 2 || f[0] != c.ID || !strings.HasSuffix(lines[i+1], c.Title) {
			t.Errorf("line %q, want %s and its title %q", lines[i+1], c.ID, c.Title)
		}
	}
	if !strings.Contains(stderr, "idemkit rules NAME") {
		t.Errorf("stderr should say how to read one: %q", stderr)
	}
	if _, ttyOut, _ := run(t, t.TempDir(), "", true, nil, "rules"); ttyOut != stdout {
		t.Errorf("the list differs on a terminal:\n%s\n---\n%s", ttyOut, stdout)
	}
}

func TestRulesExplain(t *testing.T) {
	t.Parallel()
	c, ok := rules.Default().Check("checkthenact")
	if !ok {
		t.Fatal("the catalogue has no checkthenact")
	}
	firstBad, _, _ := strings.Cut(strings.TrimSpace(c.Bad), "\n")
	firstGood, _, _ := strings.Cut(strings.TrimSpace(c.Good), "\n")
	cases := []struct {
		name string
		tty  bool
		want []string // in order
	}{
		// Piped, it is markdown to save or feed to another tool.
		{"piped", false, []string{"# checkthenact: " + c.Title, "## Reported", "```go\n" + firstBad, "## Instead", "```go\n" + firstGood, "//idemkit:ignore checkthenact"}},
		// On a terminal glamour renders it, wrapped to the width: no code
		// fences left, and only the start of a long line on one line.
		{"terminal", true, []string{"checkthenact: " + c.Title, "Reported", firstBad[:min(len(firstBad), 30)], "Instead", firstGood[:min(len(firstGood), 30)]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, t.TempDir(), "", tc.tty, nil, "rules", "checkthenact")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			out := stdout
			if tc.tty {
				out = ansi.ReplaceAllString(stdout, "")
				if strings.Contains(out, "```") {
					t.Errorf("markdown left unrendered:\n%s", out)
				}
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (or has it out of order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestRulesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"unknown check", []string{"rules", "checkthenac"}, []string{`no check named "checkthenac"`, "checkthenact, attemptkey, releaseonerror, cacheresponse"}},
		{"two names", []string{"rules", "checkthenact", "attemptkey"}, []string{"accepts at most 1 arg(s)"}},
		{"unknown flag", []string{"rules", "--all"}, []string{"unknown flag: --all"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, t.TempDir(), "", false, nil, tc.args...)
			if code != ExitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}
