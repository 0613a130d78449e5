//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/handoff"
)

// TestHandoff runs a built idemkit with a stand-in idemkit-vet beside it,
// a script that says it ran and with what, and checks which of the two
// answers: go vet's protocol goes to the sibling (with the parent named in
// IDEMKIT_VET_PARENT and the arguments intact), everything else, and the
// protocol under IDEMKIT_VET_INPROCESS or with no sibling, stays in idemkit.
func TestHandoff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit")
	}
	t.Parallel()
	withSibling, alone := t.TempDir(), t.TempDir()
	bin := filepath.Join(withSibling, "idemkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alone, "idemkit"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	// The sibling also says what TERM it was given: the caller's, not the
	// one quietstart sets while idemkit initialises.
	script := "#!/bin/sh\nprintf 'sibling parent=%s term=%s args=%s\\n' \"$" + handoff.EnvParent + "\" \"$TERM\" \"$*\"\n"
	if err := os.WriteFile(filepath.Join(withSibling, handoff.Sibling), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sibling := func(args string) string { return "sibling parent=" + bin + " term=xterm-256color args=" + args + "\n" }

	cases := []struct {
		name string
		dir  string
		env  string
		args []string
		want func(stdout string) bool
		says string
	}{
		{name: "flags", dir: withSibling, args: []string{"-flags"},
			want: func(s string) bool { return s == sibling("-flags") }, says: sibling("-flags")},
		{name: "version query", dir: withSibling, args: []string{"-V=full"},
			want: func(s string) bool { return s == sibling("-V=full") }, says: sibling("-V=full")},
		{name: "a package", dir: withSibling, args: []string{"-json", "-cachekey=7", "/tmp/b001/vet.cfg"},
			want: func(s string) bool { return s == sibling("-json -cachekey=7 /tmp/b001/vet.cfg") },
			says: sibling("-json -cachekey=7 /tmp/b001/vet.cfg")},
		{name: "a CLI command", dir: withSibling, args: []string{"rules"},
			want: func(s string) bool { return strings.Contains(s, "checkthenact") && !strings.Contains(s, "sibling") },
			says: "idemkit's own list of checks"},
		{name: "in process by request", dir: withSibling, env: handoff.EnvInProcess + "=1", args: []string{"-flags"},
			want: isFlagsJSON, says: "idemkit's own -flags JSON"},
		{name: "no sibling", dir: alone, args: []string{"-flags"},
			want: isFlagsJSON, says: "idemkit's own -flags JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(filepath.Join(tc.dir, "idemkit"), tc.args...)
			cmd.Env = append(os.Environ(), "TERM=xterm-256color")
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("idemkit %q: %v\n%s", tc.args, err, stderr.String())
			}
			if !tc.want(stdout.String()) {
				t.Errorf("idemkit %q printed:\n%s\nwant %s", tc.args, stdout.String(), tc.says)
			}
		})
	}
}

// isFlagsJSON reports whether s is unitchecker's -flags answer naming the
// suite's checks.
func isFlagsJSON(s string) bool {
	return strings.HasPrefix(s, "[") && strings.Contains(s, `"Name": "checkthenact"`)
}

// TestHandoffInitOrder checks the property the hand-off's speed rests on:
// its package is initialised before every package of glamour's renderer
// and the form (GODEBUG=inittrace=1 prints each init in order), so a hand-off
// skips their start-up cost. An import added to internal/handoff that
// reaches os would break it.
// slowInits are the packages whose init functions make idemkit's start-up
// slow (module path prefixes).
var slowInits = []string{
	"github.com/alecthomas/chroma/",
	"github.com/charmbracelet/glamour",
	"github.com/charmbracelet/huh",
	"github.com/charmbracelet/bubbletea",
	"github.com/yuin/goldmark",
	"github.com/microcosm-cc/bluemonday",
}

func TestHandoffInitOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "idemkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("idemkit version: %v\n%s", err, out)
	}
	var order []string
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	handoffAt := slices.Index(order, "github.com/idemkit/idemkit/internal/handoff")
	if handoffAt < 0 {
		t.Fatalf("no init of internal/handoff in:\n%s", out)
	}
	slow := 0
	for i, pkg := range order {
		if pkg == "os" || slices.ContainsFunc(slowInits, func(prefix string) bool { return strings.HasPrefix(pkg, prefix) }) {
			slow++
			if i < handoffAt {
				t.Errorf("%s is initialised before internal/handoff (init %d of %d)", pkg, i, handoffAt)
			}
		}
	}
	if slow == 0 {
		t.Errorf("none of the slow packages in the init trace; the test no longer checks anything:\n%s", out)
	}
}
