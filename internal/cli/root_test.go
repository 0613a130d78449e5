package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpEverywhere: --help and -h exit 0 with the usage on stdout for
// every command, and so does help COMMAND.
func TestHelpEverywhere(t *testing.T) {
	t.Parallel()
	io, _, _ := TestStreams("", false)
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(NewCmdRoot(&Factory{IO: io, Dir: t.TempDir()}), nil)
	if len(paths) < 10 {
		t.Fatalf("found only %d commands: %v", len(paths), paths)
	}
	for _, path := range paths {
		for _, args := range [][]string{append(path, "--help"), append(path, "-h"), append([]string{"help"}, path...)} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				code, stdout, stderr := run(t, t.TempDir(), "", false, nil, args...)
				if code != ExitOK || !strings.Contains(stdout, "Usage:") || stderr != "" {
					t.Errorf("exit %d, want 0 with the usage; stdout:\n%.300s\nstderr:\n%s", code, stdout, stderr)
				}
			})
		}
	}
}

// TestExitCodes pins the exit code of each kind of failure that is not a
// command's own bad input (those are in each command's table), whatever
// the message says.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		setup  func(t *testing.T, dir string)
		code   int
		stdout string // in stdout
		stderr string // in stderr
	}{
		{name: "no command", code: ExitOK, stdout: "Available Commands:"},
		{name: "a group alone", args: []string{"generate"}, code: ExitOK, stdout: "Available Commands:"},
		{name: "unknown command", args: []string{"bogus"}, code: ExitUsage, stderr: `unknown command "bogus" for "idemkit"`},
		{name: "misspelt command", args: []string{"versoin"}, code: ExitUsage, stderr: "did you mean version?"},
		{name: "unknown subcommand", args: []string{"generate", "bogus"}, code: ExitUsage, stderr: `unknown command "bogus" for "idemkit generate"`},
		{name: "argument to a command that takes none", args: []string{"version", "x"}, code: ExitUsage, stderr: "Run 'idemkit version --help' for usage."},
		{name: "too many arguments", args: []string{"rules", "a", "b"}, code: ExitUsage, stderr: "accepts at most 1 arg(s), received 2"},
		{name: "missing argument", args: []string{"completion"}, code: ExitUsage, stderr: "accepts 1 arg(s), received 0"},
		{name: "invalid argument", args: []string{"completion", "tcsh"}, code: ExitUsage, stderr: `invalid argument "tcsh"`},
		{name: "unknown flag", args: []string{"audit", "--bogus"}, code: ExitUsage, stderr: "unknown flag: --bogus\nRun 'idemkit audit --help' for usage."},
		{name: "bad flag value", args: []string{"generate", "runtime", "--with-tests=maybe"}, code: ExitUsage, stderr: `invalid argument "maybe"`},
		{name: "unknown help topic", args: []string{"help", "bogus"}, code: ExitUsage, stderr: `unknown help topic "bogus"`},
		{name: "unknown help subtopic", args: []string{"help", "generate", "bogus"}, code: ExitUsage, stderr: `unknown help topic "generate bogus"`},
		{name: "help on a command with its argument", args: []string{"help", "rules", "checkthenact"}, code: ExitOK, stdout: "idemkit rules [NAME]"},
		{name: "help completes commands", args: []string{"__complete", "help", "gen"}, code: ExitOK, stdout: "generate\tWrite idempotency code into your module",
			stderr: "Completion ended with directive: ShellCompDirectiveNoFileComp"},
		{name: "a file system failure", args: []string{"generate", "runtime", "--dir", "internal/idem"}, code: ExitFailure,
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n")
				// A file where the runtime's middleware package goes: reading below it fails.
				writeFile(t, filepath.Join(dir, "internal", "idem", "idemhttp"), "")
			},
			stderr: "not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			code, stdout, stderr := run(t, dir, "", false, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stdout:\n%.300s\nstderr:\n%s\nwant %q in stdout, %q in stderr", stdout, stderr, tc.stdout, tc.stderr)
			}
			if tc.code != ExitOK && stdout != "" {
				t.Errorf("a failure wrote to stdout:\n%.300s", stdout)
			}
			if tc.code == ExitOK && tc.stderr == "" && stderr != "" {
				t.Errorf("success wrote to stderr:\n%s", stderr)
			}
		})
	}
}
