package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"
)

// analysed runs BadCall over a copy of drivertest.Module (with edits applied to
// it first) and returns the directory and the result.
func analysed(t *testing.T, edit func(files map[string]string)) (string, *Result) {
	t.Helper()
	files := maps.Clone(drivertest.Module)
	if edit != nil {
		edit(files)
	}
	dir := drivertest.WriteTree(t, files)
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{drivertest.BadCall}})
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	dir, res := analysed(t, nil)
	var b bytes.Buffer
	if err := WriteText(&b, res.Findings, dir); err != nil {
		t.Fatal(err)
	}
	// The check is named once, at the head of the line: the message's
	// own "(badcall)", there for plain go vet output, is left off.
	want := `a/a.go:5:23: badcall: call to Bad
	lib/lib.go:3:6: Bad is declared here
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	dir, res := analysed(t, nil)
	res.Errors = append(res.Errors, &PackageError{Package: "example.com/m/lib", Analyzer: "failing", Problems: []string{"it broke"}})
	var b bytes.Buffer
	if err := WriteJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	// The shape of go vet -json: package ID -> analyzer -> diagnostics.
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &tree); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	var diags []jsonDiagnostic
	if err := json.Unmarshal(tree["example.com/m/a"]["badcall"], &diags); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if len(diags) != 1 {
		t.Fatalf("want the finding in a, got %+v", diags)
	}
	d := diags[0]
	if d.Posn != filepath.Join(dir, "a", "a.go")+":5:23" || d.End != filepath.Join(dir, "a", "a.go")+":5:32" || d.Message != "call to Bad (badcall)" {
		t.Errorf("diagnostic = %+v", d)
	}
	if len(d.Related) != 1 || d.Related[0].Posn != filepath.Join(dir, "lib", "lib.go")+":3:6" {
		t.Errorf("related = %+v", d.Related)
	}
	if len(d.SuggestedFixes) != 1 || d.SuggestedFixes[0].Edits[0].New != "Good" || d.SuggestedFixes[0].Edits[0].End-d.SuggestedFixes[0].Edits[0].Start != 3 {
		t.Errorf("fixes = %+v", d.SuggestedFixes)
	}
	if got := string(tree["example.com/m/lib"]["failing"]); got != `{"error":"it broke"}` && !strings.Contains(got, `"error": "it broke"`) {
		t.Errorf("analyzer error = %s", got)
	}
	// The packages that did not load are there too, under each analyzer
	// of the suite, saying why.
	for pkg, why := range map[string]string{
		"example.com/m/broken": "example.com/m/broken: not audited: it does not type-check\n\tbroken/b.go:3:23: undefined: undefined",
		"example.com/m/user":   "example.com/m/user: not audited: it imports example.com/m/broken, which does not type-check",
	} {
		var e jsonError
		if err := json.Unmarshal(tree[pkg]["badcall"], &e); err != nil || e.Err != why || len(tree[pkg]) != 1 {
			t.Errorf("%s: %s, want {\"badcall\": {\"error\": %q}}", pkg, b.String(), why)
		}
	}
}

// sarifOf runs WriteSARIF and decodes what it wrote.
func sarifOf(t *testing.T, dir string, res *Result) sarifLog {
	t.Helper()
	var b bytes.Buffer
	opts := SARIFOptions{Dir: dir, ToolVersion: "v1.2.3", Analyzers: []*analysis.Analyzer{drivertest.BadCall, drivertest.Failing}, ReadFile: os.ReadFile}
	if err := WriteSARIF(&b, res, opts); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	return log
}

func TestWriteSARIF(t *testing.T) {
	t.Parallel()
	dir, res := analysed(t, func(m map[string]string) {
		// Two findings on identical lines: told apart by occurrence.
		m["a/b.go"] = "package a\n\nimport \"example.com/m/lib\"\n\nvar _ = lib.Bad()\nvar _ = lib.Bad()\n"
	})
	log := sarifOf(t, dir, res)
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-schema-2.1.0.json") || len(log.Runs) != 1 {
		t.Fatalf("header: %+v", log)
	}
	run := log.Runs[0]
	if run.OriginalURIBaseIDs[srcRoot].URI != "file://"+filepath.ToSlash(dir)+"/" {
		t.Errorf("%%SRCROOT%% = %q", run.OriginalURIBaseIDs[srcRoot].URI)
	}
	drv := run.Tool.Driver
	if drv.Name != "idemkit" || drv.Version != "1.2.3" || len(drv.Rules) != 2 {
		t.Fatalf("driver: %+v", drv)
	}
	rule := drv.Rules[0]
	if rule.ID != "badcall" || rule.ShortDescription.Text != "calls to Bad" || !strings.Contains(rule.Help.Markdown, "Bad is never right") ||
		!strings.Contains(rule.Help.Markdown, "//idemkit:ignore badcall") || rule.Help.Text == "" || rule.DefaultConfiguration.Level != "error" ||
		rule.HelpURI != "https://example.com/badcall" {
		t.Errorf("rule: %+v", rule)
	}
	if len(run.Results) != 3 {
		t.Fatalf("want 3 results, got %+v", run.Results)
	}
	r := run.Results[0]
	loc := r.Locations[0].PhysicalLocation
	if r.RuleID != "badcall" || r.RuleIndex != 0 || r.Level != "error" || r.Message.Text != "call to Bad (badcall)" ||
		loc.ArtifactLocation != (sarifArtifact{URI: "a/a.go", URIBaseID: srcRoot}) ||
		loc.Region != (sarifRegion{StartLine: 5, StartColumn: 23, EndLine: 5, EndColumn: 32}) {
		t.Errorf("result: %+v", r)
	}
	if len(r.RelatedLocations) != 1 || r.RelatedLocations[0].ID != 1 || r.RelatedLocations[0].Message.Text != "Bad is declared here" ||
		r.RelatedLocations[0].PhysicalLocation.ArtifactLocation.URI != "lib/lib.go" || r.RelatedLocations[0].PhysicalLocation.Region.StartLine != 3 {
		t.Errorf("related: %+v", r.RelatedLocations)
	}
	if len(r.Fixes) != 1 || r.Fixes[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text != "Good" ||
		r.Fixes[0].ArtifactChanges[0].Replacements[0].DeletedRegion.ByteLength != 3 {
		t.Errorf("fixes: %+v", r.Fixes)
	}
	fp1, fp2 := run.Results[1].PartialFingerprints[fingerprintKey], run.Results[2].PartialFingerprints[fingerprintKey]
	if h, ok := strings.CutSuffix(fp1, ":1"); !ok || fp2 != h+":2" {
		t.Errorf("fingerprints of identical lines: %q, %q; want HASH:1, HASH:2", fp1, fp2)
	}
	// The module's broken packages make the run unsuccessful, and say why.
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.Notifications) != 2 || !strings.Contains(inv.Notifications[0].Message.Text, "broken/b.go:3:23: undefined") {
		t.Errorf("invocation: %+v", inv)
	}
}

// TestSARIFFingerprints checks that fingerprints follow the finding's
// text, not its line number: code scanning must not see a new alert (and
// a fixed one) when a line is inserted above it.
func TestSARIFFingerprints(t *testing.T) {
	t.Parallel()
	fp := func(edit func(map[string]string)) string {
		dir, res := analysed(t, edit)
		return sarifOf(t, dir, res).Runs[0].Results[0].PartialFingerprints[fingerprintKey]
	}
	base := fp(nil)
	moved := fp(func(m map[string]string) {
		m["a/a.go"] = strings.Replace(m["a/a.go"], "package a\n", "package a\n\n// A comment that moves the finding down.\n\n", 1)
	})
	reindented := fp(func(m map[string]string) {
		m["a/a.go"] = strings.Replace(m["a/a.go"], "func A() int { return lib.Bad() }", "func A() int {   return lib.Bad()   }", 1)
	})
	changed := fp(func(m map[string]string) {
		m["a/a.go"] = strings.Replace(m["a/a.go"], "func A() int { return lib.Bad() }", "func A() int { return 1 + lib.Bad() }", 1)
	})
	if base != moved {
		t.Errorf("a finding moved down changed its fingerprint: %s -> %s", base, moved)
	}
	if base != reindented {
		t.Errorf("whitespace changed the fingerprint: %s -> %s", base, reindented)
	}
	if base == changed {
		t.Errorf("a changed line kept its fingerprint %s", base)
	}
	if !strings.HasSuffix(base, ":1") {
		t.Errorf("fingerprint %q lacks its occurrence count", base)
	}
}

func TestSARIFColumnsAreUTF16(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "u.go")
	line := `var s = "é😀" + Bad()`
	if err := os.WriteFile(file, []byte("package u\n\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := strings.Index(line, "Bad") + 1 // bytes, as go/token counts
	res := &Result{Findings: []Finding{{
		Analyzer: "badcall", Message: "m",
		Pos: token.Position{Filename: file, Line: 3, Column: col},
		End: token.Position{Filename: file, Line: 3, Column: col + 5},
	}}}
	region := sarifOf(t, dir, res).Runs[0].Results[0].Locations[0].PhysicalLocation.Region
	// é is 2 bytes and 1 UTF-16 unit, 😀 4 bytes and 2 units.
	if region.StartColumn != col-3 || region.EndColumn != col+2 {
		t.Errorf("columns %d-%d, want %d-%d", region.StartColumn, region.EndColumn, col-3, col+2)
	}
	if !sarifOf(t, dir, res).Runs[0].Invocations[0].ExecutionSuccessful {
		t.Error("a run without errors must be successful")
	}
}

func TestSARIFVersion(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"v1.2.3": "1.2.3", "0.4.0-rc.1": "0.4.0-rc.1", "devel": "", "": ""} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, &Result{}, SARIFOptions{ToolVersion: v}); err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		if got := log.Runs[0].Tool.Driver.Version; got != want {
			t.Errorf("version %q is written as %q, want %q", v, got, want)
		}
	}
}

func TestSARIFUnknownAnalyzer(t *testing.T) {
	t.Parallel()
	res := &Result{Findings: []Finding{{Analyzer: "nosuch", Message: "m", Pos: token.Position{Filename: "/x.go", Line: 1, Column: 1}}}}
	err := WriteSARIF(new(bytes.Buffer), res, SARIFOptions{Analyzers: []*analysis.Analyzer{drivertest.BadCall}})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("err = %v, want one naming the analyzer", err)
	}
}

// TestLinkPlaces: a place a message names that is one of the finding's related locations
// becomes an embedded link to it, as GitHub code scanning shows them; a place that is not
// stays text, a longer line number is not taken for a shorter one, and literal brackets are
// escaped.
func TestLinkPlaces(t *testing.T) {
	t.Parallel()
	related := []Related{
		{Pos: token.Position{Filename: "/src/m/stripe.go", Line: 50}},
		{Pos: token.Position{Filename: "/src/m/jobs/loop.go", Line: 7}},
	}
	cases := []struct{ msg, want string }{
		{"INSERT after the SELECT at stripe.go:50 races", "INSERT after the SELECT at [stripe.go:50](1) races"},
		{"made at loop.go:7 inside the loop at loop.go:7", "made at [loop.go:7](2) inside the loop at [loop.go:7](2)"},
		{"see stripe.go:500 and other.go:50", "see stripe.go:500 and other.go:50"},
		{"m[key] at stripe.go:50", `m\[key\] at [stripe.go:50](1)`},
	}
	for _, tc := range cases {
		if got := linkPlaces(tc.msg, related); got != tc.want {
			t.Errorf("linkPlaces(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := linkPlaces("a [b] c", nil); got != `a \[b\] c` {
		t.Errorf("without related locations: %q", got)
	}
}

// TestFitDescription checks the shortening of a rule's fullDescription
// to what code scanning takes: whole paragraphs, else sentences, else
// words, never more than the limit.
func TestFitDescription(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"Short.", 10, "Short."},
		{"One two.\n\nThree four.", 21, "One two.\n\nThree four."},
		{"One two.\n\nThree four.", 20, "One two."},
		{"One two. Three four.\n\nFive.", 12, "One two."},
		{"Onetwothree fourfive", 15, "Onetwothree…"},
		{"héhéhé héhé", 8, "héhéhé…"},
	}
	for _, tc := range cases {
		got := fitDescription(tc.in, tc.max)
		if got != tc.want || utf8.RuneCountInString(got) > tc.max {
			t.Errorf("fitDescription(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
