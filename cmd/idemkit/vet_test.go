package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/audit"
)

// TestVettool runs the real go vet with the real idemkit binary as its
// -vettool over testdata/vetmod, and checks that every finding its files
// mark ("// finding: NAME") is reported, and nothing else. GOCACHE is new
// for the test: go vet caches a package's output under a key that does
// not say whether the package was analysed for itself or only for the
// facts a dependent needs, and in the second case the output is empty; a
// shared cache could replay that and hide a regression (or a fix).
//
// The expectations follow the suite: a mark whose analyzer is not in
// audit.Analyzers is not expected, so the test holds while checks land.
func TestVettool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit and the standard library in a fresh GOCACHE")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	build := func(out, pkg string, flags ...string) {
		t.Helper()
		args := append(append([]string{"build"}, flags...), "-o", out, pkg)
		if b, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	// bin is idemkit alone, which runs the checks itself; paired is
	// idemkit with idemkit-vet beside it, to which it hands go vet's runs.
	bin := filepath.Join(t.TempDir(), "idemkit")
	build(bin, ".")
	pairDir := t.TempDir()
	paired := filepath.Join(pairDir, "idemkit")
	build(paired, ".")
	build(filepath.Join(pairDir, "idemkit-vet"), "../idemkit-vet")
	mod, err := filepath.Abs(filepath.Join("..", "..", "testdata", "vetmod"))
	if err != nil {
		t.Fatal(err)
	}
	want := marks(t, mod)
	var vetWith func(tool string, args ...string) (stdout, stderr string, code int)
	env := append(os.Environ(), "GOCACHE="+t.TempDir(), "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")

	vet := func(args ...string) (stdout, stderr string, code int) {
		return vetWith(bin, args...)
	}
	vetWith = func(tool string, args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(goTool, append([]string{"vet", "-vettool=" + tool}, args...)...)
		cmd.Dir, cmd.Env = mod, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return o.String(), e.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatalf("go vet: %v", err)
		}
		return o.String(), e.String(), 0
	}

	// Plain go vet: file:line:col: message on stderr, exit 1 on findings.
	_, stderr, code := vet("./...")
	if wantCode := min(len(want), 1); code != wantCode {
		t.Errorf("go vet exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	var got []string
	// A finding's message ends with its analyzer's name; the places it
	// involves follow, their messages indented with a tab.
	diag := regexp.MustCompile(`^(\S+\.go):(\d+):\d+: [^\t].*\((\w+)\)$`)
	related := regexp.MustCompile(`^\S+\.go:\d+:\d+: \t`)
	for line := range strings.Lines(stderr) {
		if m := diag.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			got = append(got, fmt.Sprintf("%s:%s: %s", filepath.ToSlash(m[1]), m[2], m[3]))
		} else if !related.MatchString(line) && !strings.HasPrefix(line, "# ") {
			t.Errorf("go vet printed %q, neither a finding nor a place it involves", line)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("go vet findings:\n%s\nwant (from the // finding: marks):\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}

	// go vet prints packages as they finish, so compare the lines as sets.
	sortedLines := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(lines)
		return strings.Join(lines, "\n")
	}
	// idemkit-vet, called directly or by idemkit, must answer exactly as
	// idemkit does in process.
	for _, tool := range []string{filepath.Join(pairDir, "idemkit-vet"), paired} {
		_, otherErr, otherCode := vetWith(tool, "./...")
		if otherCode != code || sortedLines(otherErr) != sortedLines(stderr) {
			t.Errorf("go vet -vettool=%s answered differently from idemkit alone: exit %d, stderr:\n%s", tool, otherCode, otherErr)
		}
	}

	// Vetted alone, jobs' dependency keys is analysed only for its facts
	// (VetxOnly), by the fact producers alone: the directives and ctrlflow's
	// functions that never return must still reach jobs, whose findings are
	// then those of the whole-module run. (Without ctrlflow's facts the
	// return after keys.Fatal in RunOrDie is reported.)
	var jobsWant []string
	for _, w := range want {
		if strings.HasPrefix(w, "jobs/") {
			jobsWant = append(jobsWant, w)
		}
	}
	for _, tool := range []string{bin, paired} {
		_, jobsErr, _ := vetWith(tool, "-cachekey=jobs-alone", "./jobs")
		var jobsGot []string
		for line := range strings.Lines(jobsErr) {
			if m := diag.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				jobsGot = append(jobsGot, fmt.Sprintf("%s:%s: %s", filepath.ToSlash(m[1]), m[2], m[3]))
			}
		}
		slices.Sort(jobsGot)
		if len(jobsWant) == 0 || !slices.Equal(jobsGot, jobsWant) {
			t.Errorf("go vet -vettool=%s ./jobs:\n%s\nwant:\n%s\nstderr:\n%s", tool, strings.Join(jobsGot, "\n"), strings.Join(jobsWant, "\n"), jobsErr)
		}
	}

	// A stale idemkit-vet (another build: here one stamped with the VCS
	// revision, beside an idemkit without) refuses to answer for idemkit,
	// and go vet fails rather than caching another version's findings.
	staleDir := t.TempDir()
	build(filepath.Join(staleDir, "idemkit"), ".", "-buildvcs=false")
	build(filepath.Join(staleDir, "idemkit-vet"), "../idemkit-vet", "-buildvcs=true")
	_, staleErr, staleCode := vetWith(filepath.Join(staleDir, "idemkit"), "./...")
	if staleCode == 0 || !strings.Contains(staleErr, "is not the build of idemkit at "+filepath.Join(staleDir, "idemkit")) ||
		!strings.Contains(staleErr, "IDEMKIT_VET_INPROCESS=1") {
		t.Errorf("go vet with a stale idemkit-vet beside idemkit: exit %d, stderr:\n%s\nwant a failure naming the mismatch and the fix", staleCode, staleErr)
	}

	// go vet -json: the analyzer names are the keys. The results come from
	// the cache the first run filled, as they would for a user.
	stdout, stderr, code := vet("-json", "./...")
	if code != 0 {
		t.Fatalf("go vet -json exit %d: %s", code, stderr)
	}
	got = got[:0]
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var tree map[string]map[string][]struct{ Posn string }
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("go vet -json: %v\n%s", err, stdout)
		}
		for _, analyzers := range tree {
			for name, diags := range analyzers {
				for _, d := range diags {
					file, line := splitPosn(t, d.Posn)
					rel, _ := filepath.Rel(mod, file)
					got = append(got, fmt.Sprintf("%s:%s: %s", filepath.ToSlash(rel), line, name))
				}
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("go vet -json findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// -cachekey: the same value replays the cache, a new one runs the tool
	// again (go vet -x shows each run of it, on a vet.cfg).
	runsTool := func(key string) bool {
		_, stderr, _ := vet("-x", "-cachekey="+key, "./payments")
		return strings.Contains(stderr, bin) && strings.Contains(stderr, "vet.cfg")
	}
	if !runsTool("a") {
		t.Error("go vet did not run the tool for a new -cachekey")
	}
	if runsTool("a") {
		t.Error("go vet ran the tool again for the same -cachekey")
	}
	if !runsTool("b") {
		t.Error("go vet replayed its cache for a new -cachekey")
	}
}

// marks returns "file:line: analyzer" for each "// finding: NAME" in the
// module's Go files whose analyzer is in the suite, sorted.
func marks(t *testing.T, mod string) []string {
	t.Helper()
	inSuite := make(map[string]bool)
	for _, a := range audit.Analyzers {
		inSuite[a.Name] = true
	}
	var want []string
	err := filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(mod, path)
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if _, name, ok := strings.Cut(sc.Text(), "// finding: "); ok && inSuite[strings.TrimSpace(name)] {
				want = append(want, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), n, strings.TrimSpace(name)))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	return want
}

// splitPosn splits "file:line:col".
func splitPosn(t *testing.T, posn string) (file, line string) {
	t.Helper()
	i := strings.LastIndexByte(posn, ':')
	j := strings.LastIndexByte(posn[:max(i, 0)], ':')
	if i < 0 || j < 0 {
		t.Fatalf("bad position %q", posn)
	}
	return posn[:j], posn[j+1 : i]
}
