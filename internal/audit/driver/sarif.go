package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/tools/go/analysis"
)

// SARIFOptions carry what a SARIF log needs beyond the findings.
type SARIFOptions struct {
	// Dir is the root that artifact URIs are relative to (%SRCROOT%): the
	// working directory, which in CI is the checkout GitHub resolves
	// paths against.
	Dir string
	// ToolVersion is idemkit's version.
	ToolVersion string
	// Analyzers are the suite that ran: each becomes a rule, found or not,
	// so that code scanning can close the alerts of a clean run.
	Analyzers []*analysis.Analyzer
	// ReadFile reads a source file, for the line text behind fingerprints
	// and for columns in UTF-16 code units.
	ReadFile func(string) ([]byte, error)
}

const (
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion = "2.1.0"
	srcRoot      = "%SRCROOT%"
	// fingerprintKey is the partial fingerprint GitHub code scanning
	// matches alerts on across commits. Filling it ourselves keeps the
	// upload action from computing its own from line context.
	fingerprintKey = "primaryLocationLineHash"
)

// The SARIF 2.1.0 subset idemkit writes. Field names are the schema's.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                `json:"tool"`
		Invocations        []sarifInvocation        `json:"invocations"`
		OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
		ColumnKind         string                   `json:"columnKind"`
		Results            []sarifResult            `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Version        string      `json:"version,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		ShortDescription     sarifText          `json:"shortDescription"`
		FullDescription      sarifText          `json:"fullDescription"`
		Help                 sarifHelp          `json:"help"`
		HelpURI              string             `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
		Properties           sarifRuleProps     `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags            []string `json:"tags"`
		Precision       string   `json:"precision"`
		ProblemSeverity string   `json:"problem.severity"`
	}
	sarifInvocation struct {
		ExecutionSuccessful bool                `json:"executionSuccessful"`
		Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level   string    `json:"level"`
		Message sarifText `json:"message"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Fixes               []sarifFix        `json:"fixes,omitempty"`
	}
	sarifLocation struct {
		ID               int                   `json:"id,omitempty"` // related locations count from 1
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          *sarifText            `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifFix struct {
		Description     sarifText             `json:"description"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifact      `json:"artifactLocation"`
		Replacements     []sarifReplacement `json:"replacements"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifByteRegion `json:"deletedRegion"`
		InsertedContent *sarifText      `json:"insertedContent,omitempty"`
	}
	sarifByteRegion struct {
		ByteOffset int `json:"byteOffset"`
		ByteLength int `json:"byteLength"`
	}
)

// WriteSARIF writes the result as a SARIF 2.1.0 log that GitHub code
// scanning accepts: one rule per analyzer with its documentation, one
// result per finding with the second place it involves as a related
// location, and a fingerprint per result that survives edits elsewhere
// in the file (it hashes the rule, the file and the finding's line text,
// not its line number). Packages that could not be analysed make the
// invocation unsuccessful and are listed as its notifications.
func WriteSARIF(w io.Writer, res *Result, opts SARIFOptions) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "idemkit",
			InformationURI: "https://github.com/idemkit/idemkit",
			Version:        numericVersion(opts.ToolVersion),
			Rules:          []sarifRule{},
		}},
		ColumnKind: "utf16CodeUnits",
		Results:    []sarifResult{},
	}
	if opts.Dir != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifact{srcRoot: {URI: fileURI(opts.Dir) + "/"}}
	}

	ruleIndex := make(map[string]int)
	for _, a := range opts.Analyzers {
		doc := Describe(a)
		ruleIndex[a.Name] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   a.Name,
			ShortDescription:     sarifText{Text: doc.Title},
			FullDescription:      sarifText{Text: fitDescription(doc.Summary, maxDescription)},
			Help:                 sarifHelp{Text: doc.Summary, Markdown: string(doc.Markdown)},
			HelpURI:              a.URL,
			DefaultConfiguration: sarifConfiguration{Level: "error"},
			Properties: sarifRuleProps{
				Tags:            []string{"idempotency", "correctness", "reliability"},
				Precision:       "high",
				ProblemSeverity: "error",
			},
		})
	}

	src := &sources{read: opts.ReadFile, files: make(map[string][][]byte)}
	occurrences := make(map[string]int)
	for _, f := range res.Findings {
		idx, ok := ruleIndex[f.Analyzer]
		if !ok {
			return fmt.Errorf("sarif: finding of %s, which is not among the analyzers", f.Analyzer)
		}
		r := sarifResult{
			RuleID:    f.Analyzer,
			RuleIndex: idx,
			Level:     "error",
			Message:   sarifText{Text: linkPlaces(f.Message, f.Related)},
			Locations: []sarifLocation{{PhysicalLocation: src.location(f.Pos, f.End, opts.Dir)}},
		}
		for i, rel := range f.Related {
			r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
				ID:               i + 1,
				PhysicalLocation: src.location(rel.Pos, rel.End, opts.Dir),
				Message:          &sarifText{Text: rel.Message},
			})
		}
		fp := fingerprint(f.Analyzer, relFile(f.Pos.Filename, opts.Dir), src.line(f.Pos.Filename, f.Pos.Line))
		occurrences[fp]++
		r.PartialFingerprints = map[string]string{fingerprintKey: fmt.Sprintf("%s:%d", fp, occurrences[fp])}
		for _, fix := range f.Fixes {
			r.Fixes = append(r.Fixes, sarifFixOf(fix, opts.Dir))
		}
		run.Results = append(run.Results, r)
	}

	inv := sarifInvocation{ExecutionSuccessful: len(res.Errors) == 0}
	for _, e := range res.Errors {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: e.Error()}})
	}
	run.Invocations = []sarifInvocation{inv}

	data, err := json.MarshalIndent(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// maxDescription is the most characters GitHub code scanning takes in a
// rule's fullDescription; the whole text stays in its help.
const maxDescription = 1024

// fitDescription shortens s to at most max characters: whole paragraphs
// while they fit, else whole sentences of the first, else its words
// followed by an ellipsis.
func fitDescription(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	fits := func(t string) bool { return utf8.RuneCountInString(t) <= max }
	var out string
	for para := range strings.SplitSeq(s, "\n\n") {
		next := para
		if out != "" {
			next = out + "\n\n" + para
		}
		if !fits(next) {
			break
		}
		out = next
	}
	if out != "" {
		return out
	}
	first, _, _ := strings.Cut(s, "\n\n")
	for sentence := range strings.SplitAfterSeq(first, ". ") {
		if !fits(out + sentence) {
			break
		}
		out += sentence
	}
	if out != "" {
		return strings.TrimSpace(out)
	}
	words := strings.Fields(first)
	for _, w := range words {
		next := strings.TrimSpace(out + " " + w)
		if !fits(next + "…") {
			break
		}
		out = next
	}
	return out + "…"
}

// placeRef is a place as findings name it in their messages: a file's base
// name and a line.
var placeRef = regexp.MustCompile(`[\w.+-]+\.go:\d+`)

// linkPlaces returns a finding's message as SARIF message text: literal
// brackets escaped, and each place it names that is one of its related
// locations turned into an embedded link to it ("[stripe.go:50](1)"), which
// is how GitHub code scanning shows a related location.
func linkPlaces(msg string, related []Related) string {
	ids := make(map[string]int, len(related))
	for i, rel := range related {
		ref := fmt.Sprintf("%s:%d", filepath.Base(rel.Pos.Filename), rel.Pos.Line)
		if _, dup := ids[ref]; !dup {
			ids[ref] = i + 1
		}
	}
	escaped := strings.NewReplacer(`[`, `\[`, `]`, `\]`).Replace(msg)
	return placeRef.ReplaceAllStringFunc(escaped, func(ref string) string {
		if id, ok := ids[ref]; ok {
			return fmt.Sprintf("[%s](%d)", ref, id)
		}
		return ref
	})
}

// numericVersion returns v as SARIF consumers compare versions, starting
// with a digit ("v1.2.3" is "1.2.3"), or "" for a development build, which
// has no version to compare.
func numericVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return ""
	}
	return v
}

