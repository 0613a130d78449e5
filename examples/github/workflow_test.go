// Package github checks idemkit.yml, the GitHub Actions workflow beside
// this file that teams copy to run idemkit's checks under go vet and to
// upload idemkit audit's SARIF to code scanning.
package github

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/cli"
)

const workflowFile = "idemkit.yml"

// The subset of GitHub's workflow syntax the file uses. Decoding is
// strict, so a key misspelt in the file (runs_on, step) fails the test
// instead of being ignored, as GitHub would refuse the file.
type (
	workflow struct {
		Name        string
		On          map[string]any `yaml:"on"`
		Permissions map[string]string
		Env         map[string]string
		Jobs        map[string]job
	}
	job struct {
		Name        string
		If          string `yaml:"if"`
		RunsOn      string `yaml:"runs-on"`
		Permissions map[string]string
		Steps       []step
	}
	step struct {
		Name string
		Uses string
		With map[string]string
		Run  string
		Env  map[string]string
	}
)

// action is one the workflow may use: the major versions whose tag was
// checked to exist, and the inputs its action.yml declares. An action or
// version is added here only after the same check, so a misspelt name,
// version or input in the workflow fails the test.
type action struct {
	versions []string
	inputs   []string
}

var actions = map[string]action{
	"actions/checkout": {
		versions: []string{"v6"},
		inputs: []string{"repository", "ref", "token", "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user",
			"persist-credentials", "path", "clean", "filter", "sparse-checkout", "sparse-checkout-cone-mode",
			"fetch-depth", "fetch-tags", "show-progress", "lfs", "submodules", "set-safe-directory", "github-server-url"},
	},
	"actions/setup-go": {
		versions: []string{"v6"},
		inputs:   []string{"go-version", "go-version-file", "check-latest", "token", "cache", "cache-dependency-path", "architecture"},
	},
	"github/codeql-action/upload-sarif": {
		versions: []string{"v4"},
		inputs:   []string{"sarif_file", "checkout_path", "ref", "sha", "token", "matrix", "category", "wait-for-processing"},
	},
}

const uploadSARIF = "github/codeql-action/upload-sarif"

