package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"

	// The official SARIF 2.1.0 schema is read at test time from this
	// module's source (see officialSARIFSchema), never copied into this
	// repository. The blank import keeps the module required by this test
	// file alone, so that go mod tidy keeps it, and puts its source in the
	// module cache whenever this test builds.
	_ "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// Where the official schema is found: go-sarif holds the OASIS JSON
// schema as the string constant schema in schema.go.
const (
	schemaModule = "github.com/owenrumney/go-sarif/v3"
	schemaFile   = "pkg/report/v210/sarif/schema.go"
	schemaConst  = "schema"
	draft04      = "http://json-schema.org/draft-04/schema#"
)

// officialSARIFSchema returns the OASIS SARIF 2.1.0 JSON schema (errata 01),
// extracted from go-sarif's source in the module cache. A change in go-sarif
// that moves or replaces it fails the test and says what changed.
func officialSARIFSchema(t *testing.T) []byte {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", schemaModule)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -m %s: %v\n%s(the SARIF schema is read from that module: is it still required in go.mod?)", schemaModule, err, stderr)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatalf("go list -m %s gave no directory: the module is not in the module cache (run go mod download %s)", schemaModule, schemaModule)
	}
	file := filepath.Join(dir, filepath.FromSlash(schemaFile))
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading the SARIF schema: %v (go-sarif no longer has %s; find where it keeps the schema now and update schemaFile)", err, schemaFile)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	var text string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if name.Name != schemaConst || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: const %s is no longer a string literal; update officialSARIFSchema", file, schemaConst)
				}
				if text, err = strconv.Unquote(lit.Value); err != nil {
					t.Fatalf("%s: const %s: %v", file, schemaConst, err)
				}
			}
		}
	}
	if text == "" {
		t.Fatalf("%s has no const %s any more: go-sarif renamed or moved the schema; update schemaFile and schemaConst", file, schemaConst)
	}
	var head struct {
		Meta string `json:"$schema"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		t.Fatalf("%s: const %s is not JSON: %v", file, schemaConst, err)
	}
	// The document names this schema as its $schema: validate against
	// exactly that one, with a draft-04 validator.
	if head.ID != sarifSchema || head.Meta != draft04 {
		t.Fatalf("%s: const %s is now the schema %q (meta-schema %q), not %q (%q), which idemkit's SARIF declares as its $schema",
			file, schemaConst, head.ID, head.Meta, sarifSchema, draft04)
	}
	return []byte(text)
}

// exampleFindings are the findings of testdata/example, one per check, as
// "rule file" (TestExample in package audit holds the same list).
var exampleFindings = []string{
	"attemptkey cron/invoices.go",
	"cacheresponse payments/handler.go",
	"checkthenact webhooks/stripe.go",
	"releaseonerror queue/consumer.go",
}

// knownUnlinked are findings whose message names a second place
// (file.go:line) that the check reports no related location for, keyed
// "rule file:line" of that place. Each is a gap in the check, not in the
// SARIF writer; the test fails once the check closes it, so that the entry
// goes.
var knownUnlinked = map[string]bool{}

// auditSARIF audits the module in dir with the suite, as idemkit audit
// --format sarif does there, and returns the number of findings and the
// raw SARIF.
func auditSARIF(dir string) (int, []byte, error) {
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: audit.Analyzers,
		Env: append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off")})
	if err != nil {
		return 0, nil, err
	}
	if len(res.Errors) > 0 {
		return 0, nil, fmt.Errorf("%s does not load: %v", dir, res.Errors)
	}
	var b bytes.Buffer
	err = WriteSARIF(&b, res, SARIFOptions{Dir: dir, ToolVersion: "v1.2.3", Analyzers: audit.Analyzers, ReadFile: os.ReadFile})
	return len(res.Findings), b.Bytes(), err
}

// TestSARIFValid checks the SARIF of a real audit, of the bundled example
// (one finding per check, with related locations), against the
// official OASIS schema, on the bytes written, and against what GitHub code
// scanning documents beyond the schema: it must upload and show every
// finding, on the right line, as the same alert on every run.
func TestSARIFValid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: audits the example twice and finds the schema with go list")
	}
	t.Parallel()
	schema := officialSARIFSchema(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "example"))
	if err != nil {
		t.Fatal(err)
	}
	// The same module, audited from a checkout elsewhere (meanwhile).
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	type audited struct {
		raw []byte
		err error
	}
	elsewhere := make(chan audited, 1)
	go func() {
		_, raw, err := auditSARIF(other)
		elsewhere <- audited{raw, err}
	}()
	findings, raw, err := auditSARIF(dir)
	away := <-elsewhere // before a t.Fatal removes its directory
	if err != nil {
		t.Fatal(err)
	}

	// 1. Valid SARIF 2.1.0, the raw bytes against the official schema
	// (formats included: uri, uri-reference).
	valid, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(raw))
	if err != nil {
		t.Fatalf("validating: %v\n%s", err, raw)
	}
	for _, e := range valid.Errors() {
		t.Errorf("not valid SARIF 2.1.0: %s", e)
	}
	if !utf8.Valid(raw) {
		t.Error("the log is not UTF-8")
	}

	// 2. What GitHub code scanning requires beyond the schema.
	var log ghLog
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatal(err)
	}
	checkCodeScanning(t, log, dir)

	// 3. One result per finding: one per check in the example.
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	var rules, got []string
	for _, r := range run.Tool.Driver.Rules {
		rules = append(rules, r.ID)
	}
	var want []string
	for _, a := range audit.Analyzers {
		want = append(want, a.Name)
	}
	if !slices.Equal(rules, want) {
		t.Errorf("rules %q, want one per analyzer: %q", rules, want)
	}
	related, fixes := 0, 0
	for _, r := range run.Results {
		if len(r.Locations) > 0 {
			got = append(got, r.RuleID+" "+r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		related += len(r.RelatedLocations)
		fixes += len(r.Fixes)
	}
	slices.Sort(got)
	if !slices.Equal(got, exampleFindings) || len(run.Results) != findings {
		t.Errorf("results %q (of %d findings), want %q", got, findings, exampleFindings)
	}
	// The example exercises the related locations; its checkthenact
	// finding has work between the check and the INSERT, so no fix is
	// offered there (TestSARIFFixValid covers fixes).
	if related == 0 {
		t.Errorf("%d related locations: the example should have some", related)
	}

	// Stable: the same results, fingerprints and paths from a checkout
	// elsewhere; only %SRCROOT% says where it is.
	if away.err != nil {
		t.Fatal(away.err)
	}
	again := away.raw
	var log2 ghLog
	if err := json.Unmarshal(again, &log2); err != nil {
		t.Fatal(err)
	}
	if fp1, fp2 := fingerprints(log), fingerprints(log2); !slices.Equal(fp1, fp2) {
		t.Errorf("fingerprints differ between two checkouts:\n%q\n%q", fp1, fp2)
	}
	rootless := func(b []byte, dir string) []byte {
		return bytes.ReplaceAll(b, []byte(fileURI(dir)+"/"), []byte("SRCROOT/"))
	}
	l1, l2 := strings.Split(string(rootless(raw, dir)), "\n"), strings.Split(string(rootless(again, other)), "\n")
	for i := range min(len(l1), len(l2)) {
		if l1[i] != l2[i] {
			t.Errorf("the log depends on where the module is beyond %%SRCROOT%%: line %d is\n%s\nin one checkout and\n%s\nin the other", i+1, l1[i], l2[i])
			break
		}
	}
	if len(l1) != len(l2) {
		t.Errorf("the log depends on where the module is: %d lines in one checkout, %d in the other", len(l1), len(l2))
	}
}

// The parts of a SARIF log GitHub code scanning reads (docs.github.com:
// "SARIF support for code scanning").
type (
	ghLog struct {
		Schema  string  `json:"$schema"`
		Version string  `json:"version"`
		Runs    []ghRun `json:"runs"`
	}
	ghRun struct {
		Tool struct {
			Driver struct {
				Name  string   `json:"name"`
				Rules []ghRule `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]ghArtifact `json:"originalUriBaseIds"`
		Results            []ghResult            `json:"results"`
	}
	ghRule struct {
		ID               string `json:"id"`
		Name             string `json:"name"`
		ShortDescription ghText `json:"shortDescription"`
		FullDescription  ghText `json:"fullDescription"`
		Help             struct {
			Text     string `json:"text"`
			Markdown string `json:"markdown"`
		} `json:"help"`
		Properties struct {
			Tags []string `json:"tags"`
		} `json:"properties"`
	}
	ghText   struct{ Text string }
	ghResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           *int              `json:"ruleIndex"`
		Message             ghText            `json:"message"`
		Locations           []ghLocation      `json:"locations"`
		RelatedLocations    []ghLocation      `json:"relatedLocations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Fixes               []struct {
			ArtifactChanges []struct {
				ArtifactLocation ghArtifact `json:"artifactLocation"`
			} `json:"artifactChanges"`
		} `json:"fixes"`
	}
	ghLocation struct {
		ID               int `json:"id"`
		PhysicalLocation struct {
			ArtifactLocation ghArtifact `json:"artifactLocation"`
			Region           struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
				EndLine     int `json:"endLine"`
				EndColumn   int `json:"endColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
		Message *ghText `json:"message"`
	}
	ghArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
)