// fingerprint identifies a finding by what stays put when code around it
// moves: the rule, the file and the text of its line with whitespace
// normalised. Findings that share all three are told apart by the
// occurrence count the caller appends, as GitHub's own hashes are.
func fingerprint(rule, file, line string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", rule, filepath.ToSlash(file), strings.Join(strings.Fields(line), " "))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func sarifFixOf(fix Fix, dir string) sarifFix {
	var changes []sarifArtifactChange
	byFile := make(map[string]int)
	for _, e := range fix.Edits {
		i, ok := byFile[e.Filename]
		if !ok {
			i = len(changes)
			byFile[e.Filename] = i
			changes = append(changes, sarifArtifactChange{ArtifactLocation: artifact(e.Filename, dir)})
		}
		rep := sarifReplacement{DeletedRegion: sarifByteRegion{ByteOffset: e.Start, ByteLength: e.End - e.Start}}
		if e.New != "" {
			rep.InsertedContent = &sarifText{Text: e.New}
		}
		changes[i].Replacements = append(changes[i].Replacements, rep)
	}
	return sarifFix{Description: sarifText{Text: fix.Message}, ArtifactChanges: changes}
}

// artifact names file relative to %SRCROOT% when it lies under dir, and
// by an absolute file URI otherwise.
func artifact(file, dir string) sarifArtifact {
	if rel := relFile(file, dir); rel != file || !filepath.IsAbs(file) {
		return sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath(), URIBaseID: srcRoot}
	}
	return sarifArtifact{URI: fileURI(file)}
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// sources reads the files findings point into, once each, split in lines.
type sources struct {
	read  func(string) ([]byte, error)
	files map[string][][]byte
}

// line returns the text of the 1-based line n of file, or "" when the
// file cannot be read.
func (s *sources) line(file string, n int) string {
	lines, ok := s.files[file]
	if !ok {
		if s.read != nil {
			if data, err := s.read(file); err == nil {
				lines = bytes.Split(data, []byte("\n"))
			}
		}
		s.files[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return string(lines[n-1])
}

// location converts a Go position, whose columns count bytes, into a SARIF
// region, whose columns count UTF-16 code units. A position without an end
// (a related position often has none) gets the end SARIF would default
// to, the end of its line, written out: GitHub code scanning documents
// endLine and endColumn as required.
func (s *sources) location(pos, end token.Position, dir string) sarifPhysicalLocation {
	if !end.IsValid() {
		end = token.Position{Filename: pos.Filename, Line: pos.Line, Column: len(s.line(pos.Filename, pos.Line)) + 1}
	}
	region := sarifRegion{StartLine: pos.Line, StartColumn: s.utf16Column(pos), EndLine: end.Line, EndColumn: s.utf16Column(end)}
	if region.EndLine == region.StartLine {
		// An unreadable file makes the line look empty: end at the start.
		region.EndColumn = max(region.EndColumn, region.StartColumn)
	}
	return sarifPhysicalLocation{ArtifactLocation: artifact(pos.Filename, dir), Region: region}
}

func (s *sources) utf16Column(p token.Position) int {
	line := s.line(p.Filename, p.Line)
	if p.Column < 1 || p.Column-1 > len(line) {
		return max(p.Column, 1)
	}
	n := 0
	for _, r := range line[:p.Column-1] {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n + 1
}