// knownActions lists actions as name@version, for a message.
func knownActions() string {
	var out []string
	for name, a := range actions {
		for _, v := range a.versions {
			out = append(out, name+"@"+v)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func load(t *testing.T) workflow {
	t.Helper()
	data, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var w workflow
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s: %v", workflowFile, err)
	}
	if len(w.On) == 0 || len(w.Jobs) == 0 {
		t.Fatalf("%s: no triggers (on) or no jobs", workflowFile)
	}
	return w
}

// TestWorkflowActions checks every step: it runs a script or uses a known
// action at a version that exists, with inputs that action declares; and
// the job that uploads SARIF may write security events and uploads the
// file the audit step writes.
func TestWorkflowActions(t *testing.T) {
	t.Parallel()
	w := load(t)
	uploads := 0
	for id, j := range w.Jobs {
		if j.RunsOn == "" || len(j.Steps) == 0 {
			t.Errorf("job %s: runs-on and steps are required", id)
		}
		for i, s := range j.Steps {
			where := func() string { return workflowFile + ": job " + id + ", step " + strings.TrimSpace(s.Name+" "+s.Uses) }
			if (s.Uses == "") == (s.Run == "") {
				t.Errorf("%s (#%d): a step either uses an action or runs a script", where(), i+1)
				continue
			}
			if s.Uses == "" {
				continue
			}
			name, version, ok := strings.Cut(s.Uses, "@")
			a, known := actions[name]
			if !ok || !known || !slices.Contains(a.versions, version) {
				t.Errorf("%s: uses %q, want one of the actions checked to exist: %s", where(), s.Uses, knownActions())
				continue
			}
			for in := range s.With {
				if !slices.Contains(a.inputs, in) {
					t.Errorf("%s: input %q is not one of %s's: %v", where(), in, name, a.inputs)
				}
			}
			if name != uploadSARIF {
				continue
			}
			uploads++
			perm := j.Permissions
			if perm == nil {
				perm = w.Permissions
			}
			if perm["security-events"] != "write" {
				t.Errorf("%s: the job's permissions are %v; upload-sarif needs security-events: write", where(), perm)
			}
			if want := sarifOutput(t, j); s.With["sarif_file"] != want {
				t.Errorf("%s: sarif_file is %q, but the audit step writes %q", where(), s.With["sarif_file"], want)
			}
		}
	}
	if uploads != 1 {
		t.Errorf("%s: %d steps use %s, want 1", workflowFile, uploads, uploadSARIF)
	}
}

// sarifOutput returns the file that the job's idemkit audit --format sarif
// writes its output to.
func sarifOutput(t *testing.T, j job) string {
	t.Helper()
	for _, s := range j.Steps {
		for _, inv := range invocations(s.Run) {
			if len(inv.args) > 0 && inv.args[0] == "audit" && slices.Contains(inv.args, "sarif") {
				return inv.stdout
			}
		}
	}
	t.Fatalf("%s: no step of the upload's job runs idemkit audit --format sarif > FILE", workflowFile)
	return ""
}

// invocation is one idemkit command in a step's script.
type invocation struct {
	args   []string // after "idemkit", unquoted
	stdout string   // the file > sends its output to, if any
}

// idemkitCmd finds idemkit as a command word: at the start of a line or
// after a shell operator, not as an argument (command -v idemkit).
var idemkitCmd = regexp.MustCompile(`(?m)(?:^|[;&|(]|\bthen|\bdo)[ \t]*idemkit\b([^\n;&|)]*)`)

// invocations returns the idemkit commands of a script.
func invocations(script string) []invocation {
	var out []invocation
	for _, m := range idemkitCmd.FindAllStringSubmatch(script, -1) {
		var inv invocation
		words := strings.Fields(m[1])
		for i := 0; i < len(words); i++ {
			w := strings.Trim(words[i], `"'`)
			if w == ">" && i+1 < len(words) {
				inv.stdout = strings.Trim(words[i+1], `"'`)
				i++
				continue
			}
			if f, ok := strings.CutPrefix(w, ">"); ok {
				inv.stdout = f
				continue
			}
			inv.args = append(inv.args, w)
		}
		out = append(out, inv)
	}
	return out
}

// TestWorkflowCommands checks each idemkit command the workflow runs
// against idemkit's own command tree: the subcommand and every flag
// exist. It then runs the audit the code-scanning job runs, with the same
// arguments, on the example service, and checks it is the SARIF the
// upload needs: exit status 1 (findings, which the step lets through),
// one rule per check and each check's finding in the results.
func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	w := load(t)
	var audits [][]string
	vetSteps := 0
	for id, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "go vet") {
				vetSteps++
				if !strings.Contains(s.Run, `go vet -vettool="$(command -v idemkit)" ./...`) {
					t.Errorf("job %s: go vet step %q, want go vet -vettool=\"$(command -v idemkit)\" ./...", id, s.Run)
				}
			}
			for _, inv := range invocations(s.Run) {
				f := &cli.Factory{IO: &cli.IOStreams{In: strings.NewReader(""), Out: new(bytes.Buffer), ErrOut: new(bytes.Buffer)}, Getenv: func(string) string { return "" }}
				root := cli.NewCmdRoot(f)
				cmd, rest, err := root.Find(inv.args)
				if err != nil || cmd == root {
					t.Errorf("job %s: idemkit %s: no such command (%v)", id, strings.Join(inv.args, " "), err)
					continue
				}
				if err := cmd.ParseFlags(rest); err != nil {
					t.Errorf("job %s: idemkit %s: %v", id, strings.Join(inv.args, " "), err)
				}
				if cmd.Name() == "audit" {
					audits = append(audits, inv.args)
				}
			}
		}
	}
	if vetSteps == 0 {
		t.Errorf("%s: no step runs go vet with idemkit", workflowFile)
	}
	if len(audits) != 1 {
		t.Fatalf("%s: %d idemkit audit commands, want the code-scanning job's one", workflowFile, len(audits))
	}

	dir, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	io, out, errOut := cli.TestStreams("", false)
	f := &cli.Factory{IO: io, Dir: dir, Getenv: func(k string) string {
		if k == "IDEMKIT_CACHE" {
			return "off"
		}
		return ""
	}}
	if code := cli.Main(context.Background(), f, audits[0]); code != 1 {
		t.Fatalf("idemkit %s in testdata/example: exit status %d, want 1 (findings)\n%s", strings.Join(audits[0], " "), code, errOut)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct{ RuleID string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatalf("idemkit %s: not JSON: %v\n%s", strings.Join(audits[0], " "), err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("idemkit %s: SARIF version %q with %d runs, want 2.1.0 with 1", strings.Join(audits[0], " "), log.Version, len(log.Runs))
	}
	var rules, results []string
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		rules = append(rules, r.ID)
	}
	for _, r := range log.Runs[0].Results {
		results = append(results, r.RuleID)
	}
	var checks []string
	for _, a := range audit.Analyzers {
		checks = append(checks, a.Name)
	}
	slices.Sort(results)
	sorted := slices.Sorted(slices.Values(checks))
	if !slices.Equal(rules, checks) || !slices.Equal(results, sorted) {
		t.Errorf("SARIF rules %v and results %v, want a rule and one result for each of %v", rules, results, checks)
	}
}