// GitHub code scanning's limits on what it accepts and shows.
const (
	ghMaxRuns           = 20
	ghMaxResults        = 25000
	ghMaxRules          = 25000
	ghMaxLocations      = 10 // "up to a maximum of 10" per result
	ghMaxTags           = 20
	ghMaxDescription    = 1024 // shortDescription and fullDescription
	ghMaxRuleName       = 255
	ghFingerprintScheme = "primaryLocationLineHash" // the only one code scanning uses
)

// placeRE matches a second place a message names, as the checks write it:
// file.go:line.
var placeRE = regexp.MustCompile(`\b([A-Za-z0-9_.-]+\.go):([0-9]+)\b`)

// checkCodeScanning checks log against GitHub code scanning's documented
// requirements, which the schema leaves optional: required properties
// present and non-empty, rules for every result, repository-relative paths
// to files that exist, regions inside them, fingerprints, limits.
func checkCodeScanning(t *testing.T, log ghLog, dir string) {
	t.Helper()
	if log.Schema == "" || log.Version != "2.1.0" {
		t.Errorf("$schema %q, version %q", log.Schema, log.Version)
	}
	if len(log.Runs) == 0 || len(log.Runs) > ghMaxRuns {
		t.Fatalf("%d runs", len(log.Runs))
	}
	for ri, run := range log.Runs {
		drv := run.Tool.Driver
		if drv.Name == "" {
			t.Errorf("run %d: tool.driver.name is empty", ri)
		}
		if len(drv.Rules) == 0 || len(drv.Rules) > ghMaxRules || len(run.Results) > ghMaxResults {
			t.Errorf("run %d: %d rules, %d results", ri, len(drv.Rules), len(run.Results))
		}
		ruleIDs := make(map[string]int)
		for i, r := range drv.Rules {
			where := fmt.Sprintf("rule %d (%s)", i, r.ID)
			if r.ID == "" {
				t.Errorf("%s: no id", where)
			}
			if _, dup := ruleIDs[r.ID]; dup {
				t.Errorf("%s: id used twice", where)
			}
			ruleIDs[r.ID] = i
			for name, text := range map[string]string{"shortDescription": r.ShortDescription.Text, "fullDescription": r.FullDescription.Text} {
				if n := utf8.RuneCountInString(text); n == 0 || n > ghMaxDescription {
					t.Errorf("%s: %s.text has %d characters, want 1 to %d", where, name, n, ghMaxDescription)
				}
			}
			if r.Help.Text == "" {
				t.Errorf("%s: no help.text", where)
			}
			if utf8.RuneCountInString(r.Name) > ghMaxRuleName || len(r.Properties.Tags) > ghMaxTags {
				t.Errorf("%s: name of %d characters, %d tags", where, utf8.RuneCountInString(r.Name), len(r.Properties.Tags))
			}
		}

		seen := make(map[string]int)
		for i, r := range run.Results {
			where := fmt.Sprintf("result %d (%s)", i, r.RuleID)
			if r.RuleID == "" {
				t.Errorf("%s: no ruleId", where)
			} else if idx, ok := ruleIDs[r.RuleID]; !ok {
				t.Errorf("%s: ruleId %q names no rule in tool.driver.rules", where, r.RuleID)
			} else if r.RuleIndex != nil && *r.RuleIndex != idx {
				t.Errorf("%s: ruleIndex %d, but the rule is at %d", where, *r.RuleIndex, idx)
			}
			if r.Message.Text == "" {
				t.Errorf("%s: no message.text", where)
			}
			if len(r.Locations) == 0 || len(r.Locations) > ghMaxLocations {
				t.Errorf("%s: %d locations, want 1 to %d", where, len(r.Locations), ghMaxLocations)
			}
			for j, l := range r.Locations {
				checkLocation(t, fmt.Sprintf("%s location %d", where, j), l, run, dir)
			}
			ids := make(map[int]bool)
			for j, l := range r.RelatedLocations {
				lw := fmt.Sprintf("%s related location %d", where, j)
				checkLocation(t, lw, l, run, dir)
				if l.ID < 0 || ids[l.ID] {
					t.Errorf("%s: id %d is negative or not unique", lw, l.ID)
				}
				ids[l.ID] = true
				if l.Message == nil || l.Message.Text == "" {
					t.Errorf("%s: no message saying what the place is", lw)
				}
			}
			for _, fix := range r.Fixes {
				for _, c := range fix.ArtifactChanges {
					checkArtifact(t, where+" fix", c.ArtifactLocation, run, dir)
				}
			}
			fp := r.PartialFingerprints[ghFingerprintScheme]
			if fp == "" {
				t.Errorf("%s: no partialFingerprints.%s", where, ghFingerprintScheme)
			} else if j, dup := seen[fp]; dup {
				t.Errorf("%s: fingerprint %s is result %d's too: code scanning would merge them into one alert", where, fp, j)
			}
			seen[fp] = i

			// The second place a message names is a related location.
			for _, m := range placeRE.FindAllStringSubmatch(r.Message.Text, -1) {
				line, _ := strconv.Atoi(m[2])
				linked := slices.ContainsFunc(r.RelatedLocations, func(l ghLocation) bool {
					return path.Base(l.PhysicalLocation.ArtifactLocation.URI) == m[1] && l.PhysicalLocation.Region.StartLine == line
				})
				key := r.RuleID + " " + m[0]
				if known := knownUnlinked[key]; linked == known {
					if known {
						t.Errorf("%s: %s is now a related location: delete %q from knownUnlinked", where, m[0], key)
					} else {
						t.Errorf("%s: the message names %s, which is no related location: %q", where, m[0], r.Message.Text)
					}
				}
			}
		}
	}
}

// checkLocation checks a location as code scanning shows it: a file in the
// repository and a region within it, all four bounds given.
func checkLocation(t *testing.T, where string, l ghLocation, run ghRun, dir string) {
	t.Helper()
	pl := l.PhysicalLocation
	file := checkArtifact(t, where, pl.ArtifactLocation, run, dir)
	reg := pl.Region
	if reg.StartLine < 1 || reg.StartColumn < 1 || reg.EndLine < 1 || reg.EndColumn < 1 {
		t.Errorf("%s: region %+v: startLine, startColumn, endLine and endColumn are required", where, reg)
	} else if reg.EndLine < reg.StartLine || reg.EndLine == reg.StartLine && reg.EndColumn < reg.StartColumn {
		t.Errorf("%s: region %+v ends before it starts", where, reg)
	}
	if file == "" {
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; reg.EndLine > lines {
		t.Errorf("%s: region %+v ends past %s's %d lines", where, reg, pl.ArtifactLocation.URI, lines)
	}
}

// checkArtifact checks that a path is relative to the repository root
// (%SRCROOT%, which GitHub resolves against the checkout) and names a file
// there, and returns the file.
func checkArtifact(t *testing.T, where string, a ghArtifact, run ghRun, dir string) string {
	t.Helper()
	u, err := url.Parse(a.URI)
	switch {
	case a.URI == "":
		t.Errorf("%s: no artifactLocation.uri", where)
		return ""
	case err != nil:
		t.Errorf("%s: uri %q: %v", where, a.URI, err)
		return ""
	case u.Scheme != "" || u.Host != "" || path.IsAbs(u.Path) || filepath.IsAbs(u.Path):
		t.Errorf("%s: uri %q is absolute; code scanning wants a path relative to the repository root", where, a.URI)
		return ""
	case u.Path == ".." || strings.HasPrefix(u.Path, "../"):
		t.Errorf("%s: uri %q leaves the repository root", where, a.URI)
		return ""
	}
	if _, ok := run.OriginalURIBaseIDs[a.URIBaseID]; a.URIBaseID != "" && !ok {
		t.Errorf("%s: uriBaseId %q is not among the run's originalUriBaseIds", where, a.URIBaseID)
	}
	file := filepath.Join(dir, filepath.FromSlash(u.Path))
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: uri %q names no file under the root: %v", where, a.URI, err)
		return ""
	}
	return file
}

// fingerprints lists each result's rule, path and fingerprint, in order.
func fingerprints(log ghLog) []string {
	var fps []string
	for _, run := range log.Runs {
		for _, r := range run.Results {
			uri := ""
			if len(r.Locations) > 0 {
				uri = r.Locations[0].PhysicalLocation.ArtifactLocation.URI
			}
			fps = append(fps, fmt.Sprintf("%s %s %s", r.RuleID, uri, r.PartialFingerprints[ghFingerprintScheme]))
		}
	}
	return fps
}

// TestSARIFFixValid checks a log whose findings carry suggested fixes
// against the official schema: the example's findings no longer do, as
// checkthenact withholds a fix that would hide its race.
func TestSARIFFixValid(t *testing.T) {
	if testing.Short() {
		t.Skip("finds the schema with go list")
	}
	t.Parallel()
	schema := officialSARIFSchema(t)
	dir := drivertest.WriteTree(t, drivertest.Module)
	analyzers := []*analysis.Analyzer{drivertest.BadCall}
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: analyzers})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSARIF(&b, res, SARIFOptions{Dir: dir, ToolVersion: "v1.2.3", Analyzers: analyzers, ReadFile: os.ReadFile}); err != nil {
		t.Fatal(err)
	}
	valid, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range valid.Errors() {
		t.Errorf("not valid SARIF 2.1.0: %s", e)
	}
	var log ghLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	fixes := 0
	for _, r := range log.Runs[0].Results {
		fixes += len(r.Fixes)
	}
	if fixes == 0 {
		t.Errorf("no fixes in the log:\n%s", b.Bytes())
	}
}
